// The lines `frontier search` prints, built without a terminal: a trial's row
// and the answer, including a search where no trial was valid.
#include "loadgen/search_text.h"

#include <gtest/gtest.h>

namespace frontier::loadgen {
namespace {

Trial MakeTrial(int index, double value, bool valid) {
  Trial t;
  t.index = index;
  t.value = value;
  t.verdict.valid = valid;
  if (!valid) t.verdict.reasons = {"TTFT p99 not met"};
  t.summary.output_throughput = 1000;
  t.summary.output_throughput_per_gpu = 250;
  t.decision = "raise the load";
  return t;
}

TEST(SearchText, ATrialRowShowsItsLoadVerdictFirstReasonAndDecision) {
  const std::string row = TrialRow(MakeTrial(3, 2.5, /*valid=*/false), SearchAxis::kRate);
  EXPECT_EQ(row.rfind("trial  3       2.5 req/s  INVALID", 0), 0u) << row;
  EXPECT_NE(row.find("\n          TTFT p99 not met\n          -> raise the load"), std::string::npos) << row;
  EXPECT_EQ(TrialRow(MakeTrial(0, 8, true), SearchAxis::kConcurrency).rfind("trial  0          conc 8    VALID", 0),
            0u);
}

TEST(SearchText, TheAnswerNamesTheBestTrialOrSaysNoneWasValid) {
  SearchOptions o;
  o.goal = SearchGoal::kMaxThroughput;
  o.axis = SearchAxis::kConcurrency;
  SearchResult r;
  r.stop_reason = "bracket closed";
  r.trials = {MakeTrial(0, 4, false)};
  EXPECT_EQ(SearchAnswerText(r, o), "bracket closed after 1 trials\nno trial was valid\n");
  r.trials.push_back(MakeTrial(1, 2, true));
  r.best = 1;
  const std::string text = SearchAnswerText(r, o);
  EXPECT_EQ(text.rfind("bracket closed after 2 trials\nbest throughput under the SLO: 250.0 output tok/s/GPU at "
                       "concurrency 2 (trial 1), 0.0 tok/s/user\n",
                       0),
            0u)
      << text;
  EXPECT_EQ(SearchHeadline(o, "sim"), "search: max_throughput_per_gpu, SLO over concurrency, on sim");
}

}  // namespace
}  // namespace frontier::loadgen
