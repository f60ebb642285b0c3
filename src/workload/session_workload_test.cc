// Tests of the session workloads: block hashes, trace token blocks, the
// ideal hit rate on hand-computed cases, trace importers, generators,
// think times and cancellation choices.
#include <gtest/gtest.h>

#include <limits>
#include <numeric>
#include <set>

#include "workload/cancel.h"
#include "workload/generators.h"
#include "workload/prefix_blocks.h"
#include "workload/random_dataset.h"
#include "workload/session.h"
#include "workload/trace.h"

namespace frontier::workload {
namespace {

std::vector<int32_t> Iota(int32_t from, int32_t n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), from);
  return v;
}

TEST(PrefixBlocksTest, HashesFullBlocksChained) {
  const auto a = Iota(1, 10);  // two full blocks of 4 and a partial one
  const auto h = ChainedBlockHashes(a, 4);
  ASSERT_EQ(h.size(), 2u);
  auto b = Iota(1, 8);
  b[0] = 99;  // first block differs: both hashes differ (chained)
  const auto hb = ChainedBlockHashes(b, 4);
  EXPECT_NE(hb[0], h[0]);
  EXPECT_NE(hb[1], h[1]);
  auto c = Iota(1, 8);
  c[7] = 99;  // only the second block differs
  const auto hc = ChainedBlockHashes(c, 4);
  EXPECT_EQ(hc[0], h[0]);
  EXPECT_NE(hc[1], h[1]);
  EXPECT_EQ(ChainedBlockHashes(Iota(1, 3), 4).size(), 0u);
}

TEST(PrefixBlocksTest, SameHashIdSameTokensDifferentIdsDiffer) {
  EXPECT_EQ(HashIdTokens(46, 512), HashIdTokens(46, 512));
  EXPECT_NE(HashIdTokens(46, 512), HashIdTokens(47, 512));
  EXPECT_NE(HashIdTokens(46, 512, /*salt=*/1), HashIdTokens(46, 512, 0));
  // A shorter block is the longer one's prefix (a trace's partial last block).
  const auto full = HashIdTokens(7, 512), part = HashIdTokens(7, 100);
  EXPECT_TRUE(std::equal(part.begin(), part.end(), full.begin()));
  for (int32_t t : full) {
    EXPECT_GE(t, kFirstTokenId);
    EXPECT_LT(t, 32000);
  }
}

TEST(PrefixBlocksTest, IdealHitRateByHand) {
  // Block 4. A = 8 tokens: nothing cached, 0 of 8. B = A + 4: floor(11/4) = 2
  // blocks may hit, both cached: 8 of 12. A again: floor(7/4) = 1 block may
  // hit (the last token is always computed): 4 of 8. Total 12 / 28.
  PrefixHitCounter c(4);
  EXPECT_EQ(c.Query(Iota(1, 8)), 0);
  EXPECT_EQ(c.Query(Iota(1, 12)), 8);
  EXPECT_EQ(c.Query(Iota(1, 8)), 4);
  EXPECT_EQ(c.query_tokens(), 28);
  EXPECT_DOUBLE_EQ(c.HitRate(), 12.0 / 28.0);
  // A prompt that shares only its second block's tokens shares nothing (chained).
  auto d = Iota(1, 12);
  d[0] = 500;
  EXPECT_EQ(c.Query(d), 0);

  std::vector<RequestSpec> specs(3);
  specs[0].prompt_token_ids = Iota(1, 8);
  specs[1].prompt_token_ids = Iota(1, 12);
  specs[2].input_len = 20;  // a text prompt: queried, never hit
  EXPECT_DOUBLE_EQ(IdealHitRate(specs, 4), 8.0 / 40.0);
}

constexpr const char* kFrontierTrace =
    R"({"session_id": "a", "arrival_ms": 5, "turns": [)"
    R"({"input_length": 10, "output_length": 3, "hash_ids": [1, 2]},)"
    R"({"input_length": 14, "output_length": 2, "hash_ids": [1, 2, 3, 4], "think_ms": 250,)"
    R"( "subagents": [{"input_length": 8, "output_length": 1, "hash_ids": [1, 9]}]}]})"
    "\n\n"
    R"({"session_id": 7, "turns": [{"input_length": 9, "output_length": 4, "hash_ids": [1, 2, 5]}]})"
    "\n";

