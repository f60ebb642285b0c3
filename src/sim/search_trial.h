// search_trial.h: the search's TrialRunner (loadgen/search.h) for a simulated
// system: each trial is one point (loadgen::RunPoint) on a SimTarget in
// virtual time, so a search takes seconds.
//
//   SimTrialRunner runner(config, specs, SimulateOptions{});
//   loadgen::Search(runner, search_options, on_trial);
//
// A trial runs through the same point runner as a measured trial, with the
// target's bounds (SimulateOptions), so a simulated trial reports each request as it
// ends, in virtual time, and stops when the search asks (over-saturation),
// exactly as a live one; it sends load.warmup + load.num_prompts requests at
// most. The runner keeps the requests' lengths (the simulator needs no prompt).
//
// Thread safety: one Run at a time.
#pragma once

#include <string>
#include <vector>

#include "loadgen/search.h"
#include "sim/engine/config.h"
#include "sim/simulate.h"

namespace frontier::sim {

class SimTrialRunner final : public loadgen::TrialRunner {
 public:
  // Copies the lengths of *specs.
  SimTrialRunner(SimConfig config, const std::vector<workload::RequestSpec>* specs, SimulateOptions options = {});

  std::string Name() const override;
  Result<loadgen::PointOutcome> Run(const workload::LoadOptions& load, const loadgen::PointOptions& point,
                                    loadgen::Observer* observer, const std::atomic<bool>* stop) override;

 private:
  SimConfig config_;
  std::vector<workload::RequestSpec> lengths_;  // the workload without its prompts
  SimulateOptions options_;
};

}  // namespace frontier::sim
