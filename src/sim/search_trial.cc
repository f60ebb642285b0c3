#include "sim/search_trial.h"

#include <algorithm>

#include "sim/sim_target.h"

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
  o.stop = stop;
  SimTarget target(config_, o);
  loadgen::PointOptions p = point;
  p.run = VirtualRunOptions(observer != nullptr);
  if (p.model.empty()) p.model = config_.model.name;
  return loadgen::RunPoint(target, lengths_, load, p, observer, &target.stop());
}

}  // namespace frontier::sim