TEST(TraceTest, FrontierSchemaBuildsSharedBlocks) {
  auto t = ParseTrace(kFrontierTrace, TraceFormat::kAuto, 4, "t.jsonl");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].id, "a");
  EXPECT_EQ((*t)[0].arrival_ns, 5 * kNanosPerMilli);
  EXPECT_EQ((*t)[1].id, "7");
  ASSERT_EQ((*t)[0].turns.size(), 2u);
  EXPECT_FALSE((*t)[0].turns[0].think_ns.has_value());
  EXPECT_EQ(*(*t)[0].turns[1].think_ns, 250 * kNanosPerMilli);
  ASSERT_EQ((*t)[0].turns[1].subagents.size(), 1u);

  TraceBuildOptions b;
  b.block_tokens = 4;
  const SessionWorkload w = BuildTraceSessions(*t, b);
  EXPECT_FALSE(w.grow_context);
  const auto& t0 = w.sessions[0].turns[0].request.prompt_token_ids;
  const auto& t1 = w.sessions[0].turns[1].request.prompt_token_ids;
  const auto& sub = w.sessions[0].turns[1].subagents[0].prompt_token_ids;
  const auto& s1 = w.sessions[1].turns[0].request.prompt_token_ids;
  ASSERT_EQ(t0.size(), 10u);
  ASSERT_EQ(t1.size(), 14u);
  ASSERT_EQ(s1.size(), 9u);
  // Blocks 1 and 2 (tokens 0..7) are the same wherever they are named.
  EXPECT_TRUE(std::equal(t0.begin(), t0.begin() + 8, t1.begin()));
  EXPECT_TRUE(std::equal(t0.begin(), t0.begin() + 8, s1.begin()));
  EXPECT_TRUE(std::equal(t0.begin(), t0.begin() + 4, sub.begin()));
  EXPECT_FALSE(std::equal(t0.begin() + 4, t0.begin() + 8, sub.begin() + 4));
  // Tokens past the named blocks are the request's own.
  EXPECT_FALSE(std::equal(t0.begin() + 8, t0.end(), t1.begin() + 8));

  // Ideal hit rate in send order t0, t1, sub, s1 (block 4), by hand:
  // t0 10 tokens: 0. t1 14: floor(13/4) = 3 blocks may hit; blocks 1, 2 cached,
  // block 3 not: 8. sub 8: floor(7/4) = 1 block: block 1 cached: 4.
  // s1 9: floor(8/4) = 2: blocks 1, 2: 8. (8 + 4 + 8) / (10 + 14 + 8 + 9) = 20 / 41.
  PrefixHitCounter c(4);
  c.Query(t0);
  c.Query(t1);
  c.Query(sub);
  c.Query(s1);
  EXPECT_DOUBLE_EQ(c.HitRate(), 20.0 / 41.0);
}

TEST(TraceTest, MooncakeRoundTripsThroughFrontierSchema) {
  const std::string mooncake =
      R"({"timestamp": 0, "input_length": 655, "output_length": 52, "hash_ids": [46, 47]})"
      "\n"
      R"({"timestamp": 10535, "input_length": 672, "output_length": 26, "hash_ids": [46, 47]})"
      "\n";
  auto t = ParseTrace(mooncake, TraceFormat::kAuto, kMooncakeBlockTokens, "m.jsonl");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[1].arrival_ns, 10535 * kNanosPerMilli);
  EXPECT_EQ((*t)[1].turns[0].request.input_length, 672);
  EXPECT_EQ((*t)[1].turns[0].request.output_length, 26);
  EXPECT_EQ((*t)[1].turns[0].request.hash_ids, (std::vector<int64_t>{46, 47}));
  const std::string again = WriteTrace(*t);
  auto back = ParseTrace(again, TraceFormat::kFrontier, kMooncakeBlockTokens, "again");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(WriteTrace(*back), again);
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].arrival_ns, 10535 * kNanosPerMilli);
  EXPECT_EQ((*back)[0].turns[0].request.hash_ids, (std::vector<int64_t>{46, 47}));
  // Both requests share their first 512-token block: 512 hit of 1327 (block 512).
  const SessionWorkload w = BuildTraceSessions(*back, TraceBuildOptions{});
  PrefixHitCounter c(512);
  c.Query(w.sessions[0].turns[0].request.prompt_token_ids);
  EXPECT_EQ(c.Query(w.sessions[1].turns[0].request.prompt_token_ids), 512);
}

