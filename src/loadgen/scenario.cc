#include "loadgen/scenario.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/checked.h"
#include "core/clock.h"
#include "core/limits.h"
#include "core/name_table.h"
#include "core/parse.h"
#include "workload/arrival.h"

namespace frontier::loadgen {

constexpr NameEntry<Scenario> kScenarioNames[] = {
    {Scenario::kOffline, "offline"}, {Scenario::kServer, "server"}, {Scenario::kInteractive, "interactive"}};
constexpr NameEntry<LatencyMetric> kLatencyMetricNames[] = {
    {LatencyMetric::kTtft, "ttft"}, {LatencyMetric::kTpot, "tpot"}, {LatencyMetric::kE2el, "e2el"}};

const char* ScenarioName(Scenario s) { return NameOf(kScenarioNames, s); }

Result<Scenario> ParseScenario(std::string_view name) {
  if (std::optional<Scenario> s = ValueOf(kScenarioNames, name)) return *s;
  return InvalidArgument("--scenario must be " + NamesList(kScenarioNames) + ", got '" + std::string(name) + "'");
}

const char* LatencyMetricName(LatencyMetric m) { return NameOf(kLatencyMetricNames, m); }

namespace {

// A number that is all of `text`, finite.
std::optional<double> ToNumber(const std::string& text) {
  const Result<double> v =
      ParseNumber("", text, std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max());
  return v.ok() ? std::optional<double>(*v) : std::nullopt;
}

}  // namespace

Result<std::vector<LatencyConstraint>> ParseSlo(const std::vector<std::string>& items, const std::string& flag) {
  std::vector<LatencyConstraint> out;
  const std::string usage = " takes metric_pP:MS items (metric ttft, tpot or e2el; 0 < P < 100; MS > 0), e.g. "
                            "ttft_p99:450 tpot_p99:40";
  for (const std::string& item : items) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) return InvalidArgument(flag + usage + "; got '" + item + "'");
    const std::string key = item.substr(0, colon);
    const std::optional<double> ms = ToNumber(item.substr(colon + 1));
    if (!ms || !(*ms > 0)) return InvalidArgument(flag + usage + "; got '" + item + "' (the limit must be > 0 ms)");
    LatencyConstraint c;
    c.limit_ms = *ms;
    const size_t under = key.find("_p");
    const std::string metric = key.substr(0, under);
    if (metric == "ttft") {
      c.metric = LatencyMetric::kTtft;
    } else if (metric == "tpot") {
      c.metric = LatencyMetric::kTpot;
    } else if (metric == "e2el") {
      c.metric = LatencyMetric::kE2el;
    } else {
      return InvalidArgument(flag + usage + "; got metric '" + metric + "' in '" + item + "'");
    }
    if (under != std::string::npos) {
      const std::optional<double> p = ToNumber(key.substr(under + 2));
      if (!p || !(*p > 0 && *p < 100))
        return InvalidArgument(flag + usage + "; got percentile '" + key.substr(under + 2) + "' in '" + item + "'");
      c.percentile = *p;
    }
    for (const auto& seen : out)
      if (seen.metric == c.metric)
        return InvalidArgument(flag + " names " + metric + " twice; give each metric once");
    out.push_back(c);
  }
  return out;
}

std::string FormatConstraint(const LatencyConstraint& c) {
  return std::string(LatencyMetricName(c.metric)) + "_p" + FormatSignificant(c.percentile) + ":" +
         FormatSignificant(c.limit_ms);
}

