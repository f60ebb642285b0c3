// resolved_workload.cc: the steps after a workload is resolved
// (resolved_workload.h).
#include "loadgen/resolved_workload.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "workload/exact_text.h"

namespace frontier::loadgen {

Result<std::optional<ScenarioRules>> ResolveScenarioRules(const ResolvedWorkload& w,
                                                                   const std::string& data_dir,
                                                                   std::string_view model_hint) {
  if (!w.scenario) return std::optional<ScenarioRules>();
  std::vector<MlperfBenchmark> table;
  if (w.scenario->scenario || !w.scenario->benchmark.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(table, LoadMlperfBenchmarks(data_dir));
  }
  FRONTIER_ASSIGN_OR_RETURN(ScenarioRules rules, ResolveScenario(*w.scenario, table, model_hint));
  return std::optional<ScenarioRules>(std::move(rules));
}

Status ApplyScenarioLoad(const ScenarioRules& rules, ResolvedWorkload* w) {
  auto& e = w->effective;
  std::string slo;
  for (const auto& c : rules.constraints) slo += (slo.empty() ? "" : " ") + FormatConstraint(c);
  if (!slo.empty()) e["slo"] = slo;
  if (rules.min_interactivity) e["min_interactivity"] = std::to_string(*rules.min_interactivity);
  if (!rules.scenario) return Status::Ok();
  FRONTIER_ASSIGN_OR_RETURN(w->load, ScenarioLoad(rules, w->load));
  UseScenarioPromptPool(rules, w->load.num_prompts, w);
  e["scenario"] = ScenarioName(*rules.scenario);
  if (!rules.benchmark.empty()) e["mlperf_benchmark"] = rules.benchmark;
  if (rules.target_qps) e["target_qps"] = std::to_string(*rules.target_qps);
  e["min_duration_s"] = std::to_string(rules.min_duration_s);
  e["min_query_count"] = std::to_string(rules.min_query_count);
  e["num_prompts"] = std::to_string(w->load.num_prompts);
  e["request_rate"] = std::isinf(w->load.request_rate) ? "inf" : std::to_string(w->load.request_rate);
  e["burstiness"] = "1";
  e.erase("duration_s");  // the load's duration bounds nothing (ScenarioLoad)
  return Status::Ok();
}

void UseScenarioPromptPool(const ScenarioRules& rules, int64_t measured, ResolvedWorkload* w) {
  const int64_t pool = rules.performance_sample_count > 0 ? rules.performance_sample_count : workload::kDurationDatasetSize;
  w->dataset.num_prompts = std::min(measured, pool) + w->load.warmup;
  w->dataset.allow_repeat = true;
}

Result<PreparedWorkload> PrepareWorkload(ResolvedWorkload* w) {
  PreparedWorkload p;
  if (!w->sessions) {
    FRONTIER_ASSIGN_OR_RETURN(p.specs, workload::LoadDataset(w->dataset));
    if (!w->tokenizer.empty())
      FRONTIER_RETURN_IF_ERROR(workload::TokenizePrompts(w->tokenizer, p.specs, w->dataset.random.prefix_len,
                                                         w->dataset.seed, &w->effective));
    return p;
  }
  FRONTIER_ASSIGN_OR_RETURN(workload::SessionWorkload s, workload::LoadSessionWorkload(w->dataset));
  if (w->dataset.num_prompts == 0) {
    w->load.num_prompts = static_cast<int64_t>(s.sessions.size());
    w->effective["num_prompts"] = std::to_string(w->load.num_prompts);
  }
  p.sessions = std::move(s);
  return p;
}

}  // namespace frontier::loadgen
