#include "metrics/result_json.h"

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <utility>

#include "core/atomic_file.h"
#include "core/limits.h"
#include "core/parse.h"
#include "core/redact.h"
#include "core/version.h"
#include "metrics/json_fields.h"

namespace frontier::metrics {
namespace {

using nlohmann::json;

struct NamedDistribution {
  const char* name;
  Distribution Summary::*field;
};

// vLLM's four metrics first, then frontier's two.
constexpr NamedDistribution kDistributions[] = {
    {"ttft", &Summary::ttft_ms},   {"tpot", &Summary::tpot_ms},
    {"itl", &Summary::itl_ms},     {"e2el", &Summary::e2el_ms},
    {"icl", &Summary::icl_ms},     {"client_queue_time", &Summary::client_queue_ms},
};

// The token totals by key, written and read back alike (bounded by kMaxTokens).
constexpr std::pair<const char*, int64_t Summary::*> kTokenTotals[] = {
    {"total_input_tokens", &Summary::total_input_tokens}, {"total_output_tokens", &Summary::total_output_tokens}};

// An energy's optional figures by key (absent: 0), with the bound each is read with.
struct EnergyFigure {
  const char* key;
  double EnergyMeasurement::*member;
  double max;
};
constexpr EnergyFigure kEnergyFigures[] = {
    {"mean_power_w", &EnergyMeasurement::mean_w, bounds::kMaxPowerW},
    {"peak_power_w", &EnergyMeasurement::peak_w, bounds::kMaxPowerW},
    {"window_s", &EnergyMeasurement::window_s, bounds::kMaxDurationS},
    {"interval_s", &EnergyMeasurement::interval_s, bounds::kMaxDurationS},
};

void PutDistribution(json& j, const std::string& name, const Distribution& d) {
  j["mean_" + name + "_ms"] = d.mean;
  j["median_" + name + "_ms"] = d.median;
  j["std_" + name + "_ms"] = d.std;
  for (const auto& [p, v] : d.percentiles) j[PercentileKey(p) + "_" + name + "_ms"] = v;
}

// A distribution's mean, median, std and every p<P> key, each in [0, kMaxLatencyMs].
Result<Distribution> ReadDistribution(const JsonFields& f, const json& doc, const std::string& name) {
  Distribution d;
  const std::pair<const char*, double Distribution::*> moments[] = {
      {"mean_", &Distribution::mean}, {"median_", &Distribution::median}, {"std_", &Distribution::std}};
  for (const auto& [prefix, member] : moments) {
    FRONTIER_ASSIGN_OR_RETURN(std::optional<double> v, f.Number(prefix + name + "_ms", 0, bounds::kMaxLatencyMs));
    d.*member = v.value_or(0);
  }
  const std::string suffix = "_" + name + "_ms";
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string& k = it.key();
    if (k.size() <= suffix.size() + 1 || k[0] != 'p' || it->is_null()) continue;
    if (k.compare(k.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string num = k.substr(1, k.size() - 1 - suffix.size());
    char* end = nullptr;
    const double p = std::strtod(num.c_str(), &end);
    if (end != num.c_str() + num.size() || !(p >= 0 && p <= 100)) continue;
    FRONTIER_ASSIGN_OR_RETURN(const double v, f.Value(*it, k, 0, bounds::kMaxLatencyMs));
    d.percentiles.emplace_back(p, v);
  }
  std::sort(d.percentiles.begin(), d.percentiles.end());
  return d;
}

// {reason: count} with every count in [0, kMaxRequests].
Result<std::map<std::string, int64_t>> ReadCounts(const JsonFields& f, const std::string& key) {
  std::map<std::string, int64_t> out;
  const json* v = f.Find(key);
  if (v == nullptr) return out;
  if (!v->is_object())
    return InvalidArgument(f.where() + ": " + key + " must be an object of counts, got " + ShownJson(*v));
  for (auto it = v->begin(); it != v->end(); ++it) {
    FRONTIER_ASSIGN_OR_RETURN(out[it.key()], f.IntegerValue(*it, key + "." + it.key(), 0, bounds::kMaxRequests));
  }
  return out;
}

// The per-request lists (vLLM's --save-detailed), times in seconds.
Result<std::vector<ResultRequest>> ReadRequests(const JsonFields& f) {
  std::vector<ResultRequest> rows;
  const json* ttfts = f.Find("ttfts");
  if (ttfts == nullptr) return rows;
  const std::string& file = f.where();
  if (!ttfts->is_array()) return InvalidArgument(file + ": ttfts must be a list of seconds, got " + ShownJson(*ttfts));
  const size_t n = ttfts->size();
  // Every other per-request list, when present, is a list with one entry per request.
  for (const char* key : {"itls", "input_lens", "output_lens", "errors"}) {
    const json* v = f.Find(key);
    if (v == nullptr) continue;
    if (!v->is_array()) {
      return InvalidArgument(file + ": " + key + " must be a list with one entry per request, got " + ShownJson(*v));
    }
    if (v->size() != n) {
      return InvalidArgument(file + ": " + key + " has " + std::to_string(v->size()) + " entries but ttfts has " +
                             std::to_string(n) + "; the per-request lists must be as long as each other");
    }
  }
  const json* itls = f.Find("itls");
  const json* inputs = f.Find("input_lens");
  const json* outputs = f.Find("output_lens");
  const json* errors = f.Find("errors");
  constexpr int64_t kTokens = bounds::kMaxRequestTokens;
  constexpr double kMaxRequestSeconds = bounds::kMaxLatencyMs / 1000.0;
  rows.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    ResultRequest r;
    if (inputs) {
      FRONTIER_ASSIGN_OR_RETURN(r.input_len, f.IntegerValue((*inputs)[i], "input_lens" + at, 0, kTokens));
    }
    if (outputs) {
      FRONTIER_ASSIGN_OR_RETURN(r.output_len, f.IntegerValue((*outputs)[i], "output_lens" + at, 0, kTokens));
    }
    FRONTIER_ASSIGN_OR_RETURN(r.ttft_s, f.Value((*ttfts)[i], "ttfts" + at, 0, kMaxRequestSeconds));
    r.end_s = r.ttft_s;
    if (itls) {
      const json& gaps = (*itls)[i];
      if (!gaps.is_array())
        return InvalidArgument(file + ": itls" + at + " must be a list of seconds, got " + ShownJson(gaps));
      if (gaps.size() > static_cast<size_t>(kTokens))
        return InvalidArgument(file + ": itls" + at + " has more entries than a request has tokens");
      for (size_t k = 0; k < gaps.size(); ++k) {
        FRONTIER_ASSIGN_OR_RETURN(const double g, f.Value(gaps[k], "itls" + at + "[" + std::to_string(k) + "]",
                                                         0, kMaxRequestSeconds));
        r.end_s += g;
      }
      if (r.end_s > kMaxRequestSeconds) {
        return InvalidArgument(file + ": request " + std::to_string(i) + " lasts " + FormatNumber(r.end_s) +
                               " s (ttft + itls), more than the " + FormatNumber(kMaxRequestSeconds) + " s bound");
      }
    }
    if (errors && !(*errors)[i].is_string() && !(*errors)[i].is_null())
      return InvalidArgument(file + ": errors" + at + " must be a string, got " + ShownJson((*errors)[i]));
    if (r.ttft_s > 0) r.chunks = 1 + (itls ? static_cast<int32_t>((*itls)[i].size()) : 0);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

json SummaryToJson(const Summary& s) {
  json j = json::object();
  j["duration"] = s.duration_s;
  j["completed"] = s.completed;
  j["failed"] = s.failed;
  for (const auto& [key, member] : kTokenTotals) j[key] = s.*member;
  j["request_throughput"] = s.request_throughput;
  if (s.goodput_requested) {
    j["request_goodput"] = s.request_goodput;
  } else {
    j["request_goodput"] = nullptr;  // vLLM writes null when no SLO is given
  }
  j["output_throughput"] = s.output_throughput;
  j["total_token_throughput"] = s.total_token_throughput;
  j["max_concurrent_requests"] = s.max_concurrent_requests;
  for (const auto& nd : kDistributions) PutDistribution(j, nd.name, s.*(nd.field));
  j["interactivity"] = s.interactivity;
  j["output_throughput_per_gpu"] = s.output_throughput_per_gpu;
  j["total_token_throughput_per_gpu"] = s.total_token_throughput_per_gpu;
  j["warmup_requests"] = s.warmup;
  j["usage_from_server"] = s.usage_from_server;
  j["failures_by_reason"] = json::object();
  for (const auto& [reason, n] : s.failures_by_reason) j["failures_by_reason"][reason] = n;
  // Written only when they apply, so single-turn results keep their fields.
  if (s.cancelled > 0) j["cancelled"] = s.cancelled;
  if (s.ideal_prefix_hit_rate >= 0) {
    j["ideal_prefix_hit_rate"] = s.ideal_prefix_hit_rate;
    j["ideal_hit_block_tokens"] = s.ideal_hit_block_tokens;
  }
  if (s.has_sessions) {
    j["sessions_completed"] = s.sessions_completed;
    j["sessions_failed"] = s.sessions_failed;
    j["session_end_reasons"] = json::object();
    for (const auto& [reason, n] : s.session_end_reasons) j["session_end_reasons"][reason] = n;
    PutDistribution(j, "turn_ttft", s.turn_ttft_ms);
    PutDistribution(j, "turn_e2el", s.turn_e2el_ms);
    PutDistribution(j, "session_latency", s.session_latency_ms);
  }
  if (s.energy) {
    j["energy"] = EnergyToJson(*s.energy);
    j["tokens_per_joule"] = s.tokens_per_joule;
    j["output_tokens_per_joule"] = s.output_tokens_per_joule;
  }
  // The steady-state span's throughputs beside the whole run's (null: no steady span).
  const Timeslices& ts = s.timeslices;
  j["steady_output_throughput"] = ts.steady ? json(ts.steady_output_throughput) : json(nullptr);
  j["steady_request_throughput"] = ts.steady ? json(ts.steady_request_throughput) : json(nullptr);
  return j;
}

json EnergyToJson(const EnergyMeasurement& e) {
  json j = json::object();
  j["source"] = e.source;
  j["label"] = MeasuredEnergyLabel(e.source);
  j["method"] = e.method;
  j["joules"] = e.joules;
  for (const auto& figure : kEnergyFigures) j[figure.key] = e.*figure.member;
  j["samples"] = e.samples;
  j["devices"] = json::array();
  for (const auto& d : e.devices)
    j["devices"].push_back(
        {{"name", d.name}, {"joules", d.joules}, {"mean_power_w", d.mean_w}, {"peak_power_w", d.peak_w}});
  if (e.phases) {
    const auto phase = [](const EnergyPhase& p) {
      return json{{"windows", p.windows},
                  {"seconds", p.seconds},
                  {"joules", p.joules},
                  {"mean_power_w", p.seconds > 0 ? p.joules / p.seconds : 0.0},
                  {"prompt_tokens", p.prompt_tokens},
                  {"output_tokens", p.output_tokens}};
    };
    j["phases"] = {{"slice_s", e.phases->slice_s},
                   {"prefill", phase(e.phases->prefill)},
                   {"decode", phase(e.phases->decode)},
                   {"idle", phase(e.phases->idle)},
                   {"decode_joules_per_output_token", e.phases->decode_joules_per_output_token},
                   {"prefill_joules_per_prompt_token_estimate", e.phases->prefill_joules_per_prompt_token}};
  }
  return j;
}

namespace {

// The fields of `j`, named `where` in messages; InvalidArgument unless `j` is an object.
Result<JsonFields> ObjectFields(const json& j, const std::string& where) {
  if (!j.is_object()) return InvalidArgument(where + " must be an object");
  return JsonFields(j, where);
}

// The "phases" object of a result's energy (EnergyToJson), read with the bounds
// of the rest of the energy.
Result<EnergyPhases> PhasesFromJson(const json& j, const std::string& where) {
  using namespace bounds;
  FRONTIER_ASSIGN_OR_RETURN(const JsonFields f, ObjectFields(j, where));
  EnergyPhases out;
  FRONTIER_ASSIGN_OR_RETURN(out.slice_s, f.RequiredNumber("slice_s", 0, kMaxDurationS, "a frontier result's energy"));
  const auto phase = [&](const char* name, EnergyPhase* p) -> Status {
    const json* x = f.Find(name);
    if (x == nullptr) return Status::Ok();
    FRONTIER_ASSIGN_OR_RETURN(const JsonFields g, ObjectFields(*x, where + "." + name));
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> w, g.Integer("windows", 0, kMaxRequests));
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> s, g.Number("seconds", 0, kMaxDurationS));
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> e, g.Number("joules", 0, kMaxEnergyJ));
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> pt, g.Integer("prompt_tokens", 0, kMaxTokens));
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> ot, g.Integer("output_tokens", 0, kMaxTokens));
    p->windows = w.value_or(0);
    p->seconds = s.value_or(0);
    p->joules = e.value_or(0);
    p->prompt_tokens = pt.value_or(0);
    p->output_tokens = ot.value_or(0);
    return Status::Ok();
  };
  FRONTIER_RETURN_IF_ERROR(phase("prefill", &out.prefill));
  FRONTIER_RETURN_IF_ERROR(phase("decode", &out.decode));
  FRONTIER_RETURN_IF_ERROR(phase("idle", &out.idle));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> d, f.Number("decode_joules_per_output_token", 0, kMaxEnergyJ));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> pp,
                            f.Number("prefill_joules_per_prompt_token_estimate", 0, kMaxEnergyJ));
  out.decode_joules_per_output_token = d.value_or(0);
  out.prefill_joules_per_prompt_token = pp.value_or(0);
  return out;
}

}  // namespace

