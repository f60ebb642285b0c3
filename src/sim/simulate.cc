#include "sim/simulate.h"

#include "loadgen/runner.h"
#include "sim/sim_target.h"

namespace frontier::sim {

Result<RunResult> Simulate(const SimConfig& config, std::span<const workload::RequestSpec> requests,
                           const workload::LoadOptions& load, SimulationStats* stats) {
  return Simulate(config, requests, load, SimulateOptions{}, stats);
}

Result<RunResult> Simulate(const SimConfig& config, std::span<const workload::RequestSpec> requests,
                           const workload::LoadOptions& load, const SimulateOptions& options,
                           SimulationStats* stats) {
  SimTarget target(config, options);
  FRONTIER_RETURN_IF_ERROR(target.CheckLoad(load));
  FRONTIER_ASSIGN_OR_RETURN(RunResult run, loadgen::RunLoad(target, requests, load,
                                                            VirtualRunOptions(options.observer != nullptr),
                                                            options.observer, &target.stop()));
  FRONTIER_RETURN_IF_ERROR(target.RunStatus());
  loadgen::PointOptions provenance;
  provenance.model = config.model.name;
  provenance.summary.num_gpus = config.gpus;
  target.Describe(&run);
  loadgen::StampProvenance(provenance, config.model.name, &run);
  if (stats != nullptr) *stats = target.stats();
  return run;
}

Result<loadgen::PointOutcome> SimulatePoint(const SimConfig& config, const SimulateOptions& options,
                                            std::span<const workload::RequestSpec> requests,
                                            const workload::LoadOptions& load, loadgen::PointOptions point,
                                            SimulationStats* stats) {
  SimTarget target(config, options);
  point.run = VirtualRunOptions(options.observer != nullptr);
  Result<loadgen::PointOutcome> out =
      loadgen::RunPoint(target, requests, load, point, options.observer, &target.stop());
  if (stats != nullptr) *stats = target.stats();
  return out;
}

}  // namespace frontier::sim
