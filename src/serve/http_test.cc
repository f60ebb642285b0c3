#include "serve/http.h"

#include <gtest/gtest.h>

namespace frontier::serve {
namespace {

TEST(AppendBodyPart, ChunkedFraming) {
  std::string out;
  AppendBodyPart(out, "data: x\n\n", true);
  EXPECT_EQ(out, "9\r\ndata: x\n\n\r\n");
  AppendBodyPart(out, "", true);  // never a terminating chunk by accident
  EXPECT_EQ(out, "9\r\ndata: x\n\n\r\n");
  std::string raw;
  AppendBodyPart(raw, std::string(26, 'z'), false);
  EXPECT_EQ(raw.size(), 26u);
}

TEST(FormatResponse, HeadersAndBody) {
  const std::string r = FormatResponse(404, "application/json", "{}", false);
  EXPECT_EQ(r.rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u);
  EXPECT_NE(r.find("content-length: 2\r\n"), std::string::npos);
  EXPECT_NE(r.find("connection: close\r\n"), std::string::npos);
  EXPECT_EQ(r.substr(r.size() - 6), "\r\n\r\n{}");
}

}  // namespace
}  // namespace frontier::serve
