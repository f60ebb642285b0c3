#include "loadgen/live_trial.h"

namespace frontier::loadgen {

LiveTrialRunner::LiveTrialRunner(BenchOptions options, const std::vector<workload::RequestSpec>* specs)
    : options_(std::move(options)), specs_(specs) {
  options_.result_json.clear();
  options_.requests_jsonl.clear();
}

Result<RunResult> LiveTrialRunner::Run(const workload::LoadOptions& load, Observer* observer,
                                       const std::atomic<bool>* stop) {
  FRONTIER_ASSIGN_OR_RETURN(BenchOutcome out, RunBenchmark(options_, *specs_, load, observer, stop));
  return std::move(out.run);
}

}  // namespace frontier::loadgen
