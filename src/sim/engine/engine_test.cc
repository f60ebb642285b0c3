#include "sim/engine/engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "sim/engine/testing.h"

namespace frontier::sim {
namespace {

// A config whose KV cache holds `tokens` tokens (block 16, 2 layers).
SimConfig SmallKv(int64_t tokens) {
  SimConfig c = testing::TinyConfig();
  const double per_token = c.memory.kv_bytes_per_token;
  c.memory.kv = static_cast<double>(tokens) * per_token;
  c.memory.kv_capacity_tokens = tokens;
  return c;
}

// 40 requests of 300 + 200 tokens, 32 pages of 16 tokens each (per layer),
// in a cache of 256 pages: never over capacity, every request finishes with
// all its tokens. Admitted by what they need now (the default), 13 prompts of
// 19 pages fit at first and preemption follows. With TensorRT-LLM's
// GUARANTEED_NO_EVICT (the stack's reserve_to_completion) a request is
// admitted only when the pages for its whole prompt and output are free
// beside what the running ones may still take: at most 8 run at once, 8 do,
// and none is ever preempted.
TEST(EngineTest, NeverOverKvCapacityEveryRequestFinishesAndPreemptionRecovers) {
  for (const bool reserve : {false, true}) {
    SimConfig c = SmallKv(4096);  // 256 pages per layer
    c.stack.reserve_to_completion = reserve;
    Engine e(c);
    const int n = 40;
    for (int i = 0; i < n; ++i) ASSERT_TRUE(e.Add(i, 300, 200).ok());
    std::map<int64_t, int32_t> emitted;
    int finished = 0;
    int steps = 0;
    int64_t most = 0;
    while (!e.Idle()) {
      Engine::Step s = NextStep(e);
      ASSERT_GT(s.duration_ns, 0);
      const EngineStats st = e.stats();
      ASSERT_LE(st.kv_blocks_used, st.kv_blocks_total);
      most = std::max(most, st.running);
      for (const auto& em : s.emissions) {
        emitted[em.id] += em.tokens;
        if (em.finished) ++finished;
      }
      ASSERT_LT(++steps, 100000);
    }
    EXPECT_EQ(finished, n);
    for (int i = 0; i < n; ++i) EXPECT_EQ(emitted[i], 200) << i;
    EXPECT_EQ(e.stats().kv_blocks_used, 0);
    if (reserve) {
      EXPECT_EQ(most, 8);
      EXPECT_EQ(e.stats().preemptions, 0);
    } else {
      EXPECT_EQ(most, 13);
      EXPECT_GT(e.stats().preemptions, 0);  // 40 x 500 tokens cannot all fit in 4096
    }
  }
}

TEST(EngineTest, FirstComeFirstServedAdmission) {
  // Room for 4 running sequences: requests must start in arrival order.
  SimConfig c = testing::TinyConfig();
  c.max_num_seqs = 4;
  Engine e(c);
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(e.Add(i, 100 + 37 * (i % 5), 50).ok());
  std::vector<int64_t> first_order;
  while (!e.Idle()) {
    for (const auto& em : NextStep(e).emissions)
      if (em.first) first_order.push_back(em.id);
  }
  ASSERT_EQ(first_order.size(), 12u);
  for (size_t i = 1; i < first_order.size(); ++i) EXPECT_LT(first_order[i - 1], first_order[i]);
}

TEST(EngineTest, ChunkedPrefillRespectsTheTokenBudget) {
  SimConfig c = testing::TinyConfig();
  c.max_num_batched_tokens = 512;
  Engine e(c);
  ASSERT_TRUE(e.Add(0, 2000, 4).ok());
  ASSERT_TRUE(e.Add(1, 10, 4).ok());
  int steps_to_first = 0;
  bool first = false;
  while (!first) {
    Engine::Step s = NextStep(e);
    EXPECT_LE(s.shape.tokens(), 512);
    ++steps_to_first;
    for (const auto& em : s.emissions) first |= (em.id == 0 && em.first);
  }
  EXPECT_EQ(steps_to_first, 4);  // 2000 tokens in chunks of 512
}

// The four prompt-scheduling modes (stack.h PrefillMode) on one hand-built
// step: request A is decoding, B and C (300-token prompts) wait, the budget
// is 512 tokens. Chunked and mixed: A's token, B whole, C's first 211
// tokens. Whole and mixed: A's token and B (C does not fit and waits).
// Chunked and separate: prompts only, B and C's first 212 tokens. Whole and
// separate: B alone.
TEST(EngineTest, EachPrefillModeBuildsTheHandComputedStep) {
  struct Case {
    bool chunked, mixed;
    int64_t tokens, decode_seqs, prefill_tokens;
  };
  for (const Case& k : {Case{true, true, 512, 1, 511}, Case{false, true, 301, 1, 300},
                        Case{true, false, 512, 0, 512}, Case{false, false, 300, 0, 300}}) {
    SCOPED_TRACE(std::string(k.chunked ? "chunked" : "whole") + (k.mixed ? "-mixed" : "-separate"));
    SimConfig c = testing::TinyConfig();
    c.max_num_batched_tokens = 512;
    c.chunked_prefill = k.chunked;
    c.mixed_prefill = k.mixed;
    Engine e(c);
    ASSERT_TRUE(e.Add(0, 10, 20).ok());
    Engine::Step first = NextStep(e);  // A's prompt, whole, and its first token
    EXPECT_EQ(first.shape.prefill_tokens, 10);
    ASSERT_TRUE(e.Add(1, 300, 4).ok());
    ASSERT_TRUE(e.Add(2, 300, 4).ok());
    Engine::Step s = NextStep(e);
    EXPECT_EQ(s.shape.tokens(), k.tokens);
    EXPECT_EQ(s.shape.decode_seqs, k.decode_seqs);
    EXPECT_EQ(s.shape.prefill_tokens, k.prefill_tokens);
  }
}

TEST(EngineTest, RejectsWhatCanNeverFitAndCancelFrees) {
  Engine e(SmallKv(1024));
  Status s = e.Add(0, 1000, 100);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_FALSE(e.Add(1, 0, 10).ok());
  ASSERT_TRUE(e.Add(2, 500, 100).ok());
  EXPECT_FALSE(e.Add(2, 5, 5).ok());  // duplicate id
  NextStep(e);
  EXPECT_GT(e.stats().kv_blocks_used, 0);
  e.Cancel(2);
  EXPECT_EQ(e.stats().kv_blocks_used, 0);
  EXPECT_TRUE(e.Idle());
}

TEST(EngineTest, SpeculativeDecodingEmitsTheAcceptanceLength) {
  SimConfig c = testing::TinyConfig();
  c.spec_tokens = 3;
  c.acceptance = 2.5;
  Engine e(c);
  ASSERT_TRUE(e.Add(0, 64, 1001).ok());
  std::vector<int32_t> chunks;
  while (!e.Idle())
    for (const auto& em : NextStep(e).emissions) chunks.push_back(em.tokens);
  // First token from prefill, then 1000 tokens at 2.5 per step (2, 3, 2, 3, ...).
  ASSERT_EQ(chunks.size(), 1u + 400u);
  EXPECT_EQ(chunks[0], 1);
  int total = 0;
  for (size_t i = 1; i < chunks.size(); ++i) {
    EXPECT_TRUE(chunks[i] == 2 || chunks[i] == 3);
    total += chunks[i];
  }
  EXPECT_EQ(total, 1000);
}

// Little's law, L = lambda W: with a closed loop of C requests the mean number
// in the system is C (apart from the final drain), so throughput x mean
// latency must come back to C.
// RunDecodeSteps plans, at once, exactly the steps RunStep plans one by one:
// an engine that takes every run it is offered and one that only steps keep
// the same durations, emissions and pages. The KV cache is small enough that
// pages run short (runs are then refused and requests preempted), and the
// runs' horizon varies, so runs end at the horizon as well as before a finish.
TEST(EngineTest, DecodeRunsAreTheStepsRunStepPlansOneByOne) {
  const SimConfig c = SmallKv(6000);
  Engine runs(c), steps(c);
  const int n = 48;
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(runs.Add(i, 40 + 29 * (i % 7), 30 + 53 * (i % 5)).ok());
    ASSERT_TRUE(steps.Add(i, 40 + 29 * (i % 7), 30 + 53 * (i % 5)).ok());
  }
  Engine::Step a, b;
  std::vector<Nanos> durations;
  int64_t run_steps = 0, refused = 0, planned = 0;
  for (int k = 0; !runs.Idle(); ++k) {
    ASSERT_LT(k, 100000);
    const Nanos before = k % 3 == 0 ? Engine::kNever : 150'000 * (1 + k % 4);  // tiny model: ~70 us a step
    const int64_t m = runs.RunDecodeSteps(before, &a, &durations);
    if (m == 0) {
      ++refused;
      runs.RunStep(&a);
      steps.RunStep(&b);
      ASSERT_EQ(a.duration_ns, b.duration_ns);
      ASSERT_EQ(a.emissions.size(), b.emissions.size());
      for (size_t i = 0; i < a.emissions.size(); ++i) {
        ASSERT_EQ(a.emissions[i].id, b.emissions[i].id);
        ASSERT_EQ(a.emissions[i].tokens, b.emissions[i].tokens);
        ASSERT_EQ(a.emissions[i].first, b.emissions[i].first);
        ASSERT_EQ(a.emissions[i].finished, b.emissions[i].finished);
      }
    } else {
      ASSERT_EQ(static_cast<int64_t>(durations.size()), m);
      Nanos total = 0;
      for (int64_t j = 0; j < m; ++j) {
        steps.RunStep(&b);
        if (j == 0) {
          EXPECT_EQ(b.shape.decode_keys_full, a.shape.decode_keys_full);
        }
        ASSERT_EQ(durations[static_cast<size_t>(j)], b.duration_ns) << "step " << j << " of a run of " << m;
        ASSERT_EQ(b.shape.prefill_tokens, 0);
        ASSERT_EQ(b.emissions.size(), a.emissions.size());
        for (size_t i = 0; i < b.emissions.size(); ++i) {
          ASSERT_EQ(b.emissions[i].id, a.emissions[i].id);
          ASSERT_EQ(b.emissions[i].tokens, 1);
          ASSERT_FALSE(b.emissions[i].first || b.emissions[i].finished);
        }
        total += b.duration_ns;
      }
      EXPECT_LT(total, before);
      EXPECT_EQ(a.duration_ns, total);
      run_steps += m;
    }
    ++planned;
    const EngineStats x = runs.stats(), y = steps.stats();
    ASSERT_EQ(x.steps, y.steps);
    ASSERT_EQ(x.kv_blocks_used, y.kv_blocks_used);
    ASSERT_EQ(x.preemptions, y.preemptions);
    ASSERT_EQ(x.running, y.running);
    ASSERT_EQ(runs.kv_usage(), steps.kv_usage());
  }
  EXPECT_TRUE(steps.Idle());
  EXPECT_EQ(runs.stats().finished, n);
  EXPECT_GT(steps.stats().preemptions, 0);  // pages ran short
  const int64_t runs_planned = planned - refused;
  EXPECT_GT(runs_planned, 10);
  EXPECT_GT(run_steps, 2 * runs_planned);  // runs of several steps
  EXPECT_GT(refused, n);                   // prompts, finishes and page shortages
}

}  // namespace
}  // namespace frontier::sim