Result<std::vector<MlperfBenchmark>> LoadMlperfBenchmarks(const std::string& data_dir) {
  const std::string path = data_dir + "/mlperf/benchmarks.json";
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return NotFound(path + ": cannot read the MLPerf benchmark table (" + text.status().message() +
                                  "); set FRONTIER_DATA_DIR to the data/ folder");
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("benchmarks") || !j["benchmarks"].is_array())
    return InvalidArgument(path + ": expected a JSON object with a \"benchmarks\" array");
  std::vector<MlperfBenchmark> out;
  for (const auto& b : j["benchmarks"]) {
    MlperfBenchmark m;
    if (!b.is_object() || !b.contains("name") || !b["name"].is_string())
      return InvalidArgument(path + ": every benchmark needs a \"name\" string");
    m.name = b["name"].get<std::string>();
    const std::string where = path + ": benchmark " + m.name + ": ";
    if (b.contains("models")) {
      if (!b["models"].is_array()) return InvalidArgument(where + "\"models\" must be an array of names");
      for (const auto& x : b["models"]) {
        if (!x.is_string()) return InvalidArgument(where + "\"models\" must be an array of names");
        m.models.push_back(x.get<std::string>());
      }
    }
    auto constraints = [&](const char* key, std::vector<LatencyConstraint>* dst) -> Status {
      if (!b.contains(key)) return Status::Ok();
      const auto& o = b[key];
      for (auto [field, metric] : {std::pair{"ttft_p99_ms", LatencyMetric::kTtft},
                                   std::pair{"tpot_p99_ms", LatencyMetric::kTpot}}) {
        if (!o.is_object() || !o.contains(field) || !o[field].is_number() || !(o[field].get<double>() > 0))
          return InvalidArgument(where + key + "." + field + " must be a number of ms > 0");
        dst->push_back({metric, 99, o[field].get<double>()});
      }
      return Status::Ok();
    };
    FRONTIER_RETURN_IF_ERROR(constraints("server", &m.server));
    FRONTIER_RETURN_IF_ERROR(constraints("interactive", &m.interactive));
    if (m.server.empty()) return InvalidArgument(where + "\"server\" constraints are required");
    for (auto [field, dst] : {std::pair{"offline_min_sample_count", &m.offline_min_sample_count},
                              std::pair{"performance_sample_count", &m.performance_sample_count}}) {
      if (!b.contains(field) || !b[field].is_number_integer() || b[field].get<int64_t>() < 1)
        return InvalidArgument(where + field + " must be an integer >= 1");
      *dst = b[field].get<int64_t>();
    }
    m.source = b.contains("source") && b["source"].is_string() ? b["source"].get<std::string>() : "";
    out.push_back(std::move(m));
  }
  return out;
}

const MlperfBenchmark* FindBenchmark(const std::vector<MlperfBenchmark>& table, std::string_view name) {
  for (const auto& b : table) {
    if (b.name == name) return &b;
    if (std::find(b.models.begin(), b.models.end(), name) != b.models.end()) return &b;
  }
  return nullptr;
}

