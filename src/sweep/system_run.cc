#include "sweep/system_run.h"

#include <utility>

namespace frontier::sweep {

SystemSpec SimulatedSystem(const sim::SimSpec& asked, const sim::SimConfig& resolved) {
  SystemSpec s;
  s.name = "simulated " + resolved.model.name + " on " + std::to_string(resolved.gpus) + "x " + resolved.hardware.name;
  s.hardware = resolved.hardware.name;
  s.gpus = resolved.gpus;
  s.sim = asked;
  sim::SimSpec& d = *s.sim;
  d.model = resolved.model.name;
  d.hardware = resolved.hardware.name;
  d.gpus = resolved.gpus;
  d.tp = resolved.tp;
  d.ep = resolved.ep;
  d.dp = resolved.dp;
  d.precision = sim::PrecisionName(resolved.precision);
  d.kv_precision = sim::PrecisionName(resolved.kv_precision);
  d.stack = resolved.stack.id();
  d.spec_tokens = resolved.spec_tokens;
  return s;
}

SystemSpec ServerSystem(const std::string& model, const std::string& base_url, const std::string& endpoint,
                        int gpus) {
  SystemSpec s;
  s.name = base_url;
  s.model = model;
  s.base_url = base_url;
  s.endpoint = endpoint;
  s.gpus = gpus;
  return s;
}

store::Source SourceOf(const SystemSpec& system) {
  return system.simulated() && !system.live ? store::Source::kSimulated : store::Source::kMeasured;
}

store::RunInfo SystemRun(const SystemSpec& system) {
  store::RunInfo run;
  run.system = system.name;
  run.source = SourceOf(system);
  run.config = system.Config();
  return run;
}

store::RunInfo CommandRun(const SystemSpec& system, const std::map<std::string, std::string>& settings,
                          const std::string& command_line) {
  store::RunInfo run = SystemRun(system);
  run.plan_text = command_line;
  std::map<std::string, std::string> config = settings;
  for (auto& [key, value] : run.config) config[key] = std::move(value);
  run.config = std::move(config);
  return run;
}

}  // namespace frontier::sweep
