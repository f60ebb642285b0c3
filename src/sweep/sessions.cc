#include "sweep/sessions.h"

#include <filesystem>

#include "sim/config.h"
#include "sim/simulate.h"
#include "workload/dataset.h"

namespace frontier::sweep {
namespace {

std::string Resolve(const Plan& plan, const std::string& path) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(plan.dir) / path).string();
}

class SimSession final : public Session {
 public:
  SimSession(const Plan& plan, sim::SimConfig config) : plan_(plan), config_(std::move(config)) {}

  Result<RunResult> RunPoint(const PointSpec& point) override {
    FRONTIER_ASSIGN_OR_RETURN(auto requests, PointRequests(plan_, point));
    FRONTIER_ASSIGN_OR_RETURN(RunResult r, sim::Simulate(config_, requests, PointLoad(plan_, point)));
    r.source = "simulated";
    for (auto& [k, v] : config_.EffectiveSettings()) r.effective_settings.emplace(k, v);
    return r;
  }

 private:
  const Plan& plan_;
  sim::SimConfig config_;
};

}  // namespace

Result<std::vector<workload::RequestSpec>> PointRequests(const Plan& plan, const PointSpec& point) {
  const WorkloadSpec& w = plan.workloads[point.workload];
  workload::DatasetOptions d;
  FRONTIER_ASSIGN_OR_RETURN(d.kind, workload::ParseDatasetKind(w.dataset));
  d.path = Resolve(plan, w.path);
  d.num_prompts = point.num_prompts + plan.load.warmup;
  d.seed = point.seed;
  d.random.input_len = w.input_len;
  d.random.output_len = w.output_len;
  d.random.range_ratio = w.range_ratio;
  d.random.prefix_len = w.prefix_len;
  d.sharegpt_output_len = w.sharegpt_output_len;
  d.allow_repeat = true;
  Result<std::vector<workload::RequestSpec>> specs = workload::LoadDataset(d);
  if (!specs.ok()) return specs.status().WithContext("workload " + w.name);
  return specs;
}

workload::LoadOptions PointLoad(const Plan& plan, const PointSpec& point) {
  workload::LoadOptions l;
  l.num_prompts = point.num_prompts;
  l.warmup = plan.load.warmup;
  l.seed = point.seed;
  l.burstiness = plan.load.burstiness;
  if (plan.load.kind == "concurrency") {
    l.max_concurrency = static_cast<int64_t>(point.load_value);
  } else {
    l.request_rate = point.load_value;
    l.max_concurrency = plan.load.max_concurrency;
  }
  return l;
}

Result<std::unique_ptr<Session>> MakeSimSession(const Plan& plan, const SystemSpec& system) {
  const SimSettings& s = *system.sim;
  sim::SimSpec spec;
  spec.model = s.model;
  spec.hardware = system.hardware;
  spec.gpus = system.gpus;
  spec.tp = s.tp;
  spec.ep = s.ep;
  spec.dp = s.dp;
  spec.precision = s.precision;
  spec.kv_precision = s.kv_precision;
  spec.stack = s.stack;
  spec.max_num_seqs = s.max_num_seqs;
  spec.max_num_batched_tokens = s.max_num_batched_tokens;
  spec.spec_tokens = s.spec_tokens;
  spec.acceptance = s.acceptance;
  Result<sim::SimConfig> config = sim::ResolveSimConfig(spec);
  if (!config.ok()) return config.status().WithContext("system " + system.name);
  return std::unique_ptr<Session>(std::make_unique<SimSession>(plan, std::move(*config)));
}

SessionFactory DefaultSessionFactory(const SessionOptions& options) {
  return [options](const Plan& plan, const SystemSpec& system) -> Result<std::unique_ptr<Session>> {
    if (system.simulated() && !system.live) return MakeSimSession(plan, system);
    return Unavailable("system " + system.name +
                       ": measuring over HTTP is not available in this build yet");
  };
}

}  // namespace frontier::sweep
