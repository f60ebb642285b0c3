#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/limits.h"
#include "core/stats.h"
#include "workload/arrival.h"
#include "workload/option_names.h"
#include "workload/prefix_blocks.h"
#include "workload/random_dataset.h"
#include "workload/spec.h"

namespace frontier::workload {
namespace {

TEST(PrefixBlocksTest, HashesChainOverFullBlocksOnly) {
  std::vector<int32_t> a(40), b(40);
  for (int i = 0; i < 40; ++i) a[i] = b[i] = i;
  b[20] = 999;  // inside block 1 (tokens 16..31) when blocks hold 16
  const auto ha = ChainedBlockHashes(a, 16), hb = ChainedBlockHashes(b, 16);
  ASSERT_EQ(ha.size(), 2u);  // 40 tokens: two full blocks, 8 left over
  ASSERT_EQ(hb.size(), 2u);
  EXPECT_EQ(ha[0], hb[0]);   // same first 16 tokens
  EXPECT_NE(ha[1], hb[1]);   // differ inside block 1
  // Chained: the same block content after a different parent hashes apart.
  std::vector<int32_t> c(a.begin() + 16, a.begin() + 32);
  c.insert(c.begin(), a.begin() + 16, a.begin() + 32);  // block 0 = block 1 = tokens 16..31
  const auto hc = ChainedBlockHashes(c, 16);
  ASSERT_EQ(hc.size(), 2u);
  EXPECT_NE(hc[0], hc[1]);
  EXPECT_NE(hc[1], ha[1]);
  // Deterministic, and the block size is part of the hash.
  EXPECT_EQ(ChainedBlockHashes(a, 16), ha);
  EXPECT_NE(ChainedBlockHashes(a, 8)[1], ha[0]);
  EXPECT_EQ(ChainedBlockHashes(a, 8).size(), 5u);
  EXPECT_TRUE(ChainedBlockHashes(std::vector<int32_t>(15, 1), 16).empty());
}

TEST(PrefixBlocksTest, APromptAndItsAnswerHashAsTheirConcatenation) {
  // The values the hash had before it took two spans (tokens 0..39, blocks
  // of 16): the keys of caches and trace blocks stay what they were.
  std::vector<int32_t> a(40);
  for (int i = 0; i < 40; ++i) a[i] = i;
  const std::vector<uint64_t> pinned = {0xbaba26d859b91e4dULL, 0x7c4fce553ddfa3e2ULL};
  EXPECT_EQ(ChainedBlockHashes(a, 16), pinned);
  // Every split of a 70-token sequence into prompt + answer, a block boundary
  // or not, an empty side included, gives the hashes of the whole.
  std::vector<int32_t> all(70);
  for (int i = 0; i < 70; ++i) all[i] = 1000 + 7 * i;
  for (int block : {1, 4, 16}) {
    const std::vector<uint64_t> whole = ChainedBlockHashes(all, block);
    ASSERT_EQ(whole.size(), static_cast<size_t>(70 / block));
    for (size_t cut = 0; cut <= all.size(); ++cut) {
      const std::span<const int32_t> s(all);
      EXPECT_EQ(ChainedBlockHashes(s.first(cut), s.subspan(cut), block), whole)
          << "block " << block << " cut " << cut;
    }
  }
  EXPECT_EQ(ChainedBlockHashes(a, {}, 16), pinned);
  EXPECT_EQ(ChainedBlockHashes({}, a, 16), pinned);
}

// The flat set behind the ideal hit rate holds what std::set holds, through
// its growth (64 slots, doubled at half full) and for the hash 0 (kept as 1).
TEST(PrefixBlocksTest, TheBlockHashSetHoldsWhatAnOrderedSetHolds) {
  BlockHashSet flat;
  std::set<uint64_t> ordered;
  uint64_t x = 12345;
  for (int i = 0; i < 20000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const uint64_t h = (i % 3 == 0) ? x % 5000 : x;  // repeats among the small ones
    EXPECT_EQ(flat.Contains(h), ordered.count(h) > 0) << i;
    flat.Insert(h);
    ordered.insert(h);
  }
  EXPECT_EQ(flat.size(), ordered.size());
  for (uint64_t h : ordered) ASSERT_TRUE(flat.Contains(h)) << h;
  BlockHashSet zero;
  EXPECT_FALSE(zero.Contains(0));
  zero.Insert(0);
  EXPECT_TRUE(zero.Contains(0));
  EXPECT_EQ(zero.size(), 1u);
}

TEST(RandomDatasetTest, LengthsStayInRangeAndPrefixIsShared) {
  RandomDatasetOptions o;
  o.num_prompts = 500;
  o.input_len = 100;
  o.output_len = 50;
  o.range_ratio = 0.5;
  o.prefix_len = 8;
  o.seed = 3;
  auto r = MakeRandomDataset(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::set<int32_t> inputs;
  for (const auto& q : *r) {
    EXPECT_GE(q.input_len, 8 + 50);
    EXPECT_LE(q.input_len, 8 + 150);
    EXPECT_GE(q.output_len, 25);
    EXPECT_LE(q.output_len, 75);
    ASSERT_EQ(static_cast<int32_t>(q.prompt_token_ids.size()), q.input_len);
    for (int k = 0; k < 8; ++k) EXPECT_EQ(q.prompt_token_ids[k], (*r)[0].prompt_token_ids[k]);
    inputs.insert(q.input_len);
  }
  EXPECT_GT(inputs.size(), 50u);  // really drawn, not constant
}

TEST(RandomDatasetTest, ZeroRangeIsExactAndSeedIsReproducible) {
  RandomDatasetOptions o;
  o.num_prompts = 20;
  o.input_len = 64;
  o.output_len = 16;
  auto a = MakeRandomDataset(o);
  auto b = MakeRandomDataset(o);
  ASSERT_TRUE(a.ok() && b.ok());
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i].input_len, 64);
    EXPECT_EQ((*a)[i].output_len, 16);
    EXPECT_EQ((*a)[i].prompt_token_ids, (*b)[i].prompt_token_ids);
  }
}

