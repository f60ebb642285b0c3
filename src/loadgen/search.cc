#include "loadgen/search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "loadgen/point.h"
#include "metrics/result_json.h"
#include "workload/arrival.h"

namespace frontier::loadgen {

const char* SearchAxisName(SearchAxis a) { return a == SearchAxis::kRate ? "request_rate" : "concurrency"; }
const char* SearchGoalName(SearchGoal g) {
  return g == SearchGoal::kMaxValidQps ? "max_valid_qps" : "max_throughput_per_gpu";
}

namespace {

bool IsServerLike(const ScenarioRules& r) { return r.scenario && *r.scenario != Scenario::kOffline; }

}  // namespace

ScenarioRules TrialRules(const SearchOptions& o, double value) {
  ScenarioRules r = o.rules;
  if (o.axis == SearchAxis::kRate && IsServerLike(r)) r.target_qps = value;
  return r;
}

namespace {

// Watches a live trial: sets its stop flag when the detector confirms
// over-saturation or the user interrupts the search.
class TrialWatch final : public Observer {
 public:
  explicit TrialWatch(const std::atomic<bool>* interrupt) : interrupt_(interrupt) {}

  void Detect(std::vector<Nanos> plan, int64_t warmup, const SaturationOptions& o) {
    plan_ = plan;
    warmup_ = warmup;
    interval_ = o.interval;
    detector_.emplace(std::move(plan), o);
  }

  void OnRequest(const RequestRecord& r) override {
    if (!detector_ || r.warmup) return;
    const int64_t i = r.id - warmup_;
    if (i < 0 || i >= static_cast<int64_t>(plan_.size())) return;
    // Records are relative to the run's start; the plan to the measured phase's.
    const Nanos offset = r.scheduled_ns - plan_[static_cast<size_t>(i)];
    detector_->OnEnded(r.sent_ns - offset, r.first_token_ns < 0 ? -1 : r.first_token_ns - offset,
                       r.end_ns - offset, r.ok);
  }
  void OnProgress(const Progress& p) override {
    if (interrupt_ != nullptr && interrupt_->load()) stop_.store(true);
    // One interval behind, so every request that ended before a checkpoint has been reported.
    if (detector_ && p.elapsed_ns > interval_ && detector_->Advance(p.elapsed_ns - interval_)) stop_.store(true);
  }
  const std::atomic<bool>* stop() const { return &stop_; }
  std::optional<SaturationFinding> finding() const {
    return detector_ ? detector_->finding() : std::nullopt;
  }