Result<EnergyMeasurement> EnergyFromJson(const json& j, const std::string& where) {
  using namespace bounds;
  FRONTIER_ASSIGN_OR_RETURN(const JsonFields f, ObjectFields(j, where));
  EnergyMeasurement e;
  FRONTIER_ASSIGN_OR_RETURN(e.source, f.Name("source"));
  if (e.source.empty()) return InvalidArgument(where + ": field 'source' is missing (nvml, amdsmi, rapl or scrape)");
  FRONTIER_ASSIGN_OR_RETURN(e.method, f.Name("method"));
  FRONTIER_ASSIGN_OR_RETURN(e.joules, f.RequiredNumber("joules", 0, kMaxEnergyJ, "a frontier result's energy"));
  for (const auto& figure : kEnergyFigures) {
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> v, f.Number(figure.key, 0, figure.max));
    e.*figure.member = v.value_or(0);
  }
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> samples, f.Integer("samples", 0, kMaxRequests));
  e.samples = samples.value_or(0);
  if (const json* devices = f.Find("devices")) {
    if (!devices->is_array() || devices->size() > static_cast<size_t>(kMaxGpus))
      return InvalidArgument(where + ": devices must be an array of at most " + std::to_string(kMaxGpus) + " objects");
    for (size_t i = 0; i < devices->size(); ++i) {
      FRONTIER_ASSIGN_OR_RETURN(const JsonFields d,
                                ObjectFields((*devices)[i], where + ".devices[" + std::to_string(i) + "]"));
      EnergyDevice dev;
      FRONTIER_ASSIGN_OR_RETURN(dev.name, d.Name("name"));
      FRONTIER_ASSIGN_OR_RETURN(dev.joules, d.RequiredNumber("joules", 0, kMaxEnergyJ, "a frontier result's energy"));
      FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> dm, d.Number("mean_power_w", 0, kMaxPowerW));
      FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> dp, d.Number("peak_power_w", 0, kMaxPowerW));
      dev.mean_w = dm.value_or(0);
      dev.peak_w = dp.value_or(0);
      e.devices.push_back(std::move(dev));
    }
  }
  if (const json* phases = f.Find("phases")) {
    FRONTIER_ASSIGN_OR_RETURN(EnergyPhases p, PhasesFromJson(*phases, where + ".phases"));
    e.phases = std::move(p);
  }
  return e;
}

