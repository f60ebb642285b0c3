// frontier simulate and bench at their bounds, through the binary: a run where every
// request fails, an endless --duration and an endless model file all end
// promptly with a non-zero exit and the reason on the terminal.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "sweep/sweep_test_util.h"

namespace frontier {
namespace {

using namespace testing_cli;

TEST(SimulateBoundsCli, RequestsLongerThanTheContextAreRefusedBeforeAnyPromptIsDrawn) {
  // Every request would be refused by the engine: judged up front (exit 2),
  // before the prompts take their memory.
  auto [rc, out] = Frontier("simulate --model llama-3.1-8b --hardware h100 --input-len 131072 --num-prompts 20");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("frontier simulate: --input-len 131072 + --output-len 128: every request would be 131200 "
                     "tokens or more, longer than the max context of 131072 tokens of "),
            std::string::npos)
      << out;
  // A sweep too.
  std::tie(rc, out) = Frontier(
      "simulate --model llama-3.1-8b --hardware h100 --input-len 131072 --num-prompts 4 --concurrency 1,2");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("longer than the max context of 131072 tokens"), std::string::npos) << out;
  // The example: 10 M-token prompts ended after 176 s and 6.7 GB; now at once.
  std::tie(rc, out) = Frontier("simulate --model llama-3.1-8b --hardware h100 --input-len 10000000 --num-prompts 100");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("--input-len 10000000 + --output-len 128: every request would be"), std::string::npos) << out;
}

// --max-num-seqs is all of its text, a cap or auto: trailing junk and blanks
// (which std::stoi once let through) are refused, naming the flag and both forms.
TEST(SimulateBoundsCli, MaxNumSeqsIsACapOrAutoAndNothingElse) {
  for (const std::string bad : {"12abc", "' 12'"}) {
    auto [rc, out] = Frontier("simulate --model llama-3.1-8b --hardware h100 --num-prompts 4 --max-num-seqs " + bad);
    EXPECT_EQ(rc, 2) << out;
    const std::string shown = bad == "12abc" ? "'12abc'" : "' 12'";
    EXPECT_EQ(out, "frontier simulate: --max-num-seqs: must be an integer in [1, 1000000] or 'auto', got " + shown +
                       "\n");
  }
  for (const char* good : {"12", "auto"}) {
    auto [rc, out] =
        Frontier(std::string("simulate --model llama-3.1-8b --hardware h100 --num-prompts 4 --max-concurrency 2 "
                             "--max-num-seqs ") + good);
    EXPECT_EQ(rc, 0) << good << ": " << out;
  }
}

TEST(SimulateBoundsCli, ABenchWhoseEveryRequestFailedExitsNonZeroWithTheReason) {
  // Nothing listens on the port: every request is refused.
  const int port = FreePort();
  auto [rc, out] = Frontier("bench --model m --base-url http://127.0.0.1:" + std::to_string(port) +
                            " --num-prompts 5 --input-len 8 --output-len 4 --no-progress");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("frontier bench: every request failed:\n  5 connect ("), std::string::npos) << out;
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

TEST(SimulateBoundsCli, AnEndlessDatasetEndsAtTheBound) {
  auto [rc, out] = testing_cli::Run("FRONTIER_MAX_INPUT_MB=1 " + Binary() +
                                    " simulate --model llama-3.1-8b --hardware h100 --dataset jsonl"
                                    " --dataset-path /dev/zero");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("/dev/zero: larger than 1 MiB, the bound on datasets (docs/limits.md); set "
                     "FRONTIER_MAX_INPUT_MB to raise it"),
            std::string::npos)
      << out;
  // ShareGPT is parsed as a stream: /dev/zero's first byte is not JSON, so it ends there.
  auto [src, sout] = testing_cli::Run("FRONTIER_MAX_INPUT_MB=1 " + Binary() +
                                      " simulate --model llama-3.1-8b --hardware h100 --dataset sharegpt"
                                      " --dataset-path /dev/zero");
  EXPECT_EQ(src, 2) << sout;
  EXPECT_NE(sout.find("/dev/zero:1: not valid JSON"), std::string::npos) << sout;
}

