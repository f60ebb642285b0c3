#include "core/host_name.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstring>

#include <gtest/gtest.h>

namespace frontier {
namespace {

TEST(HostName, IsTheNodeNameOfUname) {
  struct utsname u {};
  ASSERT_EQ(::uname(&u), 0);
  EXPECT_EQ(HostName(), u.nodename);
  EXPECT_FALSE(HostName().empty());
}

// A reader that fills every byte it is given with 'a' and no NUL, as glibc
// does with a name longer than the buffer when it still reports success.
int FillWithoutNul(char* name, size_t len) {
  std::memset(name, 'a', len);
  return 0;
}

TEST(HostName, AFullBufferStillEndsAtItsLastByte) {
  const std::string name = internal::HostName(&FillWithoutNul);
  EXPECT_EQ(name, std::string(255, 'a'));  // 256-byte buffer, 255 handed to the reader
}

int Fails(char* name, size_t len) {
  std::memset(name, 'b', len / 2);  // a partial write before the error
  return -1;
}

TEST(HostName, AFailedReadIsEmpty) { EXPECT_EQ(internal::HostName(&Fails), ""); }

}  // namespace
}  // namespace frontier