Result<ScenarioRules> ResolveScenario(const ScenarioRequest& req, const std::vector<MlperfBenchmark>& table,
                                      std::string_view model_hint) {
  ScenarioRules r;
  r.scenario = req.scenario;
  if (req.target_qps && !(*req.target_qps > 0 && std::isfinite(*req.target_qps)))
    return InvalidArgument("--target-qps must be a positive number of queries per second");
  // Bounded like the flags they stand for (--duration, --num-prompts), so the
  // schedule they size is judged before it is planned (docs/limits.md).
  if (req.min_duration_s && !(*req.min_duration_s > 0 && *req.min_duration_s <= kMaxRunSeconds))
    return InvalidArgument("--min-duration must be a number of seconds in (0, 1e9], got " +
                           FormatNumber(*req.min_duration_s));
  if (req.min_query_count && (*req.min_query_count < 1 || *req.min_query_count > kMaxRunRequests))
    return InvalidArgument("--min-query-count must be an integer in [1, " + std::to_string(kMaxRunRequests) +
                           "] (the bound on a run's requests), got " + std::to_string(*req.min_query_count));
  if (req.min_interactivity && !(*req.min_interactivity > 0 && std::isfinite(*req.min_interactivity)))
    return InvalidArgument("--min-interactivity must be a positive number of tokens/s per user");
  r.target_qps = req.target_qps;
  r.min_interactivity = req.min_interactivity;

  const MlperfBenchmark* bench = nullptr;
  if (!req.benchmark.empty()) {
    bench = FindBenchmark(table, req.benchmark);
    if (bench == nullptr) {
      std::string known;
      for (const auto& b : table) known += (known.empty() ? "" : ", ") + b.name;
      return InvalidArgument("--mlperf-benchmark '" + req.benchmark + "' is not in data/mlperf/benchmarks.json (" +
                             known + ")");
    }
  } else if (!model_hint.empty() && req.scenario) {
    bench = FindBenchmark(table, model_hint);
  }

  if (!req.scenario) {  // a plain SLO
    if (req.target_qps || req.min_duration_s || req.min_query_count || !req.benchmark.empty())
      return InvalidArgument("--target-qps, --min-duration, --min-query-count and --mlperf-benchmark need --scenario");
    if (req.slo.empty() && !req.min_interactivity)
      return InvalidArgument("nothing to judge: give --slo or --min-interactivity (or --scenario)");
    r.constraints = req.slo;
    r.constraints_source = "--slo";
    r.min_duration_s = 0;
    r.min_query_count = 0;
    return r;
  }

  const Scenario s = *req.scenario;
  r.min_duration_s = req.min_duration_s.value_or(kDefaultMinDurationS);
  if (bench != nullptr) {
    r.benchmark = bench->name;
    r.performance_sample_count = bench->performance_sample_count;
  }
  if (s == Scenario::kOffline) {
    if (!req.slo.empty() || req.min_interactivity)
      return InvalidArgument("--scenario offline has no latency constraints; leave out --slo and --min-interactivity");
    if (req.min_query_count) {
      r.min_query_count = *req.min_query_count;
    } else if (bench != nullptr) {
      r.min_query_count = bench->offline_min_sample_count;
    } else {
      r.min_query_count = kDefaultServerMinQueries;
    }
    r.constraints_source = bench != nullptr ? bench->source : "";
    return r;
  }

  // Server and Interactive.
  if (!req.target_qps)
    return InvalidArgument(std::string("--scenario ") + ScenarioName(s) +
                           " sends Poisson arrivals at --target-qps; give --target-qps QPS");
  if (!req.slo.empty()) {
    r.constraints = req.slo;
    r.constraints_source = "--slo";
  } else if (bench == nullptr) {
    return InvalidArgument(std::string("--scenario ") + ScenarioName(s) +
                           " needs latency constraints: --mlperf-benchmark NAME (data/mlperf/benchmarks.json) "
                           "or --slo ttft_p99:MS tpot_p99:MS");
  } else if (s == Scenario::kInteractive) {
    if (bench->interactive.empty())
      return InvalidArgument("MLPerf benchmark " + bench->name +
                             " has no Interactive category; use --scenario server or give --slo");
    r.constraints = bench->interactive;
    r.constraints_source = bench->source;
  } else {
    r.constraints = bench->server;
    r.constraints_source = bench->source;
  }
  // Default count: LoadGen's 100, raised to what early stopping needs when no
  // query is over its limit (459 at p99), so a low-QPS run is not INVALID for
  // a reason no rate can fix. An explicit --min-query-count is kept.
  r.min_query_count = kDefaultServerMinQueries;
  for (const auto& c : r.constraints) {
    EarlyStoppingOptions es;
    es.percentile = c.percentile / 100.0;
    es.confidence = r.confidence;
    r.min_query_count = std::max(r.min_query_count, MinPassingQueries(0, es));
  }
  if (req.min_query_count) r.min_query_count = *req.min_query_count;
  return r;
}

namespace {

// A scenario's queries plus the warm-up within the bound on a run's requests.
Status CheckRequests(int64_t queries, int64_t warmup) {
  if (queries <= kMaxRunRequests - std::max<int64_t>(warmup, 0)) return Status::Ok();
  return InvalidArgument("the scenario sends " + std::to_string(queries) + " queries (--min-query-count, " +
                         "--target-qps x --min-duration) + " + std::to_string(warmup) +
                         " warm-up (--warmup); a run sends at most " + std::to_string(kMaxRunRequests) +
                         " (docs/limits.md)");
}

}  // namespace

