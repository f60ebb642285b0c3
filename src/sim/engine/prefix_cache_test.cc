// Prefix caching in the simulator: the cache's eviction order, and the
// worker's hits, prefill skipped and memory under hand-computed cases.
#include "sim/engine/prefix_cache.h"

#include <gtest/gtest.h>

#include <numeric>

#include "sim/engine/step_model.h"
#include "sim/engine/testing.h"
#include "sim/engine/worker.h"
#include "workload/prefix_blocks.h"

namespace frontier::sim {
namespace {

TEST(PrefixCacheTest, EvictsLeastRecentlyFreedAndNeverAHeldBlock) {
  PrefixCache c;
  for (uint64_t h : {1, 2, 3, 4}) ASSERT_TRUE(c.Insert(h));
  EXPECT_FALSE(c.Insert(2));  // already cached: the second copy stays private
  const std::vector<uint64_t> a_tail_first = {2, 1}, b_tail_first = {4, 3};
  c.Release(a_tail_first);
  c.Release(b_tail_first);
  EXPECT_EQ(c.evictable(), 4);
  // Block 1 is held again (a hit): it leaves the eviction order.
  const std::vector<uint64_t> prefix = {1, 2};
  const PrefixCache::Match m = c.Find(prefix, 2);
  EXPECT_EQ(m.blocks, 2);
  EXPECT_EQ(m.evictable, 2);
  c.Acquire(prefix, 1);
  EXPECT_EQ(c.evictable(), 3);
  // Freed order was 2, 1, 4, 3; 1 is held: 2, then 4, then 3.
  ASSERT_TRUE(c.EvictOne());
  EXPECT_FALSE(c.Contains(2));
  ASSERT_TRUE(c.EvictOne());
  EXPECT_FALSE(c.Contains(4));
  ASSERT_TRUE(c.EvictOne());
  EXPECT_FALSE(c.Contains(3));
  EXPECT_FALSE(c.EvictOne());  // only the held block is left
  EXPECT_TRUE(c.Contains(1));
  EXPECT_EQ(c.evictions(), 3);
  // Find stops at the first miss.
  const std::vector<uint64_t> gap = {1, 9, 1};
  EXPECT_EQ(c.Find(gap, 3).blocks, 1);
}

std::vector<int32_t> Tokens(int32_t first, int n) {
  std::vector<int32_t> t(static_cast<size_t>(n));
  std::iota(t.begin(), t.end(), first);
  return t;
}

std::vector<uint64_t> Hashes(const std::vector<int32_t>& t) { return workload::ChainedBlockHashes(t, 16); }

// Runs the worker until idle; returns the steps.
std::vector<Worker::Step> Drain(Worker& w) {
  std::vector<Worker::Step> steps;
  while (!w.Idle()) steps.push_back(NextStep(w));
  return steps;
}

TEST(WorkerPrefixCacheTest, RepeatedPromptSkipsAllButItsLastBlockAndTtftIsTheShorterPrefill) {
  const SimConfig c = testing::TinyConfig();  // block 16, 2 layers
  Worker w(c);
  const std::vector<int32_t> prompt = Tokens(100, 64);
  std::vector<int32_t> a = prompt;
  a.push_back(7);  // the answer's one token
  ASSERT_TRUE(w.Add(1, 64, 1, Hashes(a)).ok());
  const auto first = Drain(w);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].shape.prefill_tokens, 64);
  EXPECT_EQ(w.stats().prefix_queries, 64);
  EXPECT_EQ(w.stats().prefix_hits, 0);
  EXPECT_EQ(w.stats().cached_blocks, 4);   // 64 prompt tokens = 4 full blocks
  EXPECT_EQ(w.stats().kv_blocks_used, 0);  // cached, free: not in use

  // The same prompt again: 3 blocks hit (the last token's block is recomputed,
  // as vLLM does), 16 tokens prefilled over 48 cached.
  ASSERT_TRUE(w.Add(2, 64, 1, Hashes(a)).ok());
  const auto second = Drain(w);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].shape.prefill_tokens, 16);
  EXPECT_EQ(w.stats().prefix_queries, 128);
  EXPECT_EQ(w.stats().prefix_hits, 48);
  EXPECT_EQ(w.stats().cached_blocks, 4);  // its own blocks were duplicates or hits
  // TTFT is the step: the model's cost of 16 new tokens attending to 64 keys,
  // against 64 new tokens from scratch.
  const StepModel model(c);
  BatchShape hit, cold;
  hit.AddPrefill(48, 16, 0, true);
  cold.AddPrefill(0, 64, 0, true);
  EXPECT_EQ(second[0].duration_ns, std::max<Nanos>(1, model.StepNanos(hit)));
  EXPECT_EQ(first[0].duration_ns, std::max<Nanos>(1, model.StepNanos(cold)));
  EXPECT_LT(second[0].duration_ns, first[0].duration_ns);

  // Off: no hits, the whole prompt again.
  SimConfig off = c;
  off.prefix_caching = false;
  Worker w2(off);
  ASSERT_TRUE(w2.Add(1, 64, 1, Hashes(a)).ok());
  Drain(w2);
  ASSERT_TRUE(w2.Add(2, 64, 1, Hashes(a)).ok());
  EXPECT_EQ(Drain(w2)[0].shape.prefill_tokens, 64);
  EXPECT_EQ(w2.stats().prefix_queries, 0);
}

