// Session workloads on the simulator's virtual clock (sim::SimTarget through
// loadgen::RunSessions): turn k+1 is sent exactly at the end of turn k plus
// its think time, subagents join before the next turn, growing contexts carry
// the simulated answers, and cancellation after K tokens or T ms ends
// requests apart from failures.
#include <gtest/gtest.h>

#include "loadgen/runner.h"
#include "loadgen/session_runner.h"
#include "metrics/summary.h"
#include "sim/engine/testing.h"
#include "sim/sim_target.h"
#include "workload/cancel.h"

namespace frontier::sim {
namespace {

constexpr Nanos kMs = kNanosPerMilli;

workload::RequestSpec Spec(int32_t in, int32_t out) {
  workload::RequestSpec s;
  s.input_len = in;
  s.output_len = out;
  s.prompt_token_ids.assign(static_cast<size_t>(in), 200);
  return s;
}

SimulateOptions NoRtt() {
  SimulateOptions o;
  o.client_rtt_ns = 0;
  return o;
}

TEST(SessionSimTest, NextTurnAtEndOfTurnPlusThinkTimeExactly) {
  SimTarget target(testing::TinyConfig(), NoRtt());
  workload::SessionWorkload w;
  workload::Session s;
  for (int k = 0; k < 3; ++k) {
    workload::Turn t;
    t.request = Spec(64, 8);
    t.think_ns = (k == 1 ? 250 : 40) * kMs;
    s.turns.push_back(t);
  }
  s.turns[1].subagents = {Spec(32, 4), Spec(48, 12)};
  w.sessions.push_back(s);
  workload::LoadOptions load;
  load.num_prompts = 1;
  auto r = loadgen::RunSessions(target, w, load, loadgen::RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto& q = r->requests;
  ASSERT_EQ(q.size(), 5u);  // turn 0, turn 1, its two subagents, turn 2
  for (const auto& x : q) ASSERT_TRUE(x.ok) << x.failure;
  EXPECT_EQ(q[0].sent_ns, 0);
  EXPECT_EQ(q[1].sent_ns, q[0].end_ns + 250 * kMs);
  EXPECT_EQ(q[1].scheduled_ns, q[1].sent_ns);
  EXPECT_EQ(q[2].sent_ns, q[1].end_ns);  // subagents at the turn's end
  EXPECT_EQ(q[3].sent_ns, q[1].end_ns);
  EXPECT_EQ(q[2].subagent, 0);
  EXPECT_EQ(q[3].subagent, 1);
  // Joined: turn 2 waits for the later of the two subagents.
  EXPECT_GT(q[3].end_ns, q[2].end_ns);  // 12 output tokens against 4
  EXPECT_EQ(q[4].sent_ns, std::max(q[2].end_ns, q[3].end_ns) + 40 * kMs);
  EXPECT_EQ(q[4].turn, 2);
  ASSERT_EQ(r->sessions.size(), 1u);
  EXPECT_TRUE(r->sessions[0].ok);
  EXPECT_EQ(r->sessions[0].end_ns, q[4].end_ns);
  const auto sum = metrics::Summarize(*r, metrics::SummaryOptions{});
  EXPECT_DOUBLE_EQ(sum.session_latency_ms.mean, NanosToMillis(q[4].end_ns));
  EXPECT_EQ(sum.turn_e2el_ms.count, 3u);
}

TEST(SessionSimTest, GrowingContextCarriesTheSimulatedAnswer) {
  SimTarget target(testing::TinyConfig(), NoRtt());
  workload::SessionWorkload w;
  w.grow_context = true;
  workload::Session s;
  for (int k = 0; k < 3; ++k) {
    workload::Turn t;
    t.request = Spec(20, 5);
    t.think_ns = 0;
    s.turns.push_back(t);
  }
  w.sessions.push_back(s);
  workload::LoadOptions load;
  load.num_prompts = 1;
  auto r = loadgen::RunSessions(target, w, load, loadgen::RunOptions{}, nullptr, nullptr, /*ideal_block_tokens=*/5);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->requests.size(), 3u);
  // 20; 20 + 5 + 20 = 45; 45 + 5 + 20 = 70 tokens.
  EXPECT_EQ(r->requests[0].prompt_tokens, 20);
  EXPECT_EQ(r->requests[1].prompt_tokens, 45);
  EXPECT_EQ(r->requests[2].prompt_tokens, 70);
  EXPECT_EQ(r->effective_settings.at("session_answers_missing"), "0");
  // Blocks of 5. Turn 0 (4 blocks) hits nothing; its prompt and answer (5
  // blocks) are cached. Turn 1 (9 blocks, floor(44/5) = 8 may hit): the 4
  // prompt blocks and the answer block hit, its new message does not: 25.
  // Turn 2 (14 blocks, 13 may hit): turn 1's prompt and answer, 10 blocks: 50.
  EXPECT_DOUBLE_EQ(r->ideal_prefix_hit_rate, (0.0 + 25 + 50) / (20 + 45 + 70));
}

TEST(SessionSimTest, CancellationAfterTokensAndAfterTimeIsCountedApart) {
  SimTarget target(testing::TinyConfig(), NoRtt());
  std::vector<workload::RequestSpec> specs(20, Spec(32, 50));
  workload::CancelOptions c;
  c.fraction = 0.25;
  c.after_tokens = 10;
  c.seed = 4;
  ASSERT_EQ(*workload::ApplyCancellation(c, specs), 5);
  workload::LoadOptions load;
  load.num_prompts = 20;
  load.max_concurrency = 4;
  auto r = loadgen::RunLoad(target, specs, load, loadgen::RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(r.ok());
  int cancelled = 0;
  for (const auto& x : r->requests) {
    if (!x.cancelled) {
      EXPECT_TRUE(x.ok);
      EXPECT_EQ(x.output_tokens, 50);
      continue;
    }
    ++cancelled;
    EXPECT_EQ(x.output_tokens, 10);  // one token per decode step: exactly K
    EXPECT_EQ(x.end_ns, x.events.back().t_ns);
  }
  EXPECT_EQ(cancelled, 5);
  auto sum = metrics::Summarize(*r, metrics::SummaryOptions{});
  EXPECT_EQ(sum.cancelled, 5);
  EXPECT_EQ(sum.completed, 15);
  EXPECT_EQ(sum.failed, 0);
  EXPECT_EQ(sum.total_output_tokens, 15 * 50);

  SimTarget t2(testing::TinyConfig(), NoRtt());
  std::vector<workload::RequestSpec> specs2(8, Spec(32, 400));
  specs2[3].cancel_after_ns = 5 * kMs;
  load.num_prompts = 8;
  load.max_concurrency.reset();
  auto r2 = loadgen::RunLoad(t2, specs2, load, loadgen::RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(r2.ok());
  EXPECT_TRUE(r2->requests[3].cancelled);
  EXPECT_EQ(r2->requests[3].end_ns, r2->requests[3].sent_ns + 5 * kMs);
  EXPECT_LT(r2->requests[3].output_tokens, 400);
  for (int i = 0; i < 8; ++i)
    if (i != 3) {
      EXPECT_EQ(r2->requests[static_cast<size_t>(i)].output_tokens, 400);
    }
}

}  // namespace
}  // namespace frontier::sim