TEST(SimulateBoundsCli, FlagsOutsideTheirRangeAreNamedWithTheRange) {
  const std::string sim = "simulate --model llama-3.1-8b --hardware h100 ";
  const std::pair<std::string, std::string> cases[] = {
      // Used to overflow int32 inside the flag parser, or pass unchecked.
      {sim + "--input-len 99999999999", "frontier simulate: --input-len must be an integer in [1, 10000000], got 99999999999\n"},
      {sim + "--num-prompts 1000000000000",
       "frontier simulate: --num-prompts must be an integer in [1, 10000000], got 1000000000000\n"},
      {sim + "--dp 200000", "frontier simulate: --dp must be an integer in [0, 1024], got 200000\n"},
      {sim + "--max-num-seqs 0", "frontier simulate: --max-num-seqs: must be an integer in [1, 1000000] or 'auto', got '0'\n"},
      {sim + "--duration 1e12 --max-concurrency 4",
       "frontier simulate: --duration must be a number of seconds in (0, 1e9], got 1000000000000\n"},
      {sim + "--input-len 1000000 --num-prompts 2000",
       "frontier simulate: the prompts would hold 2000000000 tokens ((--num-prompts + --warmup) x (--input-len x (1 + "
       "--range-ratio) + --prefix-len)); at most 1000000000\n"},
      {sim + "--concurrency 1,99999999999",
       "frontier simulate: --concurrency must be an integer in [1, 10000000], got '99999999999'\n"},
      {sim + "--concurrency 1,,2", "frontier simulate: --concurrency must be an integer in [1, 10000000], got ''\n"},
      // A sweep's largest point sends 4 x its concurrency: these drew 10 and 40 million prompts of 1,024 tokens
      // (out of memory, or minutes of --as-plan) before they were checked against a point's bounds.
      {sim + "--concurrency 1,2500001",
       "frontier simulate: --concurrency 2500001: its point runs at least 4 x 2500001 requests (10000004 with "
       "--warmup), at most 10000000 per point; lower the largest concurrency\n"},
      // A session workload's concurrency counts open sessions.
      {sim + "--dataset multi-turn --concurrency 2500001",
       "frontier simulate: --concurrency 2500001: its point runs at least 4 x 2500001 sessions (10000004 with "
       "--warmup), at most 10000000 per point; lower the largest concurrency\n"},
      {sim + "--concurrency 1000000 --as-plan",
       "frontier simulate: --concurrency 1000000: the prompts would hold 4096000000 tokens ((--num-prompts + "
       "--warmup) x (--input-len x (1 + --range-ratio) + --prefix-len)); at most 1000000000; lower the largest "
       "concurrency or --input-len\n"},
      {"bench --model m --request-rate 1e300", "frontier bench: --request-rate must be a number in (0, 1e9] or 'inf', got '1e300'\n"},
      {"serve --profile fixed --max-model-len 99999999999",
       "frontier serve: --max-model-len must be an integer in [2, 2147483647], got 99999999999\n"},
      // Each used to be accepted (a timeout whose nanoseconds overflow int64, an out-of-memory
      // abort for a validation run of 1e14 requests) or refused without the value or the range.
      {"bench --model m --timeout 1e300", "frontier bench: --timeout must be a number in [0, 1000000], got 1e+300\n"},
      {"bench --model m --grace inf", "frontier bench: --grace must be a number in [0, 1000000], got inf\n"},
      {"bench --model m --first-token-timeout -1",
       "frontier bench: --first-token-timeout must be a number in [0, 1000000], got -1\n"},
      {"bench --model m --connect-timeout 0",
       "frontier bench: --connect-timeout must be a number in [0.001, 1000000], got 0\n"},
      {"validate --offline-requests 99999999999999",
       "frontier validate: --offline-requests must be an integer in [100, 1000000], got 99999999999999\n"},
      {"validate --server-requests 5", "frontier validate: --server-requests must be an integer in [100, 1000000], got 5\n"},
      // calibrate shares validate's bounds (it ran out of memory); probe's are its table's validator's.
      {"calibrate --stack vllm-rocm@0.4.3 --dry-run --offline-requests 99999999999999",
       "frontier calibrate: --offline-requests must be an integer in [100, 1000000], got 99999999999999\n"},
      {"probe --probe-backend fake --hardware h200 --top-n 0", "frontier probe: --top-n must be an integer in [1, 64], got 0\n"},
      {"probe --probe-backend fake --hardware h200 --stream-mib 0",
       "frontier probe: --stream-mib must be an integer in [1, 1048576], got 0\n"},
      {"serve --profile fixed --fault-error-rate 2",
       "frontier serve: --fault-error-rate must be a number in [0, 1], got 2\n"},
      {"serve --profile fixed --fault-stall-ms 1e300",
       "frontier serve: --fault-stall-ms must be a number in [0, 10000000], got 1e+300\n"},
      {"serve --profile fixed --ttft-ms 1e8", "frontier serve: --ttft-ms must be a number in [0, 10000000], got 100000000\n"},
      // The flag parser read integers in base 0 and saturated: "010" was 8 prompts, "0x10" 16 tokens,
      // 1e20 the largest int64 (named as 9223372036854775807), a seed of -1 wrapped to 2^64 - 1.
      {sim + "--num-prompts 010 --input-len 0x10",
       "frontier simulate: --input-len must be a whole number in decimal digits, got '0x10'\n"},
      {sim + "--num-prompts 99999999999999999999",
       "frontier simulate: --num-prompts must be an integer in [-9223372036854775808, 9223372036854775807], got "
       "'99999999999999999999'\n"},
      {sim + "--seed -1", "frontier simulate: --seed must be an integer in [0, 18446744073709551615], got '-1'\n"},
      {"report --db x.db --run 99999999999999999999",
       "frontier report: --run must be an integer in [1, 9223372036854775807], got '99999999999999999999'\n"},
      {sim + "--client-rtt-us -1", "frontier simulate: --client-rtt-us must be a number in [0, 1000000000], got -1\n"},
      {sim + "--gpu-memory-utilization 7", "frontier simulate: --gpu-memory-utilization must be a number in [0.01, 1], got 7\n"},
  };
  for (const auto& [args, message] : cases) {
    auto [rc, out] = Frontier(args);
    EXPECT_EQ(rc, 2) << args;
    EXPECT_EQ(out, message) << args;
  }
  // Leading zeros are decimal: 010 prompts are ten.
  auto [rc, out] = Frontier(sim + "--num-prompts 010 --input-len 16 --output-len 4");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("Successful requests: +10\n"))) << out;
}

}  // namespace
}  // namespace frontier
