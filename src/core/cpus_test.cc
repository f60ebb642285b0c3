#include "core/cpus.h"

#include <gtest/gtest.h>
#include <sched.h>

namespace frontier {
namespace {

// `taskset -c 0 frontier ...` means one thread to every pool: the count is the affinity mask's.
TEST(UsableCpus, IsTheAffinityMasksCount) {
  cpu_set_t all;
  CPU_ZERO(&all);
  ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
  EXPECT_EQ(UsableCpus(), static_cast<unsigned>(CPU_COUNT(&all)));
  int first = 0;
  while (!CPU_ISSET(first, &all)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  const unsigned pinned = UsableCpus();
  ASSERT_EQ(sched_setaffinity(0, sizeof(all), &all), 0);
  EXPECT_EQ(pinned, 1u);
}

}  // namespace
}  // namespace frontier
