#include "loadgen/verdict.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/stats.h"
#include "metrics/verdict_label.h"

namespace frontier::loadgen {

LatencyOrigin OriginFor(const workload::LoadOptions& load) {
  return std::isfinite(load.request_rate) ? LatencyOrigin::kScheduled : LatencyOrigin::kSent;
}

namespace {

double Ms(Nanos ns) { return static_cast<double>(ns) / kNanosPerMilli; }

}  // namespace

void MarkOverSaturated(Verdict& v, const std::string& detail) {
  v.over_saturated = detail;
  v.valid = false;
  v.reasons.insert(v.reasons.begin(), "over-saturated: " + detail);
}

Verdict Judge(const RunResult& run, const ScenarioRules& rules, const metrics::Summary& summary,
              LatencyOrigin origin) {
  Verdict v;
  v.interrupted = run.interrupted;
  v.interactivity = summary.interactivity;
  v.output_tokens_per_s = summary.output_throughput;
  std::vector<double> ttft, tpot, e2el;
  Nanos first_scheduled = std::numeric_limits<Nanos>::max(), last_scheduled = std::numeric_limits<Nanos>::min();
  Nanos start = std::numeric_limits<Nanos>::max(), last_end = std::numeric_limits<Nanos>::min();
  std::string first_failure;
  for (const auto& r : run.requests) {
    if (r.warmup) continue;
    ++v.queries;
    first_scheduled = std::min(first_scheduled, r.scheduled_ns);
    last_scheduled = std::max(last_scheduled, r.scheduled_ns);
    start = std::min(start, std::min(r.scheduled_ns, r.sent_ns));
    last_end = std::max(last_end, r.end_ns);
    if (!r.ok) {
      if (v.failed++ == 0) first_failure = r.failure;
      continue;
    }
    const Nanos t0 = origin == LatencyOrigin::kScheduled ? r.scheduled_ns : r.sent_ns;
    if (r.first_token_ns >= 0) ttft.push_back(Ms(r.first_token_ns - t0));
    e2el.push_back(Ms(r.end_ns - t0));
    if (r.output_tokens > 1 && r.first_token_ns >= 0)
      tpot.push_back(Ms(r.end_ns - r.first_token_ns) / (r.output_tokens - 1));
  }

  if (v.interrupted) v.reasons.push_back("the run was interrupted before it ended");
  if (v.failed > 0)
    v.reasons.push_back(fmt::format("{} of {} requests failed (first: {}); every query must complete", v.failed,
                                    v.queries, first_failure));

  if (rules.scenario) {
    const bool offline = *rules.scenario == Scenario::kOffline;
    if (v.queries > 0) {
      // Offline: the last sample's end; Server: the last query's scheduled time.
      v.duration_s = offline ? NanosToSeconds(last_end - start) : NanosToSeconds(last_scheduled - first_scheduled);
      if (!offline && last_scheduled > first_scheduled)
        v.scheduled_qps = static_cast<double>(v.queries - 1) / NanosToSeconds(last_scheduled - first_scheduled);
    }
    v.min_duration_met = v.duration_s >= rules.min_duration_s;
    if (!v.min_duration_met)
      v.reasons.push_back(fmt::format("min duration not met: {} {:.1f} s < {:g} s",
                                      offline ? "the last sample ended at" : "the last query was scheduled at",
                                      v.duration_s, rules.min_duration_s));
    v.min_queries_met = v.queries >= rules.min_query_count;
    if (!v.min_queries_met)
      v.reasons.push_back(fmt::format("min {} count not met: {} < {}", offline ? "sample" : "query", v.queries,
                                      rules.min_query_count));
  }

  const bool early_stopping = rules.scenario && *rules.scenario != Scenario::kOffline;
  EarlyStoppingOptions es;
  es.confidence = rules.confidence;
  for (const auto& c : rules.constraints) {
    ConstraintCheck check;
    check.constraint = c;
    std::vector<double>& samples =
        c.metric == LatencyMetric::kTtft ? ttft : c.metric == LatencyMetric::kTpot ? tpot : e2el;
    check.samples = static_cast<int64_t>(samples.size());
    const std::string name = FormatConstraint(c);
    if (samples.empty()) {
      v.constraints_met = false;
      v.reasons.push_back(fmt::format("{}: no samples to judge", name));
      v.checks.push_back(check);
      continue;
    }
    if (early_stopping) {
      es.percentile = c.percentile / 100.0;
      check.early_stopping = EarlyStopping(samples, c.limit_ms, es);
    }
    const double p[] = {c.percentile};
    check.value_ms = Percentiles(samples, p, PercentileMethod::kLoadgenIndex).front();
    check.met = check.value_ms <= c.limit_ms;
    if (!check.met) {
      v.constraints_met = false;
      v.reasons.push_back(fmt::format("{} not met: p{:g} {} is {:.2f} ms > {:g} ms", name, c.percentile,
                                      LatencyMetricName(c.metric), check.value_ms, c.limit_ms));
    }
    if (check.early_stopping && !check.early_stopping->met) {
      v.early_stopping_met = false;
      const auto& e = *check.early_stopping;
      v.reasons.push_back(fmt::format("{} early stopping not met: {} of {} samples over {:g} ms need at least {} "
                                      "queries",
                                      name, e.overlatency, e.queries, c.limit_ms, e.required));
    }
    v.checks.push_back(check);
  }
  if (rules.min_interactivity) {
    v.interactivity_met = summary.interactivity >= *rules.min_interactivity;
    if (!v.interactivity_met)
      v.reasons.push_back(fmt::format("interactivity {:.2f} tok/s/user < {:g} (1000 / median TPOT)",
                                      summary.interactivity, *rules.min_interactivity));
  }
  v.valid = v.reasons.empty();
  return v;
}

std::string FormatVerdict(const Verdict& v, const ScenarioRules& rules) {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  auto yes = [](bool b) { return b ? "Yes" : "NO"; };
  line(std::string(48, '='));
  line(rules.scenario ? "MLPerf Results Summary" : "SLO Results Summary");
  line(std::string(48, '='));
  if (rules.scenario) {
    line(fmt::format("Scenario : {}", ScenarioName(*rules.scenario)));
    if (!rules.benchmark.empty()) line(fmt::format("Benchmark : {}", rules.benchmark));
    if (*rules.scenario == Scenario::kOffline) {
      line(fmt::format("Tokens per second: {:.2f}", v.output_tokens_per_s));
    } else {
      if (rules.target_qps) line(fmt::format("Target QPS : {:g}", *rules.target_qps));
      line(fmt::format("Scheduled samples per second : {:.2f}", v.scheduled_qps));
      line(fmt::format("Completed tokens per second : {:.2f}", v.output_tokens_per_s));
    }
  }
  line(fmt::format("Result is : {}", metrics::VerdictLabel(v.valid)));
  if (!rules.constraints.empty()) line(fmt::format("  Performance constraints satisfied : {}", yes(v.constraints_met)));
  if (rules.scenario) {
    line(fmt::format("  Min duration satisfied : {}", yes(v.min_duration_met)));
    line(fmt::format("  Min queries satisfied : {}", yes(v.min_queries_met)));
    if (*rules.scenario != Scenario::kOffline)
      line(fmt::format("  Early stopping satisfied: {}", yes(v.early_stopping_met)));
  }
  if (rules.min_interactivity)
    line(fmt::format("  Min interactivity satisfied : {} ({:.2f} >= {:g} tok/s/user)", yes(v.interactivity_met),
                     v.interactivity, *rules.min_interactivity));
  if (!v.reasons.empty()) {
    line("Reasons:");
    for (const auto& r : v.reasons) line(" * " + r);
  }
  for (const auto& c : v.checks) {
    const std::string metric = LatencyMetricName(c.constraint.metric);
    line(fmt::format("{} p{:g}: {:.2f} ms (limit {:g} ms, {} samples)", metric, c.constraint.percentile, c.value_ms,
                     c.constraint.limit_ms, c.samples));
    if (!c.early_stopping) continue;
    const auto& e = *c.early_stopping;
    line(fmt::format("{} Early Stopping Result:", metric));
    if (e.met) {
      line(fmt::format(" * Run successful: {} queries, {} over the limit, {} needed.", e.queries, e.overlatency,
                       e.required));
    } else {
      line(fmt::format(" * Run unsuccessful: {} queries, {} over the limit; would need at least {} more, all "
                       "under the limit.",
                       e.queries, e.overlatency, e.required - e.queries));
    }
    if (e.estimate)
      line(fmt::format(" * Early stopping p{:g} estimate: {:.2f} ms ({} highest discarded)", c.constraint.percentile,
                       *e.estimate, e.estimate_rank - 1));
  }
  if (!rules.constraints_source.empty()) line("Constraints from: " + rules.constraints_source);
  line(std::string(48, '='));
  return out;
}

nlohmann::json VerdictJson(const Verdict& v, const ScenarioRules& rules) {
  nlohmann::json j;
  j["result"] = metrics::VerdictLabel(v.valid);
  j["reasons"] = v.reasons;
  j["scenario"] = rules.scenario ? nlohmann::json(ScenarioName(*rules.scenario)) : nlohmann::json(nullptr);
  j["benchmark"] = rules.benchmark;
  j["constraints_source"] = rules.constraints_source;
  if (rules.target_qps) j["target_qps"] = *rules.target_qps;
  j["queries"] = v.queries;
  j["failed"] = v.failed;
  j["interrupted"] = v.interrupted;
  if (rules.scenario) {
    j["min_duration_s"] = rules.min_duration_s;
    j["duration_s"] = v.duration_s;
    j["min_duration_met"] = v.min_duration_met;
    j["min_query_count"] = rules.min_query_count;
    j["min_queries_met"] = v.min_queries_met;
    j["early_stopping_met"] = v.early_stopping_met;
    j["scheduled_qps"] = v.scheduled_qps;
  }
  j["constraints_met"] = v.constraints_met;
  if (rules.min_interactivity) {
    j["min_interactivity"] = *rules.min_interactivity;
    j["interactivity_met"] = v.interactivity_met;
  }
  j["interactivity"] = v.interactivity;
  j["output_tokens_per_s"] = v.output_tokens_per_s;
  if (!v.over_saturated.empty()) j["over_saturated"] = v.over_saturated;
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : v.checks) {
    nlohmann::json x;
    x["metric"] = LatencyMetricName(c.constraint.metric);
    x["percentile"] = c.constraint.percentile;
    x["limit_ms"] = c.constraint.limit_ms;
    x["value_ms"] = c.value_ms;
    x["samples"] = c.samples;
    x["met"] = c.met;
    if (c.early_stopping) {
      const auto& e = *c.early_stopping;
      nlohmann::json es{{"met", e.met}, {"queries", e.queries}, {"overlatency", e.overlatency},
                        {"required", e.required}};
      if (e.estimate) {
        es["estimate_ms"] = *e.estimate;
        es["discarded"] = e.estimate_rank - 1;
      }
      x["early_stopping"] = es;
    }
    checks.push_back(x);
  }
  j["constraints"] = checks;
  return j;
}

}  // namespace frontier::loadgen