TEST(RandomDatasetTest, BadOptionsNameTheFlag) {
  RandomDatasetOptions o;
  o.range_ratio = 1.5;
  auto r = MakeRandomDataset(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--range-ratio"), std::string::npos);
}

TEST(ArrivalTest, PoissonMeanGapIsOneOverRate) {
  ArrivalOptions o;
  o.request_rate = 50.0;
  o.seed = 11;
  auto t = PlanArrivals(20000, o);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)[0], 0);
  std::vector<double> gaps;
  for (size_t i = 1; i < t->size(); ++i) gaps.push_back(NanosToSeconds((*t)[i] - (*t)[i - 1]));
  // Exponential gaps: mean 1/rate = 20 ms and std equal to the mean (within 3 %).
  EXPECT_NEAR(Mean(gaps), 0.020, 0.020 * 0.03);
  EXPECT_NEAR(StdDev(gaps), 0.020, 0.020 * 0.03);
}

TEST(ArrivalTest, BurstinessChangesVarianceNotMean) {
  ArrivalOptions o;
  o.request_rate = 10.0;
  o.burstiness = 4.0;  // Gamma(4): cv = 1/sqrt(4) = 0.5
  auto t = PlanArrivals(20000, o);
  ASSERT_TRUE(t.ok());
  std::vector<double> gaps;
  for (size_t i = 1; i < t->size(); ++i) gaps.push_back(NanosToSeconds((*t)[i] - (*t)[i - 1]));
  EXPECT_NEAR(Mean(gaps), 0.1, 0.1 * 0.03);
  EXPECT_NEAR(StdDev(gaps) / Mean(gaps), 0.5, 0.03);
}

TEST(ArrivalTest, InfiniteRateSendsAllAtZero) {
  auto t = PlanArrivals(5, ArrivalOptions{});
  ASSERT_TRUE(t.ok());
  for (Nanos x : *t) EXPECT_EQ(x, 0);
  ArrivalOptions bad;
  bad.request_rate = -1;
  EXPECT_FALSE(PlanArrivals(5, bad).ok());
}