json ResultLoadToJson(const ResultLoad& load) {
  json j = json::object();
  j["request_rate"] = std::isinf(load.request_rate) ? json("inf") : json(load.request_rate);  // JSON has no infinity
  j["burstiness"] = load.burstiness;
  j["max_concurrency"] = load.max_concurrency ? json(*load.max_concurrency) : json(nullptr);
  j["num_prompts"] = load.num_prompts ? json(*load.num_prompts) : json(nullptr);
  return j;
}

json ResultToJson(const RunResult& run, const Summary& s, const SummaryOptions& o,
                  const json* extra) {
  json j = SummaryToJson(s);
  j["date"] = run.start_time_utc;
  j["model_id"] = run.model;
  j["num_gpus"] = std::max(1, o.num_gpus);
  if (!s.timeslices.slices.empty()) j["timeslices"] = TimeslicesToJson(s.timeslices);
  if (extra && extra->is_object()) {
    for (auto it = extra->begin(); it != extra->end(); ++it) j[it.key()] = *it;
  }

  json f = json::object();
  f["format_version"] = kResultFormatVersion;
  f["version"] = run.frontier_version.empty() ? std::string(kVersion) : run.frontier_version;
  // Secrets stay in the process (core/redact.h): result files are shared.
  f["command_line"] = RedactCommandLine(run.command_line);
  f["source"] = RunSourceName(run.source);
  f["base_url"] = RedactUrl(run.base_url);
  f["endpoint"] = run.endpoint;
  f["model"] = run.model;
  f["served_model"] = run.served_model;
  f["start_time_utc"] = run.start_time_utc;
  f["host"] = run.host;
  f["num_gpus"] = run.num_gpus;
  f["percentiles"] = o.percentiles;
  f["requested_settings"] = RedactProvenance(run.requested_settings);
  f["effective_settings"] = RedactProvenance(run.effective_settings);
  f["interrupted"] = run.interrupted;
  j["frontier"] = std::move(f);
  if (run.server_metrics) j["server_metrics"] = ServerMetricsToJson(*run.server_metrics);
  if (run.band) j.update(BandToJson(*run.band));
  return j;
}

