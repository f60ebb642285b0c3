// ResolveWorkload over raw values, without a parser: the defaults, messages
// that name the flag at fault, and the rules that depend on whether a flag
// was given rather than on its value.
#include "loadgen/workload_request.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

namespace frontier::loadgen {
namespace {

TEST(WorkloadRequestTest, DefaultsResolve) {
  Result<ResolvedWorkload> w = ResolveWorkload(WorkloadRequest{});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->dataset.kind, workload::DatasetKind::kRandom);
  EXPECT_EQ(w->dataset.random.input_len, 1024);
  EXPECT_EQ(w->load.num_prompts, 1000);
  EXPECT_TRUE(std::isinf(w->load.request_rate));
  EXPECT_FALSE(w->load.max_concurrency.has_value());
  EXPECT_TRUE(w->ignore_eos);
  EXPECT_EQ(w->summary.percentiles, (std::vector<double>{50, 90, 95, 99, 99.9}));
  EXPECT_FALSE(w->scenario.has_value());
  EXPECT_TRUE(w->requested.empty());
}

TEST(WorkloadRequestTest, MessagesNameTheFlag) {
  WorkloadRequest bad_percentiles;
  bad_percentiles.percentiles = "50,101";
  EXPECT_EQ(ResolveWorkload(bad_percentiles).status().message(),
            "--percentiles must be at most 100 comma-separated numbers in [0, 100], got '50,101'");
  WorkloadRequest cancel;
  cancel.cancel_after_tokens = 5;
  cancel.given["cancel-after-tokens"] = "5";
  EXPECT_EQ(ResolveWorkload(cancel).status().message(),
            "--cancel-after-tokens and --cancel-after-ms need --cancel-fraction F > 0");
  WorkloadRequest goodput;
  goodput.goodput = {"latency:5"};
  EXPECT_EQ(ResolveWorkload(goodput).status().message(), "--goodput metric must be ttft, tpot or e2el, got 'latency'");
  // A number is all of its text (core/parse.h): no blank before it, no hex, nothing after.
  for (const char* junk : {"ttft: 5", "ttft:0x10", "ttft:5ms"}) {
    goodput.goodput = {junk};
    EXPECT_EQ(ResolveWorkload(goodput).status().message(),
              std::string("--goodput takes ttft:MS, tpot:MS or e2el:MS with MS in (0, 1e9], got '") + junk + "'");
  }
  for (const char* junk : {" 5", "0x10", "5qps"}) {
    WorkloadRequest rate;
    rate.request_rate = junk;
    EXPECT_EQ(ResolveWorkload(rate).status().message(),
              std::string("--request-rate must be a number or 'inf', got '") + junk + "'");
  }
}

// A value left at its default acts as not given, and the same value given acts as given.
TEST(WorkloadRequestTest, GivenFlagsDifferFromDefaults) {
  WorkloadRequest r;
  r.dataset = "sharegpt";
  r.dataset_path = "x.json";
  r.output_len = 64;
  Result<ResolvedWorkload> default_len = ResolveWorkload(r);
  ASSERT_TRUE(default_len.ok()) << default_len.status().ToString();
  EXPECT_FALSE(default_len->dataset.sharegpt_output_len.has_value());
  EXPECT_FALSE(default_len->ignore_eos);  // on by default for random prompts only
  r.given["output-len"] = "64";
  r.given["ignore-eos"] = "true";
  Result<ResolvedWorkload> given = ResolveWorkload(r);
  ASSERT_TRUE(given.ok()) << given.status().ToString();
  EXPECT_EQ(*given->dataset.sharegpt_output_len, 64);
  EXPECT_TRUE(given->ignore_eos);
  EXPECT_EQ(given->requested.at("output-len"), "64");
  // A scenario flag's default is no scenario; given, it sets the arrivals and
  // forbids the load flags beside it.
  WorkloadRequest s;
  s.scenario = "server";
  s.max_concurrency = 4;
  EXPECT_TRUE(ResolveWorkload(s).ok());
  s.given = {{"scenario", "server"}, {"max-concurrency", "4"}};
  EXPECT_EQ(ResolveWorkload(s).status().message(),
            "--max-concurrency cannot be given with --scenario, which sets the arrivals and the run length "
            "(--target-qps, --min-duration, --min-query-count)");
}

// A multi-turn workload sent to a server (bench, search --base-url) takes
// text prompts unless told otherwise, as a plan's does: each turn carries the
// server's answer, which arrives as text. Token ids named outright are refused
// there before anything is opened; in virtual time they stay the default.
TEST(WorkloadRequestTest, AMultiTurnWorkloadSentToAServerDefaultsToText) {
  WorkloadRequest r;
  r.dataset = "multi-turn";
  Result<ResolvedWorkload> simulated = ResolveWorkload(r);
  ASSERT_TRUE(simulated.ok()) << simulated.status().ToString();
  EXPECT_EQ(simulated->dataset.random.format, workload::PromptFormat::kTokenIds);
  EXPECT_EQ(simulated->effective.at("prompt_format"), "token-ids");
  r.over_http = true;
  Result<ResolvedWorkload> sent = ResolveWorkload(r);
  ASSERT_TRUE(sent.ok()) << sent.status().ToString();
  EXPECT_EQ(sent->dataset.random.format, workload::PromptFormat::kText);
  EXPECT_EQ(sent->effective.at("prompt_format"), "text");
  r.given["prompt-format"] = "token-ids";
  EXPECT_EQ(ResolveWorkload(r).status().message().substr(0, 68),
            "--prompt-format token-ids cannot carry a multi-turn session to a ser");
  WorkloadRequest random;  // a random workload keeps token ids: its prompts are resent as they are
  random.over_http = true;
  EXPECT_EQ(ResolveWorkload(random)->dataset.random.format, workload::PromptFormat::kTokenIds);
}

TEST(WorkloadRequestTest, TableNamesEveryFlagOnce) {
  std::set<std::string> names;
  for (const FlagRow<WorkloadRequest>& row : WorkloadFlagRows()) EXPECT_TRUE(names.insert(row.name).second) << row.name;
  EXPECT_TRUE(names.contains("--ignore-eos,!--no-ignore-eos"));
  EXPECT_EQ(names.size(), 47u);
}

}  // namespace
}  // namespace frontier::loadgen