// A schedule whose times would not fit int64 nanoseconds (issue: exit 70) is
// refused naming the flags, before it is stored; so is a count past the bound.
TEST(ArrivalTest, ASchedulePastTheBoundIsAnErrorNamingTheFlags) {
  ArrivalOptions slow;
  slow.request_rate = 1e-9;  // a gap of about 1e9 s
  auto t = PlanArrivals(10, slow);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("--request-rate"), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("--num-prompts"), std::string::npos);
  ArrivalOptions regular;
  regular.request_rate = 1e-8;
  regular.burstiness = 1e6;  // gaps of 1e8 s, nearly constant: 100 of them pass 1e9 s
  EXPECT_FALSE(PlanArrivals(100, regular).ok());
  ArrivalOptions subnormal;
  subnormal.request_rate = 5e-324;  // an infinite gap
  EXPECT_FALSE(PlanArrivals(2, subnormal).ok());
  EXPECT_TRUE(PlanArrivals(1, subnormal).ok());  // the first is at 0 whatever the rate
  EXPECT_FALSE(PlanArrivals(kMaxRunRequests + 1, ArrivalOptions{}).ok());
  EXPECT_FALSE(PlanArrivals(-1, ArrivalOptions{}).ok());
}

// One validator for a workload, whoever gives it (flags or a plan).
TEST(WorkloadSpecTest, TheFirstBrokenRuleIsNamedWithItsRange) {
  WorkloadSpec s;
  EXPECT_FALSE(CheckWorkloadSpec(s).has_value());
  s.input_len = 0;
  auto bad = CheckWorkloadSpec(s);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, SpecField::kInputLen);
  EXPECT_EQ(bad->message, "must be an integer in [1, 10000000], got 0");
  s.input_len = 1024;
  s.range_ratio = 1;
  bad = CheckWorkloadSpec(s);
  ASSERT_TRUE(bad.has_value());
  EXPECT_STREQ(SpecFieldName(bad->field), "range_ratio");
  EXPECT_EQ(bad->message, "must be in [0, 1), got 1");
  s.range_ratio = 0.5;
  s.prefix_len = -1;
  EXPECT_EQ(CheckWorkloadSpec(s)->field, SpecField::kPrefixLen);
  s.prefix_len = 64;
  s.dataset = "sharegpt";
  bad = CheckWorkloadSpec(s);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, SpecField::kPath);
  EXPECT_EQ(bad->message, "is required for dataset sharegpt");
  s.path = "conversations.json";
  s.sharegpt_output_len = 256;
  EXPECT_FALSE(CheckWorkloadSpec(s).has_value());
  const DatasetOptions d = ToDatasetOptions(s);
  EXPECT_EQ(d.kind, DatasetKind::kShareGpt);
  EXPECT_EQ(d.path, "conversations.json");
  EXPECT_EQ(d.random.input_len, 1024);
  EXPECT_DOUBLE_EQ(d.random.range_ratio, 0.5);
  EXPECT_EQ(d.random.prefix_len, 64);
  EXPECT_EQ(d.sharegpt_output_len, 256);
  s.dataset = "csv";
  EXPECT_EQ(CheckWorkloadSpec(s)->message, "must be random, sharegpt, jsonl, shared-prefix, trace, multi-turn or mlperf:BENCHMARK (llama2-70b, mixtral-8x7b), got 'csv'");
}


