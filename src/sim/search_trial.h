// search_trial.h: the search's TrialRunner (loadgen/search.h) for a simulated
// system: each trial is one sim::Simulate run in virtual time, so a search
// takes seconds.
//
//   SimTrialRunner runner(config, specs, SimulateOptions{});
//   loadgen::Search(runner, search_options, on_trial);
//
// The simulator reports requests only when a run has ended (ReportsLive() is
// false): the search judges over-saturation from the finished records, and a
// trial cannot be stopped part-way.
//
// A trial sends exactly load.warmup + load.num_prompts requests, as the live
// runner does: the runner keeps the requests' lengths (the simulator needs no
// prompt) and hands Simulate at most that many, because under a duration
// Simulate sends at least every request it is given.
//
// Thread safety: one Run at a time.
#pragma once

#include <string>
#include <vector>

#include "loadgen/search.h"
#include "sim/config.h"
#include "sim/simulate.h"

namespace frontier::sim {

class SimTrialRunner final : public loadgen::TrialRunner {
 public:
  // Copies the lengths of *specs.
  SimTrialRunner(SimConfig config, const std::vector<workload::RequestSpec>* specs, SimulateOptions options = {});

  std::string Name() const override;
  bool ReportsLive() const override { return false; }
  // `observer` and `stop` are not used (see the file comment).
  Result<RunResult> Run(const workload::LoadOptions& load, loadgen::Observer* observer,
                        const std::atomic<bool>* stop) override;

 private:
  SimConfig config_;
  std::vector<workload::RequestSpec> lengths_;  // the workload without its prompts
  SimulateOptions options_;
};

}  // namespace frontier::sim
