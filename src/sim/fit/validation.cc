#include "sim/fit/validation.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include "core/limits.h"
#include "core/parse.h"
#include "metrics/summary.h"
#include "sim/engine/catalog_json.h"
#include "sim/engine/step_model.h"
#include "workload/random_dataset.h"

namespace frontier::sim {
namespace {

// The GPUs whose published results calibration may fit (see the file
// comment). Every other GPU, B200, GB200, MI355X and any newer one, is a
// validation GPU: its results are predicted from the others and never fitted.
// The H100 and H200 count in every form NVIDIA sells them: the SXM module,
// the PCIe and NVL cards (the same GH100 at a 350, 400 or 600 W limit, 76-84 %
// of the SXM's dense tensor peak) and the GPU of the GH200 superchip.
constexpr const char* kCalibrationGpus[] = {"h100-sxm", "h100-pcie", "h100-nvl", "h200",
                                            "h200-nvl", "gh200",     "mi300x",   "mi325x"};

Result<Scenario> ParseScenario(const std::string& s, const std::string& where) {
  if (s == "offline") return Scenario::kOffline;
  if (s == "server") return Scenario::kServer;
  if (s == "closed_loop") return Scenario::kClosedLoop;
  if (s == "batch") return Scenario::kBatch;
  return InvalidArgument(where + ": scenario must be offline, server, closed_loop or batch, got \"" + s + "\"");
}

Result<int> Int(const nlohmann::json& j, const std::string& key, int fallback, const std::string& where) {
  FRONTIER_ASSIGN_OR_RETURN(double v, catalog::NumberOr(j, key, fallback, where));
  if (v != std::floor(v) || v < 0 || v > 1e9)
    return InvalidArgument(where + ": field '" + key + "' must be an integer in [0, 1000000000], got " +
                           nlohmann::json(v).dump());
  return static_cast<int>(v);
}

// A published number: finite and in (0, max] (a throughput above 1e9
// tokens/s or a latency above 1e9 ms is a typo or a forgery, and would
// dominate every fit and error it enters).
Status Published(double v, const std::string& where, const std::string& key, double max) {
  if (std::isfinite(v) && v > 0 && v <= max) return Status::Ok();
  return InvalidArgument(where + ": " + key + " must be a finite number in (0, " + FormatNumber(max) + "], got " +
                         FormatNumber(v));
}

Result<PublishedResult> ParseResult(const nlohmann::json& r, const std::string& path) {
  using namespace catalog;
  PublishedResult p;
  p.file = path;
  FRONTIER_ASSIGN_OR_RETURN(p.id, String(r, "id", path));
  const std::string where = path + ": " + p.id;
  FRONTIER_ASSIGN_OR_RETURN(p.published, String(r, "published", where));
  FRONTIER_ASSIGN_OR_RETURN(p.source, String(r, "source", where));
  p.submitter = StringOr(r, "submitter", "");
  p.system = StringOr(r, "system", "");
  p.round = StringOr(r, "round", "");
  FRONTIER_ASSIGN_OR_RETURN(std::string scenario, String(r, "scenario", where));
  FRONTIER_ASSIGN_OR_RETURN(p.scenario, ParseScenario(scenario, where));
  FRONTIER_ASSIGN_OR_RETURN(p.model, String(r, "model", where));
  FRONTIER_ASSIGN_OR_RETURN(p.hardware, String(r, "hardware", where));
  FRONTIER_ASSIGN_OR_RETURN(p.precision, String(r, "precision", where));
  if (p.precision != "native") {
    Result<Precision> checked = ParsePrecision(p.precision, where + ": precision");
    if (!checked.ok())
      return InvalidArgument(checked.status().message() + ", or \"native\" for the model's own formats");
  }
  FRONTIER_ASSIGN_OR_RETURN(p.stack, String(r, "stack", where));
  p.kv_precision = StringOr(r, "kv_precision", "");
  FRONTIER_ASSIGN_OR_RETURN(p.gpus, Int(r, "gpus", 0, where));
  FRONTIER_ASSIGN_OR_RETURN(p.tp, Int(r, "tp", 1, where));
  FRONTIER_ASSIGN_OR_RETURN(p.ep, Int(r, "ep", 1, where));
  FRONTIER_ASSIGN_OR_RETURN(p.dp, Int(r, "dp", 0, where));
  if (p.gpus < 1 || p.tp < 1 || p.ep < 1) return InvalidArgument(where + ": gpus, tp and ep must be at least 1");
  // A flag of the wrong type is an error, not a silent false: a held-out
  // point read as a calibration point would be fitted to.
  FRONTIER_ASSIGN_OR_RETURN(p.attention_dp, BoolOr(r, "attention_dp", false, where));
  FRONTIER_ASSIGN_OR_RETURN(p.held_out, BoolOr(r, "held_out", false, where));
  if (r.contains("max_num_seqs")) {
    FRONTIER_ASSIGN_OR_RETURN(int v, Int(r, "max_num_seqs", 0, where));
    p.max_num_seqs = v;
  }
  if (r.contains("max_model_len")) {
    FRONTIER_ASSIGN_OR_RETURN(int v, Int(r, "max_model_len", 0, where));
    if (v < 1) return InvalidArgument(where + ": field 'max_model_len' must be at least 1, got 0");
    p.max_model_len = v;
  }
  // Whether the run used vLLM's --enforce-eager (no CUDA graphs).
  FRONTIER_ASSIGN_OR_RETURN(p.enforce_eager, BoolOr(r, "enforce_eager", false, where));
  if (const nlohmann::json* v = Value(r, "prefill")) {
    // How the run scheduled prompts where its launch departs from the stack's
    // default (chunked prefill off).
    PrefillMode mode;
    if (!v->is_string() || !ParsePrefillMode(v->get<std::string>(), &mode))
      return InvalidArgument(where + ": field 'prefill' must be chunked-mixed, whole-mixed, chunked-separate or "
                             "whole-separate, got " + v->dump());
    p.prefill = mode;
  }
  if (r.contains("gpu_memory_utilization")) {
    const nlohmann::json* v = Value(r, "gpu_memory_utilization");
    if (v == nullptr || !v->is_number() || !(v->get<double>() > 0 && v->get<double>() <= 1))
      return InvalidArgument(where + ": field 'gpu_memory_utilization' must be a number in (0, 1], the run's memory "
                             "fraction (SGLang --mem-fraction-static, TensorRT-LLM free_gpu_memory_fraction, vLLM "
                             "--gpu-memory-utilization), got " + (v == nullptr ? std::string("null") : v->dump()) +
                             "; leave it out to use the stack's default");
    p.gpu_memory_utilization = v->get<double>();
  }
  if (r.contains("max_num_batched_tokens")) {
    FRONTIER_ASSIGN_OR_RETURN(int v, Int(r, "max_num_batched_tokens", 0, where));
    p.max_num_batched_tokens = v;
  }
  if (!r.contains("workload") || !r["workload"].is_object())
    return InvalidArgument(where + ": missing object 'workload' (a dataset, or input_len and output_len)");
  const auto& w = r["workload"];
  p.dataset = StringOr(w, "dataset", "");
  FRONTIER_ASSIGN_OR_RETURN(p.output_mean, NumberOr(w, "output_mean", 0, where + ".workload"));
  if (p.output_mean != 0)
    FRONTIER_RETURN_IF_ERROR(Published(p.output_mean, where + ".workload", "output_mean", 1e7));
  FRONTIER_ASSIGN_OR_RETURN(p.input_len, Int(w, "input_len", 0, where + ".workload"));
  FRONTIER_ASSIGN_OR_RETURN(p.range_ratio, NumberOr(w, "range_ratio", 0, where + ".workload"));
  if (!(p.range_ratio >= 0 && p.range_ratio < 1))
    return InvalidArgument(where + ".workload: range_ratio must be in [0, 1) (lengths uniform in [(1-r)L, (1+r)L]), got " +
                           std::to_string(p.range_ratio));
  FRONTIER_ASSIGN_OR_RETURN(p.output_len, Int(w, "output_len", 0, where + ".workload"));
  FRONTIER_ASSIGN_OR_RETURN(int prompts, Int(w, "num_prompts", 0, where + ".workload"));
  p.num_prompts = prompts;
  if (p.dataset.empty() && (p.input_len < 1 || p.output_len < 1))
    return InvalidArgument(where + ".workload: give a dataset, or input_len and output_len >= 1");
  if ((p.scenario == Scenario::kClosedLoop || p.scenario == Scenario::kBatch) && p.num_prompts < 1)
    return InvalidArgument(where + ".workload: num_prompts >= 1 is required for a " + scenario + " result");
  if (p.scenario == Scenario::kClosedLoop) {
    FRONTIER_ASSIGN_OR_RETURN(int c, Int(r, "concurrency", 0, where));
    if (c < 1) return InvalidArgument(where + ": a closed_loop result needs concurrency >= 1");
    p.concurrency = c;
  }
  if (p.scenario == Scenario::kServer) {
    FRONTIER_ASSIGN_OR_RETURN(p.ttft_p99_limit_ms, NumberOr(r, "ttft_p99_limit_ms", 0, where));
    FRONTIER_ASSIGN_OR_RETURN(p.tpot_p99_limit_ms, NumberOr(r, "tpot_p99_limit_ms", 0, where));
    for (auto [key, v] : {std::pair{"ttft_p99_limit_ms", p.ttft_p99_limit_ms},
                          std::pair{"tpot_p99_limit_ms", p.tpot_p99_limit_ms}})
      if (v != 0) FRONTIER_RETURN_IF_ERROR(Published(v, where, key, bounds::kMaxLatencyMs));
    if (p.dataset.empty()) return InvalidArgument(where + ": a server result needs a dataset");
  }
  const std::string metric = StringOr(r, "metric", "output_tokens_per_s");
  if (metric != "output_tokens_per_s")
    return InvalidArgument(where + ": metric must be output_tokens_per_s, got \"" + metric + "\"");
  FRONTIER_ASSIGN_OR_RETURN(p.value, Number(r, "value", where));
  FRONTIER_RETURN_IF_ERROR(Published(p.value, where, "value", bounds::kMaxThroughput));
  for (auto [key, out] : {std::pair{"median_tpot_ms", &p.median_tpot_ms}, std::pair{"mean_tpot_ms", &p.mean_tpot_ms},
                          std::pair{"mean_ttft_ms", &p.mean_ttft_ms}}) {
    if (!r.contains(key)) continue;
    FRONTIER_ASSIGN_OR_RETURN(double v, Number(r, key, where));
    FRONTIER_RETURN_IF_ERROR(Published(v, where, key, bounds::kMaxLatencyMs));
    *out = v;
  }
  if ((p.mean_tpot_ms || p.mean_ttft_ms) && p.scenario != Scenario::kClosedLoop && p.scenario != Scenario::kBatch)
    return InvalidArgument(where + ": mean_tpot_ms / mean_ttft_ms are fitted for closed_loop and batch results only");
  return p;
}

}  // namespace

const char* ScenarioName(Scenario s) {
  switch (s) {
    case Scenario::kOffline: return "offline";
    case Scenario::kServer: return "server";
    case Scenario::kClosedLoop: return "closed_loop";
    case Scenario::kBatch: return "batch";
  }
  return "?";
}

bool IsCalibrationGpu(const std::string& hardware) {
  for (const char* id : kCalibrationGpus)
    if (hardware == id) return true;
  return false;
}

bool PublishedResult::OnCalibrationGpu() const { return IsCalibrationGpu(hardware); }

bool PublishedResult::Calibratable() const { return !held_out && OnCalibrationGpu(); }

const workload::LengthTable* ValidationSet::Dataset(const std::string& name) const {
  for (const auto& d : datasets)
    if (d.name == name) return &d;
  return nullptr;
}


Result<ValidationSet> LoadValidation(const std::string& data_dir) {
  using namespace catalog;
  ValidationSet set;
  for (const auto& path : JsonFilesIn(data_dir + "/validation")) {
    FRONTIER_ASSIGN_OR_RETURN(nlohmann::json j, ReadJsonFile(path));
    if (j.contains("datasets") && j["datasets"].is_object()) {
      FRONTIER_ASSIGN_OR_RETURN(std::vector<workload::LengthTable> tables, workload::ReadLengthTables(path));
      for (auto& t : tables) set.datasets.push_back(std::move(t));
    }
    if (!j.contains("results")) continue;
    if (!j["results"].is_array()) return InvalidArgument(path + ": 'results' must be an array");
    for (const auto& r : j["results"]) {
      FRONTIER_ASSIGN_OR_RETURN(PublishedResult p, ParseResult(r, path));
      for (const auto& q : set.results)
        if (q.id == p.id) return InvalidArgument(path + ": result id '" + p.id + "' appears twice");
      set.results.push_back(std::move(p));
    }
  }
  for (const auto& r : set.results)
    if (!r.dataset.empty() && set.Dataset(r.dataset) == nullptr)
      return InvalidArgument(r.file + ": " + r.id + ": unknown dataset '" + r.dataset + "'");
  return set;
}

Result<ResultModel> ResultModel::Create(const PublishedResult& r, const ValidationSet& set,
                                        const ValidationOptions& o, const Stack* stack) {
  ResultModel m;
  m.result_ = r;
  m.options_ = o;
  SimSpec spec;
  spec.model = r.model;
  spec.hardware = r.hardware;
  spec.gpus = r.gpus;
  if (r.precision != "native") spec.precision = r.precision;
  spec.prefill = r.prefill;
  spec.max_model_len = r.max_model_len;
  if (!r.kv_precision.empty()) spec.kv_precision = r.kv_precision;
  spec.data_dir = o.data_dir;
  if (r.attention_dp) {
    spec.attention_dp = true;
  } else {
    spec.tp = r.tp;
    spec.ep = r.ep;
    spec.dp = r.dp;
  }
  spec.max_num_seqs = r.max_num_seqs;
  spec.max_num_batched_tokens = r.max_num_batched_tokens;
  spec.gpu_memory_utilization = r.gpu_memory_utilization;
  spec.stack = r.stack;
  Result<SimConfig> config = ResolveSimConfig(spec);
  if (!config.ok()) return Status(config.status().code(), r.id + ": " + config.status().message());
  m.config_ = *config;
  if (stack != nullptr) {
    // Another version of the same engine, with the result's engine limits.
    Result<SimConfig> other = WithStackParams(m.config_, stack->params);
    if (!other.ok()) return Status(other.status().code(), r.id + " with " + stack->id() + ": " + other.status().message());
    m.config_ = *std::move(other);
    m.config_.stack.graphs = stack->graphs;
    m.config_.stack.overlap_scheduler = stack->overlap_scheduler;
  }
  if (r.enforce_eager) m.config_.stack.graphs = false;  // after the other version's, which sets graphs
  if (!r.dataset.empty()) {
    const workload::LengthTable* d = set.Dataset(r.dataset);
    if (d == nullptr) return InvalidArgument(r.id + ": unknown dataset " + r.dataset);
    // Offline: enough samples to turn the engine's batch over several times
    // (its sequence cap, or what its KV cache holds at the mean length).
    int64_t n = r.num_prompts;
    if (r.scenario == Scenario::kOffline || r.scenario == Scenario::kServer) {
      const double mean_len = d->InputMean() + (r.output_mean > 0 ? r.output_mean : d->OutputMean());
      const double by_kv = static_cast<double>(m.config_.memory.kv_capacity_tokens) / mean_len;
      const double running = std::min(by_kv, static_cast<double>(m.config_.max_num_seqs) * m.config_.dp);
      n = std::max<int64_t>(o.offline_requests, static_cast<int64_t>(3 * running));
    }
    m.requests_ = workload::DrawLengths(*d, n, r.output_mean, o.seed);
    // Server probes: the same turnover, so that an overloaded rate shows in
    // the latency percentiles (a short run at any rate ends before its queue grows).
    if (r.scenario == Scenario::kServer) m.server_requests_ = workload::DrawLengths(*d, std::max(o.server_requests, n), r.output_mean, o.seed + 1);
  } else {
    // The random dataset's own draw (fixed lengths when range_ratio is 0).
    workload::RandomDatasetOptions lengths;
    lengths.num_prompts = r.num_prompts > 0 ? r.num_prompts : o.offline_requests;
    lengths.input_len = r.input_len;
    lengths.output_len = r.output_len;
    lengths.range_ratio = r.range_ratio;
    lengths.seed = o.seed;
    Result<std::vector<workload::RequestSpec>> drawn = workload::DrawRandomLengths(lengths);
    if (!drawn.ok()) return Status(drawn.status().code(), r.id + ": " + drawn.status().message());
    m.requests_ = *std::move(drawn);
  }
  return m;
}

ResultModel ResultModel::FromRun(const PublishedResult& r, const SimConfig& config,
                                 std::vector<workload::RequestSpec> requests) {
  ResultModel m;
  m.result_ = r;
  m.config_ = config;
  m.requests_ = std::move(requests);
  return m;
}

Result<double> ResultModel::SimulateOffline(const StackParams& params, StepTrace* trace) {
  FRONTIER_ASSIGN_OR_RETURN(const SimConfig c, WithStackParams(config_, params));
  workload::LoadOptions load;
  load.num_prompts = static_cast<int64_t>(requests_.size());
  if (result_.scenario == Scenario::kClosedLoop) load.max_concurrency = result_.concurrency;
  SimulateOptions so;
  so.trace = trace;
  so.token_events = false;  // the figures read here need no ITL
  FRONTIER_ASSIGN_OR_RETURN(RunResult run, sim::Simulate(c, requests_, load, so));
  if ((result_.scenario == Scenario::kOffline || result_.scenario == Scenario::kServer) &&
      (trace->first_finish < 0 || static_cast<size_t>(trace->first_finish + 1) >= trace->LastFirstTokenEnd()))
    return FailedPrecondition(result_.id + ": " + std::to_string(requests_.size()) +
                              " offline requests never reach a steady state (the engine holds them all at once); "
                              "raise --offline-requests");
  for (const auto& r : run.requests)
    if (!r.ok)
      return FailedPrecondition(result_.id + ": the simulated run lost request " + std::to_string(r.id) + " (" +
                                r.failure_detail + ")");
  if (result_.scenario != Scenario::kServer) {
    metrics::SummaryOptions sopt;
    sopt.num_gpus = c.gpus;
    const metrics::Summary s = metrics::Summarize(run, sopt);
    if (s.tpot_ms.count > 0) median_tpot_ms_ = s.tpot_ms.median;
    median_ttft_ms_ = s.ttft_ms.median;
  }
  return Replay(params);
}

Result<double> ResultModel::Simulate(const StackParams& params) {
  if (simulated_at_ && *simulated_at_ == params) return simulated_;
  simulated_at_.reset();
  FRONTIER_ASSIGN_OR_RETURN(simulated_, SimulateAt(params));
  simulated_at_ = params;
  return simulated_;
}

Result<double> ResultModel::SimulateAt(const StackParams& params) {
  trace_ = StepTrace{};
  resolution_ = 0;
  FRONTIER_ASSIGN_OR_RETURN(double steady, SimulateOffline(params, &trace_));
  if (result_.scenario != Scenario::kServer) return steady;

  // Bisect the Poisson rate between 0.6 and 1.05 x the offline steady state
  // (a rate above it cannot be sustained; published Server results run
  // 2-20 % below Offline). Tighter limits than Server's (MLPerf Interactive:
  // 450 ms TTFT and 40 ms TPOT) can hold only far below Offline: when no
  // rate of that bracket meets them, the rate halves until one does, and the
  // bisection runs between it and the last that did not.
  FRONTIER_ASSIGN_OR_RETURN(const SimConfig c, WithStackParams(config_, params));
  const double mean_output = [&] {
    double m = 0;
    for (const auto& q : server_requests_) m += q.output_len;
    return m / static_cast<double>(server_requests_.size());
  }();
  // Whether the latency limits hold at `rate`; keeps that run's medians when they do.
  auto meets_at = [&](double rate) -> Result<bool> {
    workload::LoadOptions load;
    load.request_rate = rate;
    load.seed = options_.seed + 2;
    load.num_prompts = static_cast<int64_t>(server_requests_.size());
    SimulateOptions lean;
    lean.token_events = false;  // TTFT and TPOT only
    FRONTIER_ASSIGN_OR_RETURN(RunResult run, sim::Simulate(c, server_requests_, load, lean));
    // The first quarter of the Poisson stream brings the engine up to its
    // steady load: that transient is left out of the latency percentiles.
    // (Not the load core's warm-up, which is a phase of its own before the
    // arrival plan starts and would leave the engine empty again.)
    const auto transient = static_cast<int64_t>(server_requests_.size()) / 4;
    for (auto& r : run.requests) r.warmup = r.id < transient;
    metrics::SummaryOptions so;
    so.num_gpus = c.gpus;
    so.percentiles = {50, 99};
    const metrics::Summary s = metrics::Summarize(run, so);
    const double ttft99 = s.ttft_ms.At(99).value_or(0), tpot99 = s.tpot_ms.At(99).value_or(0);
    const bool meets = s.failed == 0 && (result_.ttft_p99_limit_ms <= 0 || ttft99 <= result_.ttft_p99_limit_ms) &&
                       (result_.tpot_p99_limit_ms <= 0 || tpot99 <= result_.tpot_p99_limit_ms);
    if (meets) {
      median_ttft_ms_ = s.ttft_ms.median;
      median_tpot_ms_ = s.tpot_ms.median;
    }
    return meets;
  };
  // A re-simulation (calibration's outer rounds) starts from the last ratio:
  // a narrower bracket, fewer probes for the same resolution.
  const bool warm = server_ratio_ != 1.0;
  const double lo_ratio = warm ? std::max(0.01, server_ratio_ - 0.08) : 0.6;
  const double hi_ratio = warm ? std::min(1.05, server_ratio_ + 0.04) : 1.05;
  double lo = lo_ratio * steady / mean_output, hi = hi_ratio * steady / mean_output;
  const int probes = warm ? std::max(1, options_.server_probes - 2) : options_.server_probes;
  // `n` bisection steps between lo (met, or the bracket's bottom) and hi; whether any step met the limits.
  auto bisect = [&](int n) -> Result<bool> {
    bool any = false;
    for (int i = 0; i < n; ++i) {
      const double mid = (lo + hi) / 2;
      FRONTIER_ASSIGN_OR_RETURN(const bool meets, meets_at(mid));
      (meets ? lo : hi) = mid;
      any = any || meets;
    }
    return any;
  };
  FRONTIER_ASSIGN_OR_RETURN(bool met, bisect(probes));
  if (!met && warm) {
    // The ratio moved below the warm bracket: search the whole range again.
    server_ratio_ = 1.0;
    return SimulateAt(params);
  }
  if (!met) {
    // Below the bracket: halve from its lowest failing rate (at most 6 times,
    // to 1 % of Offline), then bisect between the first rate that met the
    // limits and the last that did not.
    double failing = lo_ratio * steady / mean_output;
    for (int k = 0; k < 6 && !met; ++k) {
      FRONTIER_ASSIGN_OR_RETURN(met, meets_at(failing / 2));
      if (met) {
        lo = failing / 2;
        hi = failing;
      } else {
        failing /= 2;
      }
    }
    if (met) {
      FRONTIER_RETURN_IF_ERROR(bisect(options_.server_probes).status());  // lo already meets them
    }
  }
  if (!met) return FailedPrecondition(result_.id + ": no request rate met the latency limits");
  request_rate_ = lo;
  // Sustained throughput at that rate: every request completes (the limits
  // held), so output tokens flow at rate x mean output length.
  const double server = lo * mean_output;
  server_ratio_ = server / steady;
  resolution_ = (hi - lo) / lo;
  return server;
}

double ResultModel::Replay(const StackParams& params) const {
  SimConfig c = config_;
  c.stack.params = params;
  const StepModel model(c);
  if (result_.scenario == Scenario::kOffline || result_.scenario == Scenario::kServer) {
    // Steady state: from the first completion (the batch has turned over)
    // to the last request's first token (the queue is empty; the drain follows).
    const size_t begin = static_cast<size_t>(trace_.first_finish + 1);
    const size_t end = trace_.LastFirstTokenEnd();
    const double seconds = static_cast<double>(trace_.StepNanos(model, begin, end)) / 1e9;
    const double steady = seconds > 0 ? static_cast<double>(trace_.Emitted(begin, end)) / seconds : 0;
    return result_.scenario == Scenario::kServer ? steady * server_ratio_ : steady;
  }
  return ReplayMetrics(params).output_tokens_per_s;
}

ResultModel::Metrics ResultModel::ReplayMetrics(const StackParams& params) const {
  Metrics out;
  if (result_.scenario == Scenario::kOffline || result_.scenario == Scenario::kServer) {
    out.output_tokens_per_s = Replay(params);
    return out;
  }
  SimConfig c = config_;
  c.stack.params = params;
  const StepModel model(c);
  double total_ns = static_cast<double>(trace_.idle_ns), seq_ns = 0, decode_tokens = 0;
  int64_t emitted = 0;
  for (size_t i = 0; i < trace_.entries.size(); ++i) {
    const auto& e = trace_.entries[i];
    const double ns = static_cast<double>(trace_.StepNanos(model, i, i + 1));
    total_ns += ns;
    emitted += e.emitted;
    // Each decoding sequence waits this step's duration for its next tokens.
    seq_ns += ns / static_cast<double>(e.count) * static_cast<double>(e.shape.decode_seqs);
    decode_tokens += static_cast<double>(e.emitted - e.firsts);
  }
  if (total_ns <= 0) return out;
  out.output_tokens_per_s = static_cast<double>(emitted) / (total_ns / 1e9);
  if (decode_tokens > 0) out.mean_tpot_ms = seq_ns / decode_tokens / 1e6;
  const double n = static_cast<double>(requests_.size());
  const double in_flight = result_.scenario == Scenario::kClosedLoop
                               ? std::min<double>(static_cast<double>(result_.concurrency), n)
                               : n;
  double mean_output = 0;
  for (const auto& q : requests_) mean_output += q.output_len;
  mean_output /= n;
  const double e2e_ms = in_flight * total_ns / n / 1e6;
  out.mean_ttft_ms = std::max(1.0, e2e_ms - (mean_output - 1) * out.mean_tpot_ms);
  return out;
}

Result<Prediction> Predict(const PublishedResult& r, const ValidationSet& set, const ValidationOptions& o,
                           const Stack* stack) {
  FRONTIER_ASSIGN_OR_RETURN(ResultModel m, ResultModel::Create(r, set, o, stack));
  Prediction out;
  out.published = r;
  out.model_class = ModelClass(m.config().model);
  FRONTIER_ASSIGN_OR_RETURN(out.output_tokens_per_s, m.Simulate(m.config().stack.params));
  out.error = out.output_tokens_per_s / r.value - 1.0;
  out.median_tpot_ms = m.median_tpot_ms();
  out.median_ttft_ms = m.median_ttft_ms();
  out.request_rate = m.request_rate();
  return out;
}

std::string ValidationOptionsProblem(const ValidationOptions& o) {
  for (const auto& [flag, value] : {std::pair{"--offline-requests", o.offline_requests},
                                    std::pair{"--server-requests", o.server_requests}})
    if (Status in = CheckRange(flag, value, 100, 1'000'000); !in.ok()) return in.message();
  return "";
}

}  // namespace frontier::sim
