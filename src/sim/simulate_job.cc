// simulate_job.cc: one `frontier simulate` invocation's resolution and runs
// (simulate_job.h).
#include "sim/simulate_job.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <sstream>
#include <utility>
#include <variant>

#include "core/limits.h"
#include "core/parse.h"
#include "loadgen/workload_request.h"
#include "sim/engine/data_dir.h"
#include "sim/engine/model.h"
#include "sim/spec_fields.h"
#include "workload/dataset.h"
#include "workload/dataset_label.h"
#include "workload/load_request.h"

namespace frontier::sim {
namespace {

Result<std::vector<int64_t>> ParseList(const std::string& text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    FRONTIER_ASSIGN_OR_RETURN(const int64_t v, ParseInt("--concurrency", item, 1, kMaxConcurrency));
    out.push_back(v);
  }
  if (out.empty()) return InvalidArgument("--concurrency takes comma-separated integers >= 1");
  return out;
}

// --concurrency's levels (none without it), with the dataset drawn large
// enough for the largest; the usage errors of a sweep.
Result<std::vector<int64_t>> ResolveLevels(const SimulateRequest& r, loadgen::ResolvedWorkload* w) {
  if (r.concurrency.empty()) {
    if (r.best_deployment) return InvalidArgument("--best-deployment sweeps: give --concurrency 1,2,4,...");
    return std::vector<int64_t>{};
  }
  FRONTIER_ASSIGN_OR_RETURN(std::vector<int64_t> levels, ParseList(r.concurrency));
  if (r.max_concurrency_given)
    return InvalidArgument("--concurrency runs one point per value; leave out --max-concurrency");
  if (r.duration_given)
    return InvalidArgument("--concurrency sizes each point by requests (at least 4x the concurrency); leave out "
                           "--duration");
  // Each point sends at least 4x its concurrency (sessions, for a session
  // workload): draw enough for the largest. A trace is read whole and its
  // sessions reused cyclically.
  const int64_t largest = *std::max_element(levels.begin(), levels.end());
  const int64_t most = SweepPrompts(w->load.num_prompts, largest);
  // The bounds of one point's requests and prompts hold for the largest
  // point: checked here, since the flags' checks saw --num-prompts alone.
  if (most + w->load.warmup > kMaxRunRequests) {
    const std::string unit = w->sessions ? " sessions (" : " requests (";
    return InvalidArgument("--concurrency " + std::to_string(largest) + ": its point runs at least 4 x " +
                           std::to_string(largest) + unit + std::to_string(most + w->load.warmup) +
                           " with --warmup), at most " + std::to_string(kMaxRunRequests) +
                           " per point; lower the largest concurrency");
  }
  if (w->dataset.kind != workload::DatasetKind::kTrace) {
    w->dataset.num_prompts = std::max<int64_t>(w->dataset.num_prompts, most + w->load.warmup);
    if (Status st = workload::CheckPromptMemory(w->dataset); !st.ok())
      return InvalidArgument("--concurrency " + std::to_string(largest) + ": " + st.message() +
                             "; lower the largest concurrency or --input-len");
  }
  return levels;
}

// --max-num-seqs auto for one point: the cap raised to the offered
// concurrency (a sweep raises it per point itself).
Status ApplyMaxNumSeqsAuto(const SimulateRequest& r, const loadgen::ResolvedWorkload& w, SimConfig* config) {
  if (!r.concurrency.empty()) return Status::Ok();
  if (!w.load.max_concurrency)
    return InvalidArgument("--max-num-seqs auto raises the cap to the offered concurrency: give --concurrency or "
                           "--max-concurrency, or a number");
  FRONTIER_ASSIGN_OR_RETURN(*config, WithMaxNumSeqsFor(*config, *w.load.max_concurrency));
  return Status::Ok();
}

// A sweep's options: each point's are the one point's (s.point: provenance,
// files, sessions), its summary with the median and p99 the table shows.
SweepOptions SweepSetup(const Simulation& s) {
  SweepOptions sweep(s.options);
  sweep.max_num_seqs_auto = s.request.spec.max_num_seqs_auto;
  sweep.point = s.point;  // with sessions, a point's concurrency counts open sessions
  std::vector<double>& percentiles = sweep.point.summary.percentiles;
  for (double p : {50.0, 99.0})
    if (std::find(percentiles.begin(), percentiles.end(), p) == percentiles.end()) percentiles.push_back(p);
  return sweep;
}

const FlagRow<SimulateRequest> kFlags[] = {
    {"--max-requests", &SimulateRequest::max_requests,
     "Bound on the requests one run simulates, warm-up included; a run that reaches it fails [10000000]", "Load"},
    {"--max-memory-mb", &SimulateRequest::max_memory_mb,
     "Bound on the memory of one run's request records (about 16 bytes per output token); a run that reaches it "
     "fails [1024]",
     "Load"},
    {"--best-deployment", &SimulateRequest::best_deployment,
     "With --concurrency and --gpus: sweep every layout of the GPUs (TP, DP, EP, attention DP) and print the best "
     "deployment at each interactivity",
     "Load"},
    {"--search-disagg", &SimulateRequest::search_disagg,
     "With --best-deployment: also try disaggregated prefill / decode splits", "Load"},
    {"--as-plan", &SimulateRequest::as_plan,
     "Print the sweep plan (YAML) that runs these points with `frontier sweep`, then exit", "Output"},
};

// Beside the workload's (loadgen::WorkloadFlagsWithoutPlanForm).
const char* const kWithoutPlanForm[] = {
    "--explain", "--list", "--db", "--run-label", "--best-deployment", "--search-disagg", "--client-rtt-us",
    "--max-requests", "--max-memory-mb", "--ignore-eos", "--tokenizer",
};

}  // namespace

