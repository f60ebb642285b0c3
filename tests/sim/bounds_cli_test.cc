// frontier simulate at its bounds, through the binary: a run where every
// request fails, an endless --duration and an endless model file all end
// promptly with a non-zero exit and the reason on the terminal.
#include <gtest/gtest.h>

#include <string>

#include "../sweep/cli_test_util.h"

namespace frontier {
namespace {

using namespace testing_cli;

TEST(SimulateBoundsCli, EveryRequestRejectedExitsNonZeroWithTheReason) {
  auto [rc, out] = Frontier("simulate --model llama-3.1-8b --hardware h100 --input-len 131072 --num-prompts 20");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("frontier simulate: every request failed:\n  20 rejected (request 0: 131072 input + 128 output "
                     "tokens exceed the model's context of 131072)\n"),
            std::string::npos)
      << out;
  // A sweep whose points all fail says so too.
  std::tie(rc, out) = Frontier(
      "simulate --model llama-3.1-8b --hardware h100 --input-len 131072 --num-prompts 4 --concurrency 1,2");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("every request of a point failed:\nconcurrency 1:\n  4 rejected"), std::string::npos) << out;
}

TEST(SimulateBoundsCli, AnEndlessDurationStopsAtTheMemoryBoundAndSaysSo) {
  auto [rc, out] = Frontier(
      "simulate --model llama-3.1-8b --hardware h100 --duration 1e9 --max-concurrency 4 --max-memory-mb 16");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("frontier simulate: the simulation's request records reached their bound of 16 MiB "
                     "(--max-memory-mb) after "),
            std::string::npos)
      << out;
  std::tie(rc, out) = Frontier(
      "simulate --model llama-3.1-8b --hardware h100 --duration 1e9 --max-concurrency 4 --max-requests 5000");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("the simulation reached its bound of 5000 requests (--max-requests) at "), std::string::npos)
      << out;
}

TEST(SimulateBoundsCli, AnEndlessModelFileEndsAtTheBound) {
  auto [rc, out] = Frontier("simulate --model /dev/zero --hardware h100");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_EQ(out, "frontier simulate: /dev/zero: larger than 16 MiB, the bound on model configs and catalog files "
                 "(docs/limits.md); set FRONTIER_MAX_INPUT_MB to raise it\n");
}

}  // namespace
}  // namespace frontier
