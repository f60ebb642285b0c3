// verdict_test_util.h: one round trip of verdicts, search trials and a
// search's outcome through a Store, shared by the SQLite and PostgreSQL tests
// so both back ends are held to the same known values.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "store/store.h"

namespace frontier::store::testing_verdict {

// A verdict as loadgen's VerdictJson writes it: INVALID for two reasons, with
// the TTFT constraint's early-stopping estimate.
inline const std::string kInvalidVerdict =
    R"({"benchmark":"llama2-70b-interactive","constraints":[{"early_stopping":{"estimate_ms":612.5,)"
    R"("met":false,"min_queries":662,"overlatency":41,"queries":2000},"limit_ms":450.0,"met":false,)"
    R"("metric":"ttft","percentile":99.0,"value_ms":640.25}],"min_duration_met":true,)"
    R"("reasons":["TTFT p99 640.25 ms > 450 ms","early stopping: TTFT p99 estimate 612.5 ms > 450 ms"],)"
    R"("result":"INVALID","scenario":"Interactive"})";
inline const std::string kValidVerdict =
    R"({"constraints":[],"reasons":[],"result":"VALID","scenario":"Server"})";
inline const std::string kTrial = R"({"decision":"valid: bisecting [4, 8) at 6","index":2,"step":"bisect","valid":true,"value":4.0})";
inline const std::string kSearch = R"({"answer":{"trial":2,"value":4.0},"max_valid_qps":4.0,"trial_count":3})";

inline PointRecord JudgedPoint(int64_t run_id, double rate, const std::string& verdict, const std::string& trial) {
  PointRecord p;
  p.run_id = run_id;
  p.workload = "w";
  p.load_kind = LoadKind::kRequestRate;
  p.load_value = rate;
  p.key = PointKey(p.workload, p.load_kind, rate, 0);
  p.source = Source::kSimulated;
  p.num_gpus = 8;
  p.metrics.completed = 2000;
  store::SetP99(p.metrics.ttft_ms, 640.25);
  p.verdict_json = verdict;
  p.trial_json = trial;
  return p;
}

// Stores a run with three points (INVALID with reasons, VALID and a trial, no
// verdict) and its search outcome into `s`; checks they read back exactly.
// Returns the run id (0 after a failure).
inline int64_t RoundTripVerdicts(Store& s) {
  RunInfo run;
  run.sweep = "search";
  run.system = "h200";
  run.source = Source::kSimulated;
  auto created = s.CreateRun(run);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  if (!created.ok()) return 0;
  EXPECT_TRUE(s.AddPoint(JudgedPoint(created->id, 8, kInvalidVerdict, ""), {}).ok());
  EXPECT_TRUE(s.AddPoint(JudgedPoint(created->id, 4, kValidVerdict, kTrial), {}).ok());
  EXPECT_TRUE(s.AddPoint(JudgedPoint(created->id, 2, "", ""), {}).ok());
  EXPECT_TRUE(s.SetRunSearch(created->id, kSearch).ok());

  // A verdict that is not one is refused, naming the field and the point.
  Result<int64_t> bad = s.AddPoint(JudgedPoint(created->id, 1, R"({"result":"MAYBE"})", ""), {});
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("point 'w|request_rate=1|rep=0': verdict_json must be a JSON object whose "
                                        "\"result\" is VALID or INVALID"),
            std::string::npos)
      << bad.status().ToString();

  auto points = s.ListPoints(created->id);
  EXPECT_TRUE(points.ok()) << points.status().ToString();
  if (!points.ok() || points->size() != 3u) {
    ADD_FAILURE() << "expected 3 points";
    return 0;
  }
  EXPECT_EQ((*points)[0].verdict_json, kInvalidVerdict);
  EXPECT_EQ((*points)[0].trial_json, "");
  EXPECT_EQ((*points)[1].verdict_json, kValidVerdict);
  EXPECT_EQ((*points)[1].trial_json, kTrial);
  EXPECT_EQ((*points)[2].verdict_json, "");
  const VerdictView invalid = *ParseVerdict((*points)[0].verdict_json);
  EXPECT_TRUE(invalid.judged);
  EXPECT_FALSE(invalid.valid);
  EXPECT_EQ(invalid.Label(), "INVALID");
  EXPECT_EQ(invalid.scenario, "Interactive");
  EXPECT_EQ(invalid.first_reason, "TTFT p99 640.25 ms > 450 ms");
  EXPECT_EQ(ParseVerdict((*points)[1].verdict_json)->Label(), "VALID");
  EXPECT_EQ(ParseVerdict((*points)[2].verdict_json)->Label(), "");
  const TrialView trial = *ParseTrial((*points)[1].trial_json);
  EXPECT_TRUE(trial.is_trial);
  EXPECT_EQ(trial.step, "bisect");
  EXPECT_EQ(trial.index, 2);
  EXPECT_EQ(trial.decision, "valid: bisecting [4, 8) at 6");
  auto again = s.GetRun(created->id);
  EXPECT_TRUE(again.ok());
  if (again.ok()) {
    EXPECT_EQ(again->search_json, kSearch);
  }
  return created->id;
}

}  // namespace frontier::store::testing_verdict