std::span<const FlagRow<SimulateRequest>> SimulateFlagRows() { return kFlags; }

std::vector<std::string> SimulateOwnFlags() {
  std::vector<std::string> own;
  for (const FlagRow<SimSpec>& row : SimSpecFields()) own.push_back(row.name);
  own.insert(own.end(), {"--concurrency", "--client-rtt-us"});  // cli/ binds these two itself
  for (const FlagRow<SimulateRequest>& row : kFlags)
    if (!std::holds_alternative<bool SimulateRequest::*>(row.field)) own.push_back(row.name);
  return own;
}

std::vector<std::string> SimulateFlagsWithoutPlanForm() {
  std::vector<std::string> flags(std::begin(kWithoutPlanForm), std::end(kWithoutPlanForm));
  for (const char* flag : loadgen::WorkloadFlagsWithoutPlanForm()) flags.push_back(flag);
  return flags;
}

std::string SimulateUsageProblem(const FlagGiven& given, const SimulateRequest& r, bool list, bool storing,
                                 double client_rtt_us) {
  if (std::string bad = r.as_plan ? loadgen::PlanFormProblem("simulate", SimulateFlagsWithoutPlanForm(), given) : "";
      !bad.empty())
    return bad;
  if (storing && (list || r.best_deployment))
    return std::string("--db stores simulated points; ") +
           (list ? "--list simulates none" : "--best-deployment compares layouts without storing them");
  if (list) return "";
  if (!given("--model")) return "--model is required (frontier simulate --list shows the catalog)";
  if (!given("--hardware")) return "--hardware is required (frontier simulate --list shows the catalog)";
  if (Result<Nanos> rtt = ClientRttNanos(client_rtt_us); !rtt.ok()) return rtt.status().message();
  if (!r.best_deployment) return "";
  // Every layout is resolved by the search; the one the flags name need not fit.
  if (r.spec.gpus < 1) return "--best-deployment needs --gpus (the GPUs to lay out)";
  if (given("--tp") || given("--dp") || given("--ep") || r.spec.attention_dp || r.spec.disaggregated())
    return "--best-deployment tries every layout itself: leave out --tp, --dp, --ep, --attention-dp and the pool "
           "flags";
  return "";
}

void ApplySimulateFlags(const FlagGiven& given, double client_rtt_us, Simulation* s) {
  SimulateRequest& r = s->request;
  r.num_gpus_given = given("--num-gpus");
  r.max_concurrency_given = given("--max-concurrency");
  r.duration_given = given("--duration");
  s->options.client_rtt_ns = *ClientRttNanos(client_rtt_us);
  s->options.max_requests = r.max_requests;
  s->options.max_memory_bytes = r.max_memory_mb << 20;
}

Result<SimConfig> ResolveDeployment(const SimSpec& spec, bool best_deployment) {
  Result<SimConfig> config = ResolveSimConfig(spec);
  if (config.ok() || !best_deployment) return config;
  FRONTIER_ASSIGN_OR_RETURN(ModelSpec model, LoadModel(spec.model, spec.data_dir.empty() ? DefaultDataDir() : spec.data_dir));
  SimConfig stand_in;
  stand_in.model = model;
  stand_in.gpus = spec.gpus;
  return stand_in;
}

Status UseSimulatedSystem(const SimConfig& config, bool num_gpus_given, loadgen::ResolvedWorkload* w) {
  if (num_gpus_given && w->summary.num_gpus != config.gpus)
    return InvalidArgument("--num-gpus " + std::to_string(w->summary.num_gpus) + " disagrees with the simulated " +
                           std::to_string(config.gpus) + " GPUs (--gpus / --tp x --dp); leave it out");
  w->summary.num_gpus = config.gpus;
  w->effective["num_gpus"] = std::to_string(config.gpus);
  w->dataset.random.vocab_size = config.model.vocab;
  // Judged before any prompt is drawn: a random workload whose shortest
  // request is longer than the deployment's context would have every request
  // refused by the engine, after its prompts took their memory.
  const int64_t context = config.max_model_len > 0 ? config.max_model_len : config.model.max_context;
  if (w->dataset.kind == workload::DatasetKind::kRandom && context > 0) {
    const workload::RandomDatasetOptions& r = w->dataset.random;
    const auto shortest = [&](int64_t mean) {
      return std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(mean) * (1 - r.range_ratio))));
    };
    const int64_t tokens = int64_t{r.prefix_len} + shortest(r.input_len) + shortest(r.output_len);
    if (tokens > context) {
      const std::string prefix = r.prefix_len > 0 ? " + --prefix-len " + std::to_string(r.prefix_len) : "";
      const std::string ratio = r.range_ratio > 0 ? " (at the least, with --range-ratio)" : "";
      return InvalidArgument("--input-len " + std::to_string(r.input_len) + prefix + " + --output-len " +
                             std::to_string(r.output_len) + ratio + ": every request would be " +
                             std::to_string(tokens) + " tokens or more, longer than the max context of " +
                             std::to_string(context) + " tokens of " + config.model.name +
                             " (--max-model-len, the model's max_position_embeddings); lower --input-len or "
                             "--output-len");
    }
  }
  return Status::Ok();
}