Result<workload::LoadOptions> ScenarioLoad(const ScenarioRules& rules, const workload::LoadOptions& base) {
  if (!rules.scenario) return InvalidArgument("ScenarioLoad needs a scenario");
  if (base.max_concurrency)
    return InvalidArgument("--scenario sets the arrivals; leave out --max-concurrency");
  if (std::isfinite(base.request_rate))
    return InvalidArgument("--scenario sets the arrivals; give --target-qps instead of --request-rate");
  if (base.duration_s)
    return InvalidArgument("--scenario sets the run length; give --min-duration instead of --duration");
  workload::LoadOptions load = base;
  load.burstiness = 1.0;
  if (*rules.scenario == Scenario::kOffline) {
    // LoadGen: samples_per_query = max(min_query_count, 1.1 x target_duration x expected QPS).
    int64_t n = rules.min_query_count;
    if (rules.target_qps) {
      const double wanted = std::ceil(1.1 * rules.min_duration_s * *rules.target_qps);
      if (!(wanted <= static_cast<double>(kMaxRunRequests)))
        return InvalidArgument("--target-qps " + FormatNumber(*rules.target_qps) + " x --min-duration " +
                               FormatNumber(rules.min_duration_s) + " x 1.1 asks for " + FormatNumber(wanted) +
                               " samples; a run sends at most " + std::to_string(kMaxRunRequests) +
                               " (docs/limits.md)");
      n = std::max(n, static_cast<int64_t>(wanted));
    }
    FRONTIER_RETURN_IF_ERROR(CheckRequests(n, base.warmup));
    load.request_rate = std::numeric_limits<double>::infinity();
    load.num_prompts = n;
    load.duration_s = 1.0;  // all are sent at time 0: ends nothing
    return load;
  }
  // Server: queries up to the first one scheduled at or after the minimum
  // duration, and at least the minimum count. The plan's prefix does not
  // depend on its length, so it can be grown until it reaches that far.
  const double qps = *rules.target_qps;
  FRONTIER_ASSIGN_OR_RETURN(const Nanos min_duration,
                            SecondsToNanosChecked("--min-duration", rules.min_duration_s, kMaxRunSeconds));
  const double expected = qps * rules.min_duration_s;
  // Judged before the plan is drawn: about `expected` arrivals fall within the minimum duration.
  if (!(expected * 1.1 + 64 <= static_cast<double>(kMaxRunRequests)))
    return InvalidArgument("--target-qps " + FormatNumber(qps) + " x --min-duration " +
                           FormatNumber(rules.min_duration_s) + " asks for about " + FormatNumber(expected) +
                           " queries; a run sends at most " + std::to_string(kMaxRunRequests) +
                           " (docs/limits.md): lower --target-qps or --min-duration");
  FRONTIER_RETURN_IF_ERROR(CheckRequests(rules.min_query_count, base.warmup));
  workload::ArrivalOptions a;
  a.request_rate = qps;
  a.burstiness = 1.0;
  a.seed = base.seed;
  int64_t count = static_cast<int64_t>(std::ceil(expected * 1.1)) + 64;
  std::vector<Nanos> plan;
  while (true) {
    FRONTIER_ASSIGN_OR_RETURN(plan, workload::PlanArrivals(count, a));
    if (plan.back() >= min_duration) break;
    if (count >= kMaxRunRequests)
      return InvalidArgument("--target-qps " + FormatNumber(qps) + ": " + std::to_string(count) +
                             " queries do not reach --min-duration " + FormatNumber(rules.min_duration_s) +
                             " s; a run sends at most " + std::to_string(kMaxRunRequests) + " (docs/limits.md)");
    count = std::min(count * 2, kMaxRunRequests);
  }
  const auto reach = std::lower_bound(plan.begin(), plan.end(), min_duration);
  const int64_t n = std::max<int64_t>(rules.min_query_count, static_cast<int64_t>(reach - plan.begin()) + 1);
  FRONTIER_RETURN_IF_ERROR(CheckRequests(n, base.warmup));
  if (n > count) {
    FRONTIER_ASSIGN_OR_RETURN(plan, workload::PlanArrivals(n, a));
  }
  load.request_rate = qps;
  load.num_prompts = n;
  const double last_s = NanosToSeconds(plan[static_cast<size_t>(n - 1)]);
  load.duration_s = 2 * last_s + 60;
  return load;
}

}  // namespace frontier::loadgen
