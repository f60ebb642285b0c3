#include "loadgen/live_trial.h"

namespace frontier::loadgen {

LiveTrialRunner::LiveTrialRunner(BenchOptions options, const std::vector<workload::RequestSpec>* specs)
    : options_(std::move(options)), specs_(specs) {
  options_.result_json.clear();
  options_.requests_jsonl.clear();
}

Result<PointOutcome> LiveTrialRunner::Run(const workload::LoadOptions& load, const PointOptions& point,
                                          Observer* observer, const std::atomic<bool>* stop) {
  BenchOptions b = options_;
  b.summary = point.summary;
  b.rules = point.rules;
  if (!point.command_line.empty()) b.command_line = point.command_line;
  if (!point.model.empty()) b.model = point.model;
  for (const auto& [k, v] : point.requested_settings) b.requested_settings[k] = v;
  for (const auto& [k, v] : point.effective_settings) b.effective_settings[k] = v;
  for (const auto& [k, v] : point.extra_result_fields.items()) b.extra_result_fields[k] = v;
  return RunBenchmark(b, *specs_, load, observer, stop);
}

}  // namespace frontier::loadgen