// The generators', traces', sessions' and cancellation's settings are the
// spec's too, each checked under its own name.
TEST(WorkloadSpecTest, GeneratorTraceSessionAndCancelFieldsAreCheckedByName) {
  WorkloadSpec s;
  s.dataset = "shared-prefix";
  s.gsp_num_groups = 0;
  auto bad = CheckWorkloadSpec(s);
  ASSERT_TRUE(bad.has_value());
  EXPECT_STREQ(SpecFieldName(bad->field), "gsp_num_groups");
  EXPECT_EQ(bad->message, "must be an integer in [1, 10000000], got 0");
  s.gsp_num_groups = 4;
  s.gsp_question_len = 0;
  EXPECT_EQ(CheckWorkloadSpec(s)->field, SpecField::kGspQuestionLen);
  s.gsp_question_len = 32;
  // Think time needs sessions.
  s.think_time_ms = 100;
  bad = CheckWorkloadSpec(s);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, SpecField::kThinkTimeMs);
  EXPECT_EQ(bad->message, "needs a session workload (dataset trace or multi-turn), got dataset shared-prefix");
  s.dataset = "multi-turn";
  EXPECT_FALSE(CheckWorkloadSpec(s).has_value());
  s.mt_turns = 10001;
  EXPECT_EQ(CheckWorkloadSpec(s)->message, "must be an integer in [1, 10000], got 10001");
  s.mt_turns = 3;
  s.max_think_time_ms = -1;
  EXPECT_EQ(CheckWorkloadSpec(s)->field, SpecField::kMaxThinkTimeMs);
  s.max_think_time_ms = 500;
  // Cancellation: a fraction needs exactly one cancel point, and a point needs a fraction.
  s.cancel_fraction = 0.25;
  EXPECT_EQ(CheckWorkloadSpec(s)->field, SpecField::kCancelFraction);
  s.cancel_after_tokens = 4;
  s.cancel_after_ms = 10;
  EXPECT_EQ(CheckWorkloadSpec(s)->field, SpecField::kCancelFraction);
  s.cancel_after_ms = 0;
  EXPECT_FALSE(CheckWorkloadSpec(s).has_value());
  s.cancel_fraction = 1.5;
  EXPECT_EQ(CheckWorkloadSpec(s)->message, "must be a number in [0, 1], got 1.5");
  s.cancel_fraction = 0;
  EXPECT_EQ(CheckWorkloadSpec(s)->field, SpecField::kCancelAfterTokens);
  s.cancel_fraction = 0.25;
  // Traces: the format and the block size.
  s.dataset = "trace";
  s.path = "t.jsonl";
  s.trace_format = "csv";
  EXPECT_EQ(CheckWorkloadSpec(s)->message, "must be auto, frontier, mooncake or agentic, got 'csv'");
  s.trace_format = "agentic";
  s.trace_block_tokens = 0;
  EXPECT_EQ(CheckWorkloadSpec(s)->field, SpecField::kTraceBlockTokens);
  s.trace_block_tokens = 64;
  s.ideal_block_tokens = 0;
  EXPECT_EQ(CheckWorkloadSpec(s)->field, SpecField::kIdealBlockTokens);
  s.ideal_block_tokens = 32;
  ASSERT_FALSE(CheckWorkloadSpec(s).has_value());

  // Every value reaches the dataset options.
  s.seed = 42;
  s.cancel_after_tokens = 0;
  s.cancel_after_ms = 12.5;
  DatasetOptions d = ToDatasetOptions(s);
  EXPECT_EQ(d.kind, DatasetKind::kTrace);
  EXPECT_EQ(d.trace_format, TraceFormat::kAgentic);
  EXPECT_EQ(d.trace_block_tokens, 64);
  EXPECT_EQ(d.seed, 42u);
  EXPECT_DOUBLE_EQ(d.think.mean_ms, 100);
  EXPECT_DOUBLE_EQ(d.think.max_ms, 500);
  EXPECT_DOUBLE_EQ(d.cancel.fraction, 0.25);
  EXPECT_EQ(d.cancel.after_ns, 12'500'000);
  EXPECT_EQ(d.shared_prefix.num_groups, 4);
  EXPECT_EQ(d.shared_prefix.question_len, 32);
  EXPECT_EQ(d.multi_turn.turns, 3);
  EXPECT_EQ(d.multi_turn.output_len, 128);

  // Names go both ways, and each dataset reads its own fields.
  for (SpecField f : kAllSpecFields) EXPECT_EQ(SpecFieldByName(SpecFieldName(f)), f) << SpecFieldName(f);
  EXPECT_FALSE(SpecFieldByName("gsp_groups").has_value());
  EXPECT_TRUE(SpecFieldApplies(SpecField::kMtTurns, DatasetKind::kMultiTurn));
  EXPECT_FALSE(SpecFieldApplies(SpecField::kMtTurns, DatasetKind::kRandom));
  EXPECT_FALSE(SpecFieldApplies(SpecField::kThinkTimeMs, DatasetKind::kSharedPrefix));
  EXPECT_TRUE(SpecFieldApplies(SpecField::kThinkTimeMs, DatasetKind::kTrace));
  EXPECT_TRUE(SpecFieldApplies(SpecField::kCancelFraction, DatasetKind::kJsonl));
  EXPECT_FALSE(SpecFieldApplies(SpecField::kInputLen, DatasetKind::kMultiTurn));
}