 private:
  const std::atomic<bool>* interrupt_;
  std::vector<Nanos> plan_;
  int64_t warmup_ = 0;
  Nanos interval_ = 0;
  std::optional<SaturationDetector> detector_;
  std::atomic<bool> stop_{false};
};

std::string Value(SearchAxis axis, double v) {
  return axis == SearchAxis::kRate ? fmt::format("{:.4g} req/s", v) : fmt::format("concurrency {:.0f}", v);
}

const FlagRow<SearchRequest> kFlags[] = {
    {"--over", &SearchRequest::over, "What to vary: rate or concurrency [rate with --scenario, else concurrency]",
     "Search"},
    {"--start", &SearchRequest::start, "First load: req/s or concurrency [1]", "Search"},
    {"--growth", &SearchRequest::growth, "Bracketing factor, > 1 [2]", "Search"},
    {"--tolerance", &SearchRequest::tolerance,
     "Rate: stop when the invalid/valid bracket is within this fraction [0.02]", "Search"},
    {"--max-trials", &SearchRequest::max_trials, "Most trials to run [20]", "Search"},
    {"--min-value", &SearchRequest::min_value, "Lowest load to try [rate 0.01, concurrency 1]", "Search"},
    {"--max-value", &SearchRequest::max_value, "Highest load to try [rate 1e6, concurrency 65536]", "Search"},
    {"--as-plan", &SearchRequest::as_plan,
     "Print the sweep plan (YAML, a `search:` block) that runs this search with `frontier sweep`, then exit without "
     "a trial; the API key and --header are left out, and the flags a plan has no field for (--db, --client-rtt-us, "
     "--timeout, ...) are refused",
     "Output"},
};

}  // namespace

std::span<const FlagRow<SearchRequest>> SearchFlagRows() { return kFlags; }

Status CheckSearchOptions(const SearchOptions& o) {
  if (o.goal == SearchGoal::kMaxValidQps && (!IsServerLike(o.rules) || o.axis != SearchAxis::kRate))
    return InvalidArgument("the highest valid QPS needs --scenario server or interactive, searched over request rate");
  if (o.rules.scenario && *o.rules.scenario == Scenario::kOffline)
    return InvalidArgument("--scenario offline queues everything at once: there is no load to search");
  if (!(o.growth > 1)) return InvalidArgument(fmt::format("--growth must be above 1, got {:g}", o.growth));
  if (o.max_trials < 1 || o.max_trials > kMaxSearchTrials)
    return InvalidArgument(fmt::format("--max-trials must be in [1, {}], got {}", kMaxSearchTrials, o.max_trials));
  if (!(o.rel_tolerance > 0 && o.rel_tolerance < 1))
    return InvalidArgument(fmt::format("--tolerance must be in (0, 1), got {:g}", o.rel_tolerance));
  if (!(o.min_value > 0)) return InvalidArgument(fmt::format("--min-value must be above 0, got {:g}", o.min_value));
  if (!(o.min_value <= o.max_value))
    return InvalidArgument(fmt::format("--max-value {:g} must not be below --min-value {:g}", o.max_value, o.min_value));
  if (!(o.start >= o.min_value && o.start <= o.max_value))
    return InvalidArgument(fmt::format("--start {:g} must lie in [{:g}, {:g}] (--min-value, --max-value)", o.start,
                                       o.min_value, o.max_value));
  if (o.axis == SearchAxis::kConcurrency && o.start != std::floor(o.start))
    return InvalidArgument(fmt::format("--start must be a whole number of requests on the concurrency axis, got {:g}",
                                       o.start));
  return Status::Ok();
}

Status ApplySearchRequest(const SearchRequest& r, SearchOptions* o) {
  const ScenarioRules& rules = o->rules;
  if (!rules.scenario && rules.constraints.empty() && !rules.min_interactivity)
    return InvalidArgument("say what a trial must meet: --scenario server|interactive (the highest valid QPS), or "
                           "--slo / --min-interactivity (the best throughput per GPU)");
  if (rules.scenario && *rules.scenario == Scenario::kOffline)
    return InvalidArgument("--scenario offline queues everything at once: there is no load to search");
  const bool server = IsServerLike(rules);
  o->goal = server ? SearchGoal::kMaxValidQps : SearchGoal::kMaxThroughput;
  const std::string over = r.over.empty() ? (server ? "rate" : "concurrency") : r.over;
  if (over == "rate") {
    o->axis = SearchAxis::kRate;
  } else if (over == "concurrency") {
    if (server) return InvalidArgument("--over must be rate under a scenario (it searches the Poisson rate), got 'concurrency'");
    o->axis = SearchAxis::kConcurrency;
  } else {
    return InvalidArgument("--over must be rate or concurrency, got '" + r.over + "'");
  }
  const bool rate = o->axis == SearchAxis::kRate;
  if (!server && rate && std::isfinite(o->base.request_rate))
    return InvalidArgument("--request-rate is what --over rate varies: leave it out");
  if (!rate && o->base.max_concurrency)
    return InvalidArgument("--max-concurrency is what --over concurrency varies: leave it out");
  if (r.max_trials < 1 || r.max_trials > kMaxSearchTrials)
    return InvalidArgument(fmt::format("--max-trials must be in [1, {}], got {}", kMaxSearchTrials, r.max_trials));
  o->start = r.start;
  o->growth = r.growth;
  o->rel_tolerance = r.tolerance;
  o->max_trials = static_cast<int>(r.max_trials);
  o->min_value = r.min_value.value_or(rate ? 0.01 : 1);
  o->max_value = r.max_value.value_or(rate ? 1e6 : 65536);
  if (!r.saturation_stop) o->saturation.reset();
  return CheckSearchOptions(*o);
}

Result<workload::LoadOptions> TrialLoad(const SearchOptions& o, double value) {
  if (o.axis == SearchAxis::kRate && IsServerLike(o.rules)) return ScenarioLoad(TrialRules(o, value), o.base);
  workload::LoadOptions load = o.base;
  if (o.axis == SearchAxis::kRate) {
    load.request_rate = value;
  } else {
    load.max_concurrency = static_cast<int64_t>(std::llround(value));
  }
  return load;
}

namespace {

// Runs one trial at load value `x`, watched for over-saturation when open-loop, and judges it.
Result<Trial> RunTrial(TrialRunner& runner, const SearchOptions& o, int index, double x) {
  FRONTIER_ASSIGN_OR_RETURN(workload::LoadOptions load, TrialLoad(o, x));
  const ScenarioRules rules = TrialRules(o, x);

  // Open-loop trials are watched for over-saturation.
  TrialWatch watch(o.interrupt);
  const bool open_loop = std::isfinite(load.request_rate);
  if (o.saturation && open_loop) {
    workload::ArrivalOptions a{load.request_rate, load.burstiness, load.seed};
    // The arrivals the runner plans (PlanMeasured caps a plan at max_planned).
    const int64_t planned = std::min<int64_t>(load.num_prompts, o.point.run.max_planned);
    FRONTIER_ASSIGN_OR_RETURN(std::vector<Nanos> plan, workload::PlanArrivals(planned, a));
    if (load.duration_s) {  // nothing is issued after the duration
      const Nanos end = SecondsToNanos(*load.duration_s);
      while (!plan.empty() && plan.back() >= end) plan.pop_back();
    }
    watch.Detect(std::move(plan), load.warmup, *o.saturation);
  }
  PointOptions point = o.point;
  point.result_json.clear();
  point.requests_jsonl.clear();
  if (std::find(point.summary.percentiles.begin(), point.summary.percentiles.end(), 99.0) ==
      point.summary.percentiles.end())
    point.summary.percentiles.push_back(99.0);
  point.rules = rules;
  FRONTIER_ASSIGN_OR_RETURN(PointOutcome point_out, runner.Run(load, point, &watch, watch.stop()));

  Trial t;
  t.index = index;
  t.value = x;
  t.summary = std::move(point_out.summary);
  // RunPoint judged the trial against `rules`; a runner that left the verdict out is judged here.
  t.verdict = point_out.verdict.has_value() ? std::move(point_out.verdict).value()
                                            : Judge(point_out.run, rules, t.summary, OriginFor(load));
  if (const std::optional<SaturationFinding> finding = watch.finding()) {
    t.stopped_early = true;
    MarkOverSaturated(t.verdict, finding->Describe());
  }
  t.band = point_out.run.band;
  t.result = PointResultJson(point_out.run, t.summary, point.summary, load, point.extra_result_fields, nullptr, nullptr);
  return t;
}

// The best valid trial: the highest value, or the highest throughput per GPU.
std::optional<size_t> BestTrial(const std::vector<Trial>& trials, SearchGoal goal) {
  std::optional<size_t> best;
  for (size_t i = 0; i < trials.size(); ++i) {
    const Trial& c = trials[i];
    if (!c.verdict.valid) continue;
    const Trial* b = best ? &trials[*best] : nullptr;
    const bool better = goal == SearchGoal::kMaxValidQps
                            ? (!b || c.value > b->value)
                            : (!b || c.summary.output_throughput_per_gpu > b->summary.output_throughput_per_gpu);
    if (better) best = i;
  }
  return best;
}

}  // namespace

Result<SearchResult> Search(TrialRunner& runner, const SearchOptions& o, const TrialCallback& on_trial) {
  FRONTIER_RETURN_IF_ERROR(CheckSearchOptions(o));
  const bool integer = o.axis == SearchAxis::kConcurrency;
  const double floor_value = integer ? std::max(1.0, std::ceil(o.min_value)) : o.min_value;
  const double cap = integer ? std::floor(o.max_value) : o.max_value;
  SearchResult out;
  std::optional<double> lo, hi;  // highest valid; lowest invalid above it
  double x = o.start;

  for (int index = 0;; ++index) {
    if (index >= o.max_trials) {
      out.stop_reason = fmt::format("stopped after --max-trials {} trials", o.max_trials);
      break;
    }
    FRONTIER_ASSIGN_OR_RETURN(Trial t, RunTrial(runner, o, index, x));

    // Next load.
    const bool valid = t.verdict.valid;
    if (valid) {
      lo = lo ? std::max(*lo, x) : x;
    } else {
      hi = hi ? std::min(*hi, x) : x;
    }
    const std::string outcome = valid ? "valid" : "invalid";
    bool done = false;
    double next = x;
    if (!hi) {
      if (x >= cap) {
        out.stop_reason = fmt::format("valid up to the cap, {}", Value(o.axis, cap));
        done = true;
      } else {
        next = std::min(cap, integer ? std::ceil(x * o.growth) : x * o.growth);
        t.step = "bracket";
        t.decision = fmt::format("{}: bracketing up to {}", outcome, Value(o.axis, next));
      }
    } else if (!lo) {
      if (x <= floor_value) {
        out.stop_reason = fmt::format("no valid trial down to {}", Value(o.axis, floor_value));
        done = true;
      } else {
        next = std::max(floor_value, integer ? std::floor(x / o.growth) : x / o.growth);
        t.step = "bracket";
        t.decision = fmt::format("{}: bracketing down to {}", outcome, Value(o.axis, next));
      }
    } else {
      const bool converged = integer ? *hi - *lo <= 1 : *hi / *lo - 1 <= o.rel_tolerance;
      if (converged) {
        out.stop_reason = integer ? fmt::format("converged: {} valid, {} invalid", Value(o.axis, *lo),
                                                Value(o.axis, *hi))
                                  : fmt::format("converged: {} valid, {} invalid (within {:g}%)", Value(o.axis, *lo),
                                                Value(o.axis, *hi), o.rel_tolerance * 100);
        done = true;
      } else {
        next = integer ? std::floor((*lo + *hi) / 2) : (*lo + *hi) / 2;
        t.step = "bisect";
        t.decision = fmt::format("{}: bisecting [{}, {}) at {}", outcome, Value(o.axis, *lo), Value(o.axis, *hi),
                                 Value(o.axis, next));
      }
    }
    // The last trial allowed ends the search here, so that the outcome handed
    // to on_trial (and stored) already says why it stopped.
    if (!done && index + 1 >= o.max_trials) {
      out.stop_reason = fmt::format("stopped after --max-trials {} trials", o.max_trials);
      done = true;
    }
    if (done) {
      t.step = "stop";
      t.decision = outcome + ": " + out.stop_reason;
    }
    out.trials.push_back(std::move(t));
    out.valid_below = lo;
    out.invalid_above = hi;

    out.best = BestTrial(out.trials, o.goal);  // the answer so far
    if (o.interrupt != nullptr && o.interrupt->load() && !done) {
      out.stop_reason = "interrupted";
      out.trials.back().step = "stop";
      out.trials.back().decision = outcome + ": the search was interrupted";
      done = true;
    }
    if (on_trial) FRONTIER_RETURN_IF_ERROR(on_trial(out.trials.back(), out));
    if (done) break;
    x = next;
  }
  return out;
}

nlohmann::json SearchOutcomeJson(const SearchResult& r, const SearchOptions& o, const std::string& runner) {
  nlohmann::json j;
  j["goal"] = SearchGoalName(o.goal);
  j["axis"] = SearchAxisName(o.axis);
  j["runner"] = runner;
  nlohmann::json rules;
  rules["scenario"] = o.rules.scenario ? nlohmann::json(ScenarioName(*o.rules.scenario)) : nlohmann::json(nullptr);
  rules["benchmark"] = o.rules.benchmark;
  rules["constraints_source"] = o.rules.constraints_source;
  nlohmann::json cs = nlohmann::json::array();
  for (const auto& c : o.rules.constraints) cs.push_back(FormatConstraint(c));
  rules["constraints"] = cs;
  if (o.rules.min_interactivity) rules["min_interactivity"] = *o.rules.min_interactivity;
  if (o.rules.scenario) {
    rules["min_duration_s"] = o.rules.min_duration_s;
    rules["min_query_count"] = o.rules.min_query_count;
  }
  j["rules"] = rules;
  j["search"] = {{"start", o.start},         {"growth", o.growth},       {"rel_tolerance", o.rel_tolerance},
                 {"max_trials", o.max_trials}, {"min_value", o.min_value}, {"max_value", o.max_value},
                 {"saturation_stop", o.saturation.has_value()}};
  j["stop_reason"] = r.stop_reason;
  j["bracket"] = {{"valid", r.valid_below ? nlohmann::json(*r.valid_below) : nlohmann::json(nullptr)},
                  {"invalid", r.invalid_above ? nlohmann::json(*r.invalid_above) : nlohmann::json(nullptr)}};
  j["trial_count"] = r.trials.size();
  if (r.best) {
    const Trial& b = r.trials[*r.best];
    // The answer's figures under the summary's own keys, as metrics writes them.
    const nlohmann::json summary = metrics::SummaryToJson(b.summary);
    nlohmann::json answer = {{"trial", b.index}, {"value", b.value}};
    for (const char* key : {"request_throughput", "output_throughput", "output_throughput_per_gpu", "interactivity"})
      answer[key] = summary.at(key);
    j["answer"] = std::move(answer);
  } else {
    j["answer"] = nullptr;
  }
  if (o.goal == SearchGoal::kMaxValidQps)
    j["max_valid_qps"] = r.best ? nlohmann::json(r.trials[*r.best].value) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json TrialJson(const Trial& t, const SearchOptions& o) {
  return {{"index", t.index},
          {"value", t.value},
          {"verdict", VerdictJson(t.verdict, TrialRules(o, t.value))},
          {"decision", t.decision},
          {"step", t.step},
          {"stopped_early", t.stopped_early},
          {"result", t.result}};
}

nlohmann::json SearchResultJson(const SearchResult& r, const SearchOptions& o, const std::string& runner) {
  nlohmann::json j = SearchOutcomeJson(r, o, runner);
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& t : r.trials) trials.push_back(TrialJson(t, o));
  j["trials"] = trials;
  return j;
}

}  // namespace frontier::loadgen