Status ResolveSimulatedWorkload(loadgen::ResolvedWorkload w, Simulation* s) {
  s->w = std::move(w);
  FRONTIER_ASSIGN_OR_RETURN(s->rules,
                            loadgen::ResolveScenarioRules(s->w, DefaultDataDir(), s->config.model.name));
  if (s->rules) {
    if (!s->request.concurrency.empty())
      return InvalidArgument("--concurrency runs a sweep; judge one point at a time, or use frontier search");
    FRONTIER_RETURN_IF_ERROR(loadgen::ApplyScenarioLoad(*s->rules, &s->w));
  }
  FRONTIER_RETURN_IF_ERROR(UseSimulatedSystem(s->config, s->request.num_gpus_given, &s->w));
  FRONTIER_ASSIGN_OR_RETURN(s->levels, ResolveLevels(s->request, &s->w));
  if (s->request.spec.max_num_seqs_auto) FRONTIER_RETURN_IF_ERROR(ApplyMaxNumSeqsAuto(s->request, s->w, &s->config));
  if (s->w.sessions && s->request.best_deployment)
    return InvalidArgument("--best-deployment searches single-turn workloads; sweep a session workload with "
                           "--concurrency (it counts open sessions)");
  FRONTIER_ASSIGN_OR_RETURN(s->prepared, loadgen::PrepareWorkload(&s->w));
  return Status::Ok();
}

void SharePointOptions(std::map<std::string, std::string> requested, const std::string& command_line,
                       Simulation* s) {
  loadgen::PointOptions& o = s->point;
  o.summary = s->w.summary;
  o.result_json = s->w.result_json;
  o.requests_jsonl = s->w.requests_jsonl;
  o.command_line = command_line;
  o.model = s->config.model.name;
  o.requested_settings = std::move(requested);
  o.effective_settings = s->w.effective;
  o.extra_result_fields["backend"] = "frontier-simulate";
  o.extra_result_fields["model_id"] = s->config.model.name;
  if (s->prepared.sessions) o.sessions = &*s->prepared.sessions;
  o.ideal_block_tokens = s->w.ideal_block_tokens;
}

Result<OnePoint> SimulateOnePoint(Simulation& s, const PointCallbacks& callbacks) {
  if (s.rules) s.point.rules = *s.rules;
  SimulationStats stats;
  Result<loadgen::PointOutcome> out = SimulatePoint(s.config, s.options, s.prepared.specs, s.w.load, s.point, &stats);
  if (!out.ok()) return callbacks.broken ? callbacks.broken(out.status()) : out.status();
  if (callbacks.record)
    FRONTIER_RETURN_IF_ERROR(callbacks.record(workload::DatasetLabel(s.w.dataset), s.w.load, *out, s.rules));
  return OnePoint{std::move(*out), stats};
}

Result<std::vector<SweepPoint>> SimulateSweep(Simulation& s, const PointCallbacks& callbacks,
                                              const std::function<void(const SweepPoint&, const RunResult&)>& observe) {
  const std::string workload_name = workload::DatasetLabel(s.w.dataset);
  auto on_point = [&](const SweepPoint& p, const SweepPointRun& r) -> Status {
    observe(p, r.outcome.run);
    // Each point is stored as it ends: an interrupted sweep keeps the points it finished.
    if (callbacks.record) FRONTIER_RETURN_IF_ERROR(callbacks.record(workload_name, r.load, r.outcome, std::nullopt));
    return Status::Ok();
  };
  Result<std::vector<SweepPoint>> swept =
      SweepConcurrency(s.config, s.prepared.specs, s.w.load, s.levels, SweepSetup(s), on_point);
  // The points before it stay stored.
  if (!swept.ok() && callbacks.broken) return callbacks.broken(swept.status());
  return swept;
}

Result<SearchResult> SearchBestDeployment(const Simulation& s) {
  DeploymentSearch search;
  search.base = s.request.spec;
  search.requests = s.prepared.specs;
  search.load = s.w.load;
  search.concurrencies = s.levels;
  search.sweep = SweepSetup(s);
  // The layouts' points are compared, not written, and their ideal hit rate
  // (the same prompts for every layout) not reported: not computed.
  search.sweep.point.result_json.clear();
  search.sweep.point.requests_jsonl.clear();
  search.sweep.point.ideal_block_tokens = 0;
  search.disaggregated = s.request.search_disagg;
  return SearchDeployments(search);
}

}  // namespace frontier::sim