json BandToJson(const PredictionBand& band) {
  return {{"band_half_width", band.half_width},
          {"band_points", band.points},
          {"band_basis", band.basis},
          {"band_flags", band.flags}};
}

Result<std::optional<PredictionBand>> ReadBand(const json& doc, const std::string& where) {
  const JsonFields f(doc, where);
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> half, f.Number("band_half_width", 0, kMaxBandHalfWidth));
  if (!half) return std::optional<PredictionBand>();
  PredictionBand b;
  b.half_width = *half;
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> points, f.Integer("band_points", 0, kMaxBandPoints));
  b.points = static_cast<int>(points.value_or(0));
  FRONTIER_ASSIGN_OR_RETURN(b.basis, f.Name("band_basis"));
  if (const json* flags = f.Find("band_flags"); flags != nullptr) {
    if (!flags->is_array()) return InvalidArgument(where + ": band_flags must be an array of strings");
    for (const json& x : *flags) {
      if (!x.is_string()) return InvalidArgument(where + ": band_flags must be an array of strings");
      b.flags.push_back(x.get<std::string>());
    }
  }
  return std::optional<PredictionBand>(std::move(b));
}

json ServerMetricsToJson(const ServerMetrics& m) {
  json j = json::object();
  j["source"] = m.source;
  j["kind"] = m.kind;
  auto or_null = [](double v) { return v < 0 ? json(nullptr) : json(v); };
  j["prefix_cache_queries"] = or_null(m.prefix_cache_queries);
  j["prefix_cache_hits"] = or_null(m.prefix_cache_hits);
  j["prefix_cache_hit_rate"] = or_null(m.prefix_cache_hit_rate);
  j["scrapes"] = m.scrapes;
  j["scrape_failures"] = m.scrape_failures;
  if (!m.last_error.empty()) j["last_error"] = m.last_error;
  // Samples as columns: one time axis, one array per series (null where a
  // scrape lacked it), so a long run stays compact and easy to plot.
  json t = json::array();
  std::map<std::string, json> series;
  for (const auto& s : m.samples)
    for (const auto& [k, v] : s.values) series.try_emplace(k, json::array());
  for (const auto& s : m.samples) {
    t.push_back(static_cast<double>(s.t_ns) / 1e9);
    for (auto& [k, col] : series) {
      auto it = s.values.find(k);
      col.push_back(it == s.values.end() || !std::isfinite(it->second) ? json(nullptr) : json(it->second));
    }
  }
  json samples = json::object();
  samples["t_s"] = std::move(t);
  for (auto& [k, col] : series) samples[k] = std::move(col);
  j["samples"] = std::move(samples);
  return j;
}

