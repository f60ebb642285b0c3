#include "core/ordered_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace frontier {
namespace {

// Job 0 finishes only after job 3 has: the results still come out 0, 1, 2, ...
TEST(OrderedPool, ResultsComeOutInOrderWhateverOrderTheJobsEndIn) {
  std::mutex mu;
  std::condition_variable cv;
  bool three_done = false;
  std::vector<size_t> ended, delivered;
  std::vector<int> slots(8, -1);
  const size_t n = RunOrdered(
      8, {.threads = 4, .window = 8},
      [&](size_t i) {
        std::unique_lock<std::mutex> lock(mu);
        // A bound only so that a broken pool fails instead of hanging; the pool never needs it.
        if (i == 0) {
          EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return three_done; }));
        }
        slots[i] = static_cast<int>(i * i);
        ended.push_back(i);
        if (i == 3) three_done = true;
        cv.notify_all();
      },
      [&](size_t i) {
        EXPECT_EQ(slots[i], static_cast<int>(i * i));
        delivered.push_back(i);
        return true;
      });
  EXPECT_EQ(n, 8u);
  EXPECT_EQ(delivered, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  ASSERT_EQ(ended.size(), 8u);
  const auto pos = [&](size_t job) { return std::find(ended.begin(), ended.end(), job) - ended.begin(); };
  EXPECT_LT(pos(3), pos(0));
}

// No job starts more than `window` past the next one to deliver.
TEST(OrderedPool, JobsStayWithinTheWindowOfTheNextDelivery) {
  std::atomic<size_t> delivered{0};
  std::atomic<int> too_far{0};
  const size_t n = RunOrdered(
      50, {.threads = 2, .window = 3},
      [&](size_t i) {
        if (i >= delivered.load() + 3) ++too_far;
      },
      [&](size_t i) {
        delivered = i + 1;
        return true;
      });
  EXPECT_EQ(n, 50u);
  EXPECT_EQ(too_far.load(), 0);
}

// deliver returning false ends the run: nothing after it is delivered.
TEST(OrderedPool, ADeliveryThatFailsStopsTheRest) {
  for (unsigned threads : {1u, 3u}) {
    std::vector<size_t> delivered;
    std::atomic<size_t> ran{0};
    const size_t n = RunOrdered(
        20, {.threads = threads, .window = 2}, [&](size_t) { ++ran; },
        [&](size_t i) {
          delivered.push_back(i);
          return i != 2;
        });
    EXPECT_EQ(n, 3u) << threads;
    EXPECT_EQ(delivered, (std::vector<size_t>{0, 1, 2})) << threads;
    EXPECT_LE(ran.load(), 2u + 1 + 2) << threads;  // at most the window past the last delivery
  }
}

// A stop starts no further job; one thread stops exactly between jobs.
TEST(OrderedPool, AStopStartsNoFurtherJob) {
  std::vector<size_t> delivered;
  std::vector<std::thread::id> where;
  const size_t n = RunOrdered(
      10, {.threads = 1}, [&](size_t) { where.push_back(std::this_thread::get_id()); },
      [&](size_t i) {
        delivered.push_back(i);
        return true;
      },
      [&] { return delivered.size() == 4; });
  EXPECT_EQ(n, 4u);
  EXPECT_EQ(delivered, (std::vector<size_t>{0, 1, 2, 3}));
  ASSERT_EQ(where.size(), 4u);
  EXPECT_EQ(where[0], std::this_thread::get_id());  // one thread: on the caller

  std::atomic<size_t> given{0};
  std::atomic<size_t> ran{0};
  const size_t m = RunOrdered(
      100, {.threads = 3, .window = 2}, [&](size_t) { ++ran; },
      [&](size_t) {
        ++given;
        return true;
      },
      [&] { return given.load() >= 5; });
  EXPECT_GE(m, 5u);
  EXPECT_EQ(m, ran.load());      // every job started was delivered
  EXPECT_LE(m, 5u + 2 + 3);      // started at most the window past the fifth, plus those in flight
}

}  // namespace
}  // namespace frontier