// One table spells every option both ways: each workload field has a plan
// name and a flag, and messages in flag terms read in plan terms.
TEST(OptionNamesTest, EveryWorkloadFieldHasBothSpellings) {
  for (SpecField f : kAllSpecFields) {
    const char* name = SpecFieldName(f);
    ASSERT_STRNE(name, "?");
    EXPECT_EQ(SpecFieldByName(name), f) << name;
    EXPECT_EQ(std::string(SpecFieldFlag(f, "random")).rfind("--", 0), 0u) << name;
  }
  EXPECT_STREQ(SpecFieldFlag(SpecField::kPath, "trace"), "--trace");
  EXPECT_STREQ(SpecFieldFlag(SpecField::kPath, "sharegpt"), "--dataset-path");
  EXPECT_STREQ(SpecFieldFlag(SpecField::kSharegptOutputLen, "sharegpt"), "--output-len");
  EXPECT_STREQ(SpecFieldFlag(SpecField::kPromptFormat, "random"), "--prompt-format");
  EXPECT_EQ(PlanFieldOfFlag("--input-len"), "workloads[].input_len");
  EXPECT_EQ(PlanFieldOfFlag("--min-duration"), "scenario.min_duration_s");
  EXPECT_EQ(PlanFieldOfFlag("--max-trials"), "search.max_trials");
  EXPECT_FALSE(PlanFieldOfFlag("--db").has_value());
}

TEST(OptionNamesTest, MessagesInFlagTermsReadInPlanTerms) {
  EXPECT_EQ(InPlanTerms("--start 0.5 must lie in [1, 8] (--min-value, --max-value)"),
            "search.start 0.5 must lie in [1, 8] (search.min_value, search.max_value)");
  EXPECT_EQ(InPlanTerms("--scenario server needs --target-qps or --slo"),
            "scenario server needs load.request_rate or scenario.slo");
  // Whole flags only; unknown flags are left as they are.
  EXPECT_EQ(InPlanTerms("--max-num-seqs-auto and --max-num-seqs=4, --db x, --"),
            "--max-num-seqs-auto and sim.max_num_seqs=4, --db x, --");
  EXPECT_EQ(InPlanTerms("--tp 3 does not divide --gpus 8"), "sim.tp 3 does not divide gpus 8");
}

TEST(PromptFormatTest, TheFieldOrTheDefaultForWhereThePromptsGo) {
  WorkloadSpec random;
  EXPECT_EQ(PromptFormatFor(random, false), PromptFormat::kTokenIds);
  EXPECT_EQ(PromptFormatFor(random, true), PromptFormat::kTokenIds);
  WorkloadSpec chat;
  chat.dataset = "multi-turn";
  EXPECT_EQ(PromptFormatFor(chat, false), PromptFormat::kTokenIds);
  EXPECT_EQ(PromptFormatFor(chat, true), PromptFormat::kText);  // turns carry the server's text answers
  EXPECT_FALSE(CheckPromptFormatOverHttp(chat).has_value());
  chat.prompt_format = "token-ids";
  EXPECT_EQ(PromptFormatFor(chat, true), PromptFormat::kTokenIds);
  ASSERT_TRUE(CheckPromptFormatOverHttp(chat).has_value());
  EXPECT_EQ(CheckPromptFormatOverHttp(chat)->field, SpecField::kPromptFormat);
  random.prompt_format = "text";
  EXPECT_EQ(ToDatasetOptions(random).random.format, PromptFormat::kText);
  EXPECT_FALSE(CheckPromptFormatOverHttp(random).has_value());
  random.prompt_format = "tokens";
  ASSERT_TRUE(CheckWorkloadSpec(random).has_value());
  EXPECT_EQ(CheckWorkloadSpec(random)->message, "must be token-ids or text, got 'tokens'");
}

}  // namespace
}  // namespace frontier::workload