Status WriteResultJson(const std::string& path, const RunResult& run, const Summary& s,
                       const SummaryOptions& o, const json* extra) {
  return WriteFileAtomically(path, ResultToJson(run, s, o, extra).dump(2) + "\n");
}

std::vector<std::pair<std::string, double>> LatencyStats(const json& summary, const std::string& metric) {
  std::vector<std::pair<std::string, double>> out;
  if (!summary.is_object()) return out;
  const std::string suffix = "_" + metric + "_ms";
  std::vector<std::tuple<double, std::string, double>> stats;  // (order, stat, value)
  for (auto it = summary.begin(); it != summary.end(); ++it) {
    const std::string& k = it.key();
    if (!it->is_number() || k.size() <= suffix.size() ||
        k.compare(k.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string stat = k.substr(0, k.size() - suffix.size());
    double order = 0;
    if (stat == "mean") {
      order = -2;
    } else if (stat == "std") {
      order = -1;
    } else if (stat == "median") {
      order = 50;
    } else if (stat.size() > 1 && stat[0] == 'p') {
      const std::string num = stat.substr(1);
      char* end = nullptr;
      order = std::strtod(num.c_str(), &end);
      if (end != num.c_str() + num.size() || !(order >= 0 && order <= 100)) continue;
    } else {
      continue;
    }
    stats.emplace_back(order, stat, it->get<double>());
  }
  std::sort(stats.begin(), stats.end());
  for (auto& [order, stat, value] : stats) out.emplace_back(std::move(stat), value);
  return out;
}

Result<ResultDocument> ReadResultDocument(const json& doc, const std::string& where) {
  using namespace bounds;
  if (!doc.is_object()) return InvalidArgument(where + ": a result is one JSON object");
  const JsonFields f(doc, where);
  ResultDocument d;
  FRONTIER_ASSIGN_OR_RETURN(d.model_id, f.Name("model_id"));
  FRONTIER_ASSIGN_OR_RETURN(d.backend, f.Name("backend"));
  FRONTIER_ASSIGN_OR_RETURN(d.date, f.Name("date"));
  FRONTIER_ASSIGN_OR_RETURN(d.max_concurrency, f.Integer("max_concurrency", 1, kMaxConcurrency));
  if (const json* r = f.Find("request_rate")) {
    if (r->is_string() && (*r == "inf" || *r == "Infinity")) {
      d.request_rate = std::numeric_limits<double>::infinity();
    } else {
      FRONTIER_ASSIGN_OR_RETURN(d.request_rate, f.Number("request_rate", 1e-9, kMaxRequestRate));
    }
  }
  FRONTIER_ASSIGN_OR_RETURN(d.burstiness, f.Number("burstiness", 1e-9, 1e9));
  for (const char* k : {"num_prompts", "request_rate", "burstiness", "max_concurrency", "tokenizer_id"}) {
    FRONTIER_ASSIGN_OR_RETURN(std::string v, f.Text(k));
    if (f.Find(k)) d.settings[k] = v;
  }

  Summary& s = d.summary;
  FRONTIER_ASSIGN_OR_RETURN(s.completed, f.RequiredInteger("completed", 0, kMaxRequests, kResultHint));
  FRONTIER_ASSIGN_OR_RETURN(d.num_prompts, f.Integer("num_prompts", 1, kMaxRequests));
  if (d.num_prompts && s.completed > *d.num_prompts) {
    return InvalidArgument(where + ": completed (" + std::to_string(s.completed) + ") exceeds num_prompts (" +
                           std::to_string(*d.num_prompts) + "); the file contradicts itself");
  }
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> failed, f.Integer("failed", 0, kMaxRequests));
  s.failed = failed ? *failed : d.num_prompts ? *d.num_prompts - s.completed : 0;
  const std::pair<const char*, int64_t Summary::*> counts[] = {
      {"warmup_requests", &Summary::warmup}, {"cancelled", &Summary::cancelled}};
  for (const auto& [key, member] : counts) {
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> v, f.Integer(key, 0, kMaxRequests));
    s.*member = v.value_or(0);
  }
  for (const auto& [key, member] : kTokenTotals) {
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> v, f.Integer(key, 0, kMaxTokens));
    s.*member = v.value_or(0);
  }
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> duration, f.Number("duration", 0, kMaxDurationS));
  s.duration_s = duration.value_or(0);
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> req_tput,
                            f.Number("request_throughput", 0, kMaxThroughput));
  s.request_throughput = req_tput.value_or(0);
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> goodput, f.Number("request_goodput", 0, kMaxThroughput));
  s.goodput_requested = goodput.has_value();  // vLLM writes null when no SLO was given
  s.request_goodput = goodput.value_or(0);
  FRONTIER_ASSIGN_OR_RETURN(s.output_throughput,
                            f.RequiredNumber("output_throughput", 0, kMaxThroughput, kResultHint));
  FRONTIER_ASSIGN_OR_RETURN(s.total_token_throughput,
                            f.RequiredNumber("total_token_throughput", 0, kMaxThroughput, kResultHint));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> gpus, f.Integer("num_gpus", 1, kMaxGpus));
  const double n_gpus = static_cast<double>(gpus.value_or(1));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> out_per_gpu,
                            f.Number("output_throughput_per_gpu", 0, kMaxThroughput));
  s.output_throughput_per_gpu = out_per_gpu.value_or(s.output_throughput / n_gpus);
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> total_per_gpu,
                            f.Number("total_token_throughput_per_gpu", 0, kMaxThroughput));
  s.total_token_throughput_per_gpu = total_per_gpu.value_or(s.total_token_throughput / n_gpus);
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> peak,
                            f.Number("max_concurrent_requests", 0, static_cast<double>(kMaxRequests)));
  s.max_concurrent_requests = static_cast<int64_t>(peak.value_or(0));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<bool> usage, f.Bool("usage_from_server"));
  if (usage) s.usage_from_server = *usage;
  for (const auto& nd : kDistributions) {
    FRONTIER_ASSIGN_OR_RETURN(s.*(nd.field), ReadDistribution(f, doc, nd.name));
  }
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> interactivity,
                            f.Number("interactivity", 0, kMaxThroughput));
  s.interactivity = interactivity.value_or(s.tpot_ms.median > 0 ? 1000.0 / s.tpot_ms.median : 0.0);
  FRONTIER_ASSIGN_OR_RETURN(s.failures_by_reason, ReadCounts(f, "failures_by_reason"));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> ideal, f.Number("ideal_prefix_hit_rate", 0, 1));
  s.ideal_prefix_hit_rate = ideal.value_or(-1);
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> ideal_block,
                            f.Integer("ideal_hit_block_tokens", 0, kMaxRequestTokens));
  s.ideal_hit_block_tokens = static_cast<int>(ideal_block.value_or(0));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> steady_out,
                            f.Number("steady_output_throughput", 0, kMaxThroughput));
  if (steady_out) {
    s.timeslices.steady = true;
    s.timeslices.steady_output_throughput = *steady_out;
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<double> steady_req,
                              f.Number("steady_request_throughput", 0, kMaxThroughput));
    s.timeslices.steady_request_throughput = steady_req.value_or(0);
  }
  if (const json* e = f.Find("energy")) {
    FRONTIER_ASSIGN_OR_RETURN(EnergyMeasurement m, EnergyFromJson(*e, where + ": energy"));
    if (m.joules > 0) {
      s.energy = std::move(m);
      s.tokens_per_joule = static_cast<double>(s.total_input_tokens + s.total_output_tokens) / s.energy->joules;
      s.output_tokens_per_joule = static_cast<double>(s.total_output_tokens) / s.energy->joules;
    }
  }
  if (f.Find("sessions_completed") != nullptr) {
    s.has_sessions = true;
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> done, f.Integer("sessions_completed", 0, kMaxRequests));
    FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> lost, f.Integer("sessions_failed", 0, kMaxRequests));
    s.sessions_completed = done.value_or(0);
    s.sessions_failed = lost.value_or(0);
    FRONTIER_ASSIGN_OR_RETURN(s.session_end_reasons, ReadCounts(f, "session_end_reasons"));
    FRONTIER_ASSIGN_OR_RETURN(s.turn_ttft_ms, ReadDistribution(f, doc, "turn_ttft"));
    FRONTIER_ASSIGN_OR_RETURN(s.turn_e2el_ms, ReadDistribution(f, doc, "turn_e2el"));
    FRONTIER_ASSIGN_OR_RETURN(s.session_latency_ms, ReadDistribution(f, doc, "session_latency"));
  }
  FRONTIER_ASSIGN_OR_RETURN(d.requests, ReadRequests(f));
  FRONTIER_ASSIGN_OR_RETURN(d.band, ReadBand(doc, where));
  d.has_errors = f.Find("errors") != nullptr;
  return d;
}

Result<Summary> SummaryFromResultJson(const json& doc, const std::string& where) {
  FRONTIER_ASSIGN_OR_RETURN(ResultDocument d, ReadResultDocument(doc, where));
  return std::move(d.summary);
}

Result<Summary> ReadResultSummary(const std::string& path) {
  FRONTIER_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgument(path + ": not valid JSON");
  return SummaryFromResultJson(doc, path);
}

}  // namespace frontier::metrics