// A request's own blocks that join the cache stay its pages: while it runs
// the KV cache holds exactly what it would without caching. (Decode steps
// once charged a request's cached prompt blocks a second time when it
// crossed into a new page.)
TEST(WorkerPrefixCacheTest, CachedBlocksOfARunningRequestAreNotChargedTwice) {
  SimConfig on = testing::TinyConfig();  // block 16, 2 layers
  SimConfig off = on;
  off.prefix_caching = false;
  Worker a(on), b(off);
  std::vector<int32_t> t = Tokens(100, 64);
  const std::vector<int32_t> answer = Tokens(5000, 40);
  t.insert(t.end(), answer.begin(), answer.end());
  ASSERT_TRUE(a.Add(1, 64, 40, Hashes(t)).ok());
  ASSERT_TRUE(b.Add(1, 64, 40, Hashes(t)).ok());
  int steps = 0;
  while (!a.Idle()) {
    ASSERT_FALSE(b.Idle());
    NextStep(a);
    NextStep(b);
    ++steps;
    // 64 + k tokens computed after step k (the prefill is step 1): ceil / 16 pages.
    if (!a.Idle()) {
      EXPECT_EQ(a.stats().kv_blocks_used, b.stats().kv_blocks_used) << "after step " << steps;
      EXPECT_EQ(b.stats().kv_blocks_used, (64 + steps - 1 + 15) / 16 * 2) << "after step " << steps;
    }
  }
  EXPECT_TRUE(b.Idle());
  EXPECT_EQ(steps, 40);
  EXPECT_EQ(a.stats().cached_blocks, 6);  // 103 computed tokens: 6 full blocks
}

TEST(WorkerPrefixCacheTest, NextTurnHitsThePreviousAnswerBlocks) {
  Worker w(testing::TinyConfig());
  // Turn 1: 64-token prompt, 20-token answer: the KV of 83 tokens is
  // computed (the last answer token's never is), so 5 blocks fill.
  std::vector<int32_t> turn1 = Tokens(100, 64);
  const std::vector<int32_t> answer = Tokens(5000, 20);
  std::vector<int32_t> t1 = turn1;
  t1.insert(t1.end(), answer.begin(), answer.end());
  ASSERT_TRUE(w.Add(1, 64, 20, Hashes(t1)).ok());
  Drain(w);
  EXPECT_EQ(w.stats().cached_blocks, 5);
  // Turn 2: turn 1, its answer, 12 new tokens (96): 5 blocks = 80 tokens hit.
  std::vector<int32_t> t2 = t1;
  const std::vector<int32_t> user = Tokens(9000, 12);
  t2.insert(t2.end(), user.begin(), user.end());
  ASSERT_EQ(t2.size(), 96u);
  ASSERT_TRUE(w.Add(2, 96, 1, Hashes(t2)).ok());
  const auto steps = Drain(w);
  EXPECT_EQ(steps[0].shape.prefill_tokens, 16);
  EXPECT_EQ(w.stats().prefix_queries, 64 + 96);
  EXPECT_EQ(w.stats().prefix_hits, 80);
}

TEST(WorkerPrefixCacheTest, EvictsTheLeastRecentlyFreedBlockWhenMemoryRunsOut) {
  // 128 tokens of KV: 8 blocks x 2 layers = 16 pages.
  SimConfig c = testing::TinyConfig();
  c.memory.kv = 128 * c.memory.kv_bytes_per_token;
  c.memory.kv_capacity_tokens = 128;
  Worker w(c);
  auto run = [&](int64_t id, const std::vector<int32_t>& prompt) {
    std::vector<int32_t> all = prompt;
    all.push_back(1);
    ASSERT_TRUE(w.Add(id, static_cast<int32_t>(prompt.size()), 1, Hashes(all)).ok());
    Drain(w);
  };
  const std::vector<int32_t> x = Tokens(100, 32), y = Tokens(200, 32), z = Tokens(300, 80);
  const auto hx = Hashes(x), hy = Hashes(y), hz = Hashes(z);
  run(1, x);  // caches x0, x1; freed tail first: x1, x0
  run(2, y);  // then y1, y0
  EXPECT_EQ(w.stats().cached_blocks, 4);
  EXPECT_EQ(w.stats().evicted_blocks, 0);
  // z's 80-token prompt needs 5 pages per layer = 10 of the 8 free: one
  // cached block goes, the least recently freed: x1.
  run(3, z);
  EXPECT_EQ(w.stats().evicted_blocks, 1);
  const PrefixCache& cache = w.prefix_cache();
  EXPECT_FALSE(cache.Contains(hx[1]));
  EXPECT_TRUE(cache.Contains(hx[0]));
  EXPECT_TRUE(cache.Contains(hy[0]));
  EXPECT_TRUE(cache.Contains(hy[1]));
  for (uint64_t h : hz) EXPECT_TRUE(cache.Contains(h));
  // x again: its first block is still there, its second is not. Memory is
  // full of free cached blocks: the next least recently freed (y1) makes room.
  const int64_t q0 = w.stats().prefix_queries, h0 = w.stats().prefix_hits;
  run(4, x);
  EXPECT_EQ(w.stats().prefix_queries - q0, 32);
  EXPECT_EQ(w.stats().prefix_hits - h0, 16);
  EXPECT_EQ(w.stats().evicted_blocks, 2);
  EXPECT_FALSE(cache.Contains(hy[1]));
  EXPECT_TRUE(cache.Contains(hy[0]));
  EXPECT_LE(w.stats().kv_blocks_used, w.stats().kv_blocks_total);
}

}  // namespace
}  // namespace frontier::sim
