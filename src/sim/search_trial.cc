#include "sim/search_trial.h"

#include <utility>

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

Result<loadgen::PointOutcome> SimTrialRunner::Run(const workload::LoadOptions& load,
                                                  const loadgen::PointOptions& point, loadgen::Observer* observer,
                                                  const std::atomic<bool>* stop) {
  SimulateOptions o = options_;
  o.observer = observer;
  o.stop = stop;
  return SimulatePoint(config_, o, lengths_, load, point);
}

}  // namespace frontier::sim