TEST(TraceTest, AgenticLinesGroupIntoSessions) {
  const std::string agentic =
      R"({"session_id": "x", "input_length": 100, "output_length": 5, "hash_ids": [1]})"
      "\n"
      R"({"session_id": "y", "input_length": 50, "output_length": 5})"
      "\n"
      R"({"session_id": "x", "input_length": 200, "output_length": 7, "hash_ids": [1, 2], "delay": 1500})"
      "\n";
  auto t = ParseTrace(agentic, TraceFormat::kAuto, 128, "a.jsonl");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].id, "x");
  ASSERT_EQ((*t)[0].turns.size(), 2u);
  EXPECT_EQ((*t)[0].turns[1].request.input_length, 200);
  EXPECT_EQ(*(*t)[0].turns[1].think_ns, 1500 * kNanosPerMilli);
  EXPECT_EQ((*t)[1].turns.size(), 1u);
  auto back = ParseTrace(WriteTrace(*t), TraceFormat::kAuto, 128, "again");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(WriteTrace(*back), WriteTrace(*t));
}

// What a trace holds is counted as it is read: its prompt tokens (the token
// ids BuildTraceSessions makes) against the 1e9 a run holds, named at the
// line that passes the bound.
TEST(TraceTest, PromptTokensPastTheRunBoundAreRefusedAtTheirLine) {
  std::string text;
  for (int i = 0; i < 101; ++i)
    text += R"({"timestamp": )" + std::to_string(i) + R"(, "input_length": 10000000, "output_length": 2})" + "\n";
  auto t = ParseTrace(text, TraceFormat::kAuto, 512, "big.jsonl");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("big.jsonl:101: the trace's prompts add up to more than 1000000000 tokens"),
            std::string::npos)
      << t.status().message();
  text.resize(text.rfind('{'));  // 100 lines: exactly 1e9 tokens
  EXPECT_TRUE(ParseTrace(text, TraceFormat::kAuto, 512, "big.jsonl").ok());
}

// A trace's requests (turns and subagents) are counted against the bound on
// a run's requests as it is read, named at the line that passes it.
TEST(TraceTest, RequestsPastTheRunBoundAreRefusedAtTheirLine) {
  TraceLimits limits;
  limits.max_requests = 3;
  std::string mooncake;
  for (int i = 0; i < 4; ++i) mooncake += R"({"timestamp": 0, "input_length": 8, "output_length": 2})" "\n";
  auto t = ParseTrace(mooncake, TraceFormat::kAuto, 512, "m.jsonl", limits);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "m.jsonl:4: the trace's sessions hold more than 3 requests (turns and subagents), "
                                  "the bound on one run's requests (docs/limits.md); use fewer sessions "
                                  "(--num-prompts) or a shorter trace");
  limits.max_requests = 4;
  ASSERT_TRUE(ParseTrace(mooncake, TraceFormat::kAuto, 512, "m.jsonl", limits).ok());
  // Subagents are requests too: one turn with three subagents is four.
  const std::string frontier =
      R"({"turns": [{"input_length": 8, "output_length": 2, "subagents": [{"input_length": 1, "output_length": 1},)"
      R"( {"input_length": 1, "output_length": 1}, {"input_length": 1, "output_length": 1}]}]})" "\n";
  limits.max_requests = 3;
  auto f = ParseTrace(frontier, TraceFormat::kAuto, 512, "f.jsonl", limits);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("f.jsonl:1: turns[0]: the trace's sessions hold more than 3 requests"),
            std::string::npos)
      << f.status().message();
  // The default bound is the run's: 10,000,000.
  EXPECT_EQ(TraceLimits{}.max_requests, kMaxRunRequests);
}

