#include "sim/search_trial.h"

#include <algorithm>

namespace frontier::sim {

SimTrialRunner::SimTrialRunner(SimConfig config, const std::vector<workload::RequestSpec>* specs,
                               SimulateOptions options)
    : config_(std::move(config)), options_(options) {
  lengths_.reserve(specs->size());
  for (const auto& s : *specs) lengths_.push_back({s.id, s.input_len, s.output_len, {}, {}});
}

std::string SimTrialRunner::Name() const {
  return "simulated " + config_.model.name + " on " + std::to_string(config_.gpus) + "x " + config_.hardware.name;
}

Result<RunResult> SimTrialRunner::Run(const workload::LoadOptions& load, loadgen::Observer* /*observer*/,
                                      const std::atomic<bool>* /*stop*/) {
  const int64_t wanted = load.num_prompts > INT64_MAX - load.warmup ? INT64_MAX : load.num_prompts + load.warmup;
  if (static_cast<int64_t>(lengths_.size()) <= wanted) return Simulate(config_, lengths_, load, options_);
  const std::vector<workload::RequestSpec> first(lengths_.begin(), lengths_.begin() + wanted);
  return Simulate(config_, first, load, options_);
}

}  // namespace frontier::sim
