#include "dashboard/query.h"

#include <gtest/gtest.h>

#include <string>

namespace frontier::dashboard {
namespace {

TEST(Query, DecodesAndKeepsRepeatedKeys) {
  auto q = Query::Parse("run=3&run=4,5&model=llama%203.1+70b&empty=&flag");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->Text("model"), "llama 3.1 70b");
  EXPECT_EQ(q->List("run"), (std::vector<std::string>{"3", "4", "5"}));
  auto ids = q->Ids("run");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<int64_t>{3, 4, 5}));
  EXPECT_TRUE(q->Has("flag"));
  EXPECT_EQ(q->Text("empty", "fallback"), "fallback");
  EXPECT_EQ(*UrlDecode("%3Cscript%3e"), "<script>");
}

TEST(Query, BadEscapesAndValuesNameTheParameterAndTheFix) {
  EXPECT_FALSE(Query::Parse("a=%zz").ok());
  EXPECT_FALSE(Query::Parse("a=%4").ok());
  EXPECT_FALSE(UrlDecode("%").ok());
  auto q = *Query::Parse("id=12x&n=7&big=1e400&d=2026-02-30&day=2026-1-01&y=banana");
  auto id = q.Id("id");
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(id.status().message().find("'id' is '12x'"), std::string::npos) << id.status().message();
  EXPECT_FALSE(q.Number("n", 0, 5).ok());
  EXPECT_DOUBLE_EQ(q.Number("n", 0, 10)->value(), 7);
  EXPECT_FALSE(q.Number("big", 0, 1e300).ok());
  // A number is all of the value (core/parse.h): no blank before it, no hex.
  auto junk = *Query::Parse("blank=%205&hex=0x5&tail=5x");
  for (const char* key : {"blank", "hex", "tail"}) {
    auto n = junk.Number(key, 0, 10);
    ASSERT_FALSE(n.ok()) << key;
    EXPECT_NE(n.status().message().find(std::string("query parameter '") + key + "' is "), std::string::npos)
        << n.status().message();
    EXPECT_NE(n.status().message().find("; expected a number from 0 to 10"), std::string::npos)
        << n.status().message();
  }
  EXPECT_FALSE(q.Date("day").ok());
  EXPECT_TRUE(q.Date("d").ok());  // the shape is checked, not the calendar
  auto y = q.OneOf("y", {"total", "output"}, "total");
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("total, output"), std::string::npos);
  EXPECT_EQ(*q.OneOf("absent", {"a"}, "a"), "a");
  EXPECT_FALSE(q.OnlyKnown({"id", "n"}).ok());
  EXPECT_TRUE(q.OnlyKnown({"id", "n", "big", "d", "day", "y"}).ok());
  EXPECT_FALSE(q.Id("absent")->has_value());
  auto zero = Query::Parse("since=0&bad=-2");
  EXPECT_EQ(zero->Index("since")->value(), 0);
  EXPECT_FALSE(zero->Index("bad").ok());
  EXPECT_FALSE(zero->Id("since").ok());
}

TEST(Query, IdsMustBePositiveIntegers) {
  for (const char* bad : {"run=0", "run=-1", "run=1.5", "run=1,x", "run=99999999999999999999"}) {
    auto q = Query::Parse(bad);
    ASSERT_TRUE(q.ok());
    EXPECT_FALSE(q->Ids("run").ok()) << bad;
  }
}

}  // namespace
}  // namespace frontier::dashboard