// Only the sessions a run uses are held and counted; the other lines are
// still checked.
TEST(TraceTest, KeepsOnlyTheSessionsARunUses) {
  TraceLimits limits;
  limits.max_sessions = 2;
  limits.max_requests = 2;  // the dropped sessions' requests do not count
  std::string mooncake;
  for (int i = 0; i < 5; ++i)
    mooncake += R"({"timestamp": )" + std::to_string(i) + R"(, "input_length": 8, "output_length": 2})" "\n";
  auto t = ParseTrace(mooncake, TraceFormat::kAuto, 512, "m.jsonl", limits);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[1].arrival_ns, 1 * kNanosPerMilli);
  auto bad = ParseTrace(mooncake + R"({"timestamp": 9, "input_length": 0, "output_length": 2})" "\n",
                        TraceFormat::kAuto, 512, "m.jsonl", limits);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("m.jsonl:6"), std::string::npos) << bad.status().message();
  // Agentic: a kept session's later turns are kept, a dropped session's are not.
  const std::string agentic =
      R"({"session_id": "x", "input_length": 10, "output_length": 5})" "\n"
      R"({"session_id": "y", "input_length": 20, "output_length": 5})" "\n"
      R"({"session_id": "x", "input_length": 30, "output_length": 5})" "\n"
      R"({"session_id": "y", "input_length": 40, "output_length": 5})" "\n";
  limits.max_sessions = 1;
  auto a = ParseTrace(agentic, TraceFormat::kAuto, 16, "a.jsonl", limits);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->size(), 1u);
  EXPECT_EQ((*a)[0].id, "x");
  ASSERT_EQ((*a)[0].turns.size(), 2u);
  EXPECT_EQ((*a)[0].turns[1].request.input_length, 30);
}

// More sessions than a workload holds reuse it cyclically; their requests
// are judged against the run's bound before anything is planned.
TEST(SessionTest, RunRequestsCountTheCyclicReuse) {
  SessionWorkload w;
  for (int turns : {3, 1}) {
    Session s;
    s.turns.resize(static_cast<size_t>(turns));
    w.sessions.push_back(s);
  }
  w.sessions[1].turns[0].subagents.resize(2);  // session 1: three requests too
  EXPECT_EQ(CountRunRequests(w, 0), 0);
  EXPECT_EQ(CountRunRequests(w, 1), 3);
  EXPECT_EQ(CountRunRequests(w, 2), 6);
  EXPECT_EQ(CountRunRequests(w, 5), 15);
  EXPECT_EQ(CountRunRequests(w, std::numeric_limits<int64_t>::max()), std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(CheckRunRequests(w, 3'333'333, "--num-prompts").ok());  // 9,999,999 requests
  Status past = CheckRunRequests(w, 3'333'334, "--num-prompts");
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.message(), "--num-prompts 3333334: that many sessions of the workload's 2 (reused cyclically) send "
                            "10000002 requests (turns and subagents); a run sends at most 10000000 "
                            "(docs/limits.md); lower --num-prompts");
}

TEST(TraceTest, BadFieldsAreNamed) {
  auto e1 = ParseTrace(R"({"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2, 3]})", TraceFormat::kAuto, 512, "m");
  ASSERT_FALSE(e1.ok());
  EXPECT_NE(e1.status().message().find("m:1"), std::string::npos);
  EXPECT_NE(e1.status().message().find("hash_ids"), std::string::npos);
  auto e2 = ParseTrace(R"({"turns": [{"input_length": 0, "output_length": 5}]})", TraceFormat::kAuto, 16, "f");
  ASSERT_FALSE(e2.ok());
  EXPECT_NE(e2.status().message().find("input_length"), std::string::npos);
  auto e3 = ParseTrace(R"({"session_id": "a", "timestamp": 3, "input_length": 5, "output_length": 5})",
                       TraceFormat::kAuto, 16, "g");
  ASSERT_FALSE(e3.ok());
  EXPECT_NE(e3.status().message().find("timestamp"), std::string::npos);
  EXPECT_FALSE(ParseTraceFormat("csv").ok());
}

