#include "sim/search_trial.h"

namespace frontier::sim {

SimTrialRunner::SimTrialRunner(SimConfig config, const std::vector<workload::RequestSpec>* specs,
                               SimulateOptions options)
    : config_(std::move(config)), specs_(specs), options_(options) {}

std::string SimTrialRunner::Name() const {
  return "simulated " + config_.model.name + " on " + std::to_string(config_.gpus) + "x " + config_.hardware.name;
}

Result<RunResult> SimTrialRunner::Run(const workload::LoadOptions& load, loadgen::Observer* /*observer*/,
                                      const std::atomic<bool>* /*stop*/) {
  return Simulate(config_, *specs_, load, options_);
}

}  // namespace frontier::sim