TEST(GeneratorTest, SharedPrefixIdealHitRateByHand) {
  SharedPrefixOptions o;
  o.num_groups = 3;
  o.prompts_per_group = 4;
  o.system_prompt_len = 32;
  o.question_len = 8;
  o.output_len = 5;
  o.seed = 11;
  auto specs = MakeSharedPrefix(o);
  ASSERT_TRUE(specs.ok());
  ASSERT_EQ(specs->size(), 12u);
  std::set<std::vector<int32_t>> systems;
  for (size_t i = 0; i < specs->size(); ++i) {
    EXPECT_EQ((*specs)[i].id, static_cast<int64_t>(i));
    EXPECT_EQ((*specs)[i].input_len, 40);
    const auto& p = (*specs)[i].prompt_token_ids;
    systems.insert(std::vector<int32_t>(p.begin(), p.begin() + 32));
  }
  EXPECT_EQ(systems.size(), 3u);  // three groups, one system prompt each
  // Each group's first prompt hits nothing; the other 3 hit both 16-token
  // blocks of the system prompt (floor(39/16) = 2): 3 x 3 x 32 / (12 x 40).
  EXPECT_DOUBLE_EQ(IdealHitRate(*specs, 16), 288.0 / 480.0);
  auto again = MakeSharedPrefix(o);
  EXPECT_EQ((*again)[5].prompt_token_ids, (*specs)[5].prompt_token_ids);  // seeded
  o.num_groups = 0;
  EXPECT_FALSE(MakeSharedPrefix(o).ok());
}

TEST(GeneratorTest, MultiTurnSessionsCarryNewTokensOnly) {
  MultiTurnOptions o;
  o.num_sessions = 2;
  o.turns = 3;
  o.system_prompt_len = 20;
  o.message_len = 10;
  o.output_len = 4;
  auto w = MakeMultiTurn(o);
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->grow_context);
  ASSERT_EQ(w->sessions.size(), 2u);
  EXPECT_EQ(w->sessions[0].turns[0].request.input_len, 30);
  EXPECT_EQ(w->sessions[0].turns[1].request.input_len, 10);
  const auto& a = w->sessions[0].turns[0].request.prompt_token_ids;
  const auto& b = w->sessions[1].turns[0].request.prompt_token_ids;
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + 20, b.begin()));  // one system prompt
  EXPECT_FALSE(std::equal(a.begin() + 20, a.end(), b.begin() + 20));
}

TEST(SessionTest, ThinkTimesSampledCappedAndSeeded) {
  MultiTurnOptions o;
  o.num_sessions = 50;
  o.turns = 4;
  o.message_len = 2;
  auto w = MakeMultiTurn(o);
  ASSERT_TRUE(w.ok());
  w->sessions[0].turns[1].think_ns = 123;  // given: kept
  ThinkTimeOptions t;
  t.mean_ms = 1000;
  t.max_ms = 1500;
  t.seed = 3;
  SessionWorkload w2 = *w;
  ASSERT_TRUE(SampleThinkTimes(t, &*w).ok());
  ASSERT_TRUE(SampleThinkTimes(t, &w2).ok());
  EXPECT_EQ(w->sessions[0].turns[1].think_ns, 123);
  int capped = 0;
  for (size_t i = 0; i < w->sessions.size(); ++i)
    for (size_t k = 0; k < 4; ++k) {
      const Nanos x = w->sessions[i].turns[k].think_ns;
      EXPECT_EQ(x, w2.sessions[i].turns[k].think_ns);
      EXPECT_GE(x, 0);
      EXPECT_LE(x, 1500 * kNanosPerMilli);
      capped += x == 1500 * kNanosPerMilli;
    }
  // P(exp(mean 1 s) > 1.5 s) = e^-1.5 = 0.22: of 199 draws, some are capped.
  EXPECT_GT(capped, 10);
  EXPECT_LT(capped, 90);
  t.mean_ms = -1;
  EXPECT_FALSE(SampleThinkTimes(t, &*w).ok());
}

TEST(CancelTest, ExactFractionChosenBySeed) {
  std::vector<RequestSpec> specs(40);
  CancelOptions o;
  o.fraction = 0.25;
  o.after_tokens = 3;
  o.seed = 9;
  auto n = ApplyCancellation(o, specs);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 10);
  int marked = 0;
  for (const auto& s : specs) marked += s.cancel_after_tokens == 3;
  EXPECT_EQ(marked, 10);
  std::vector<RequestSpec> again(40);
  ASSERT_TRUE(ApplyCancellation(o, again).ok());
  for (size_t i = 0; i < 40; ++i) EXPECT_EQ(again[i].cancel_after_tokens, specs[i].cancel_after_tokens);
  o.after_ns = 5;  // both: rejected
  EXPECT_FALSE(ApplyCancellation(o, specs).ok());
  o.after_tokens = 0;
  o.fraction = 1.5;
  EXPECT_FALSE(ApplyCancellation(o, specs).ok());
}

}  // namespace
}  // namespace frontier::workload
