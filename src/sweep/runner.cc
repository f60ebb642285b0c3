#include "sweep/runner.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/ordered_pool.h"
#include "core/parse.h"
#include "loadgen/verdict.h"
#include "metrics/summary.h"
#include "metrics/verdict_label.h"
#include "store/records.h"
#include "sweep/point_store.h"
#include "sweep/system_run.h"
#include "workload/load_request.h"
#include "workload/option_names.h"

namespace frontier::sweep {
namespace {

// The run a system of the plan is stored as, grid or search alike: the plan
// (name, hash, text), the system (name, source, configuration) and the
// sweep's provenance with the plan's file. Each caller adds its own keys
// (a grid's planned_points, a search's workload, goal and axis).
store::RunInfo PlanRun(const Plan& plan, const SystemSpec& sys, const SweepOptions& options) {
  store::RunInfo info = SystemRun(sys);
  info.sweep = plan.name;
  info.plan_hash = plan.hash;
  info.plan_text = plan.text;
  info.provenance = options.provenance;
  info.provenance["plan_file"] = plan.file;
  return info;
}

// What the progress line says of a simulated point's band: "band ±12%", then
// its extrapolations.
std::string BandDetail(const PredictionBand& b) {
  std::string out = "band " + (b.points > 0 ? b.Short() : std::string("none"));
  if (!b.flags.empty()) out += " (extrapolates: " + b.FlagsText() + ")";
  return out;
}

// Where a sweep's point `p` of `system` stands once run (`outcome`, on
// attempt `attempts`): the plan's workload, load kind and value, and
// repetition (the key ExpandMatrix gave it), settings the request count and
// seed, the workload's lengths and dataset, "load_unit" sessions when its
// load counted sessions, a scenario's query count, name and target QPS.
PointPlace SweepPlace(const Plan& plan, const SystemSpec& system, const PointSpec& p,
                      const loadgen::PointOutcome& outcome, int attempts) {
  const WorkloadSpec& w = plan.workloads[p.workload];
  PointPlace at;
  at.workload = w.name;
  at.load_kind = plan.load.kind;
  at.load_value = p.load_value;
  at.repetition = p.repetition;
  at.attempts = attempts;
  // A `live` simulated system is measured over HTTP by the client: its points are measured.
  at.simulated_system = SourceOf(system) == store::Source::kSimulated;
  at.num_gpus = system.gpus;
  at.settings["num_prompts"] = std::to_string(p.num_prompts);
  at.settings["seed"] = std::to_string(p.seed);
  at.settings["input_len"] = std::to_string(w.input_len);
  at.settings["output_len"] = std::to_string(w.output_len);
  at.settings["dataset"] = w.dataset;
  if (plan.load.duration_s) at.settings["duration_s"] = workload::SettingNumber(*plan.load.duration_s);  // as bench's
  // num_prompts and concurrency count sessions
  if (outcome.summary.has_sessions) at.settings["load_unit"] = "sessions";
  if (outcome.verdict) at.settings["num_prompts"] = std::to_string(outcome.verdict->queries);  // the scenario's
  if (plan.scenario && plan.scenario->scenario) {
    at.settings["scenario"] = loadgen::ScenarioName(*plan.scenario->scenario);
    at.settings["target_qps"] = FormatNumber(p.load_value);
  }
  return at;
}

// The rules of the plan's scenario (set) for `sys`, a named scenario's
// target QPS `target_qps`; the system's model picks the MLPerf benchmark
// unless the plan names one. Errors name the plan's line and fields.
Result<loadgen::ScenarioRules> SystemRules(const Plan& plan, const SystemSpec& sys, double target_qps,
                                           const SweepOptions& options) {
  loadgen::ScenarioRequest q = *plan.scenario;
  if (q.scenario) q.target_qps = target_qps;
  Result<loadgen::ScenarioRules> r =
      loadgen::ResolveScenario(q, options.mlperf_benchmarks, sys.sim ? sys.sim->model : sys.model);
  if (!r.ok()) {
    // The rules speak the flags' names; a plan spells them as its fields.
    return InvalidArgument(plan.file + ":" + std::to_string(plan.scenario_line) + ": scenario: system " + sys.name +
                           ": " + workload::InPlanTerms(r.status().message()));
  }
  return r;
}

// A session's trials, as a search runs them: each one the workload's
// requests at the search's load (Session::RunTrial).
class SessionTrials final : public loadgen::TrialRunner {
 public:
  SessionTrials(Session& session, PointSpec point, std::string name)
      : session_(session), point_(std::move(point)), name_(std::move(name)) {}
  std::string Name() const override { return name_; }
  Result<loadgen::PointOutcome> Run(const workload::LoadOptions& load, const loadgen::PointOptions& options,
                                    loadgen::Observer* observer, const std::atomic<bool>* stop) override {
    PointSpec p = point_;
    p.num_prompts = load.num_prompts;  // without a named scenario, the requests drawn (PointRequests)
    return session_.RunTrial(p, load, options, observer, stop);
  }

 private:
  Session& session_;
  PointSpec point_;
  std::string name_;
};

// Whether a search run holds a final outcome (not cut short by an interrupt,
// a crash or an error).
bool SearchFinished(const store::RunInfo& run) {
  if (run.search_json.empty()) return false;
  const nlohmann::json j = nlohmann::json::parse(run.search_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("stop_reason") || !j["stop_reason"].is_string()) return false;
  const std::string reason = j["stop_reason"];
  return !reason.empty() && reason != "interrupted";
}

// One line for a search's answer.
std::string Answer(const loadgen::SearchResult& r, const loadgen::SearchOptions& o) {
  if (!r.best) return "no trial was valid (" + r.stop_reason + ")";
  const loadgen::Trial& b = r.trials[*r.best];
  if (o.goal == loadgen::SearchGoal::kMaxValidQps)
    return fmt::format("max valid QPS {:.4g} (trial {}), {:.1f} tok/s/GPU; {}", b.value, b.index,
                       b.summary.output_throughput_per_gpu, r.stop_reason);
  return fmt::format("best {:.1f} tok/s/GPU at {} {:.4g} (trial {}), {:.1f} tok/s/user; {}",
                     b.summary.output_throughput_per_gpu, o.axis == loadgen::SearchAxis::kRate ? "rate" : "concurrency",
                     b.value, b.index, b.summary.interactivity, r.stop_reason);
}

// What one sweep shares between its systems: the plan, the store, the
// options, the outcome so far and the progress lines.
struct SweepContext {
  const Plan& plan;
  store::Store& store;
  const SweepOptions& options;
  SweepOutcome& out;
  ProgressReporter& progress;

  SweepProgress& prog() { return progress.progress(); }
  void Report(const std::string& event, const std::string& detail = "") { progress.Report(event, detail); }
  bool StopAsked() const { return options.stop && options.stop->load(); }
};

// Servers that a sweep launched and died before stopping are stopped first
// (they would hold ports, GPUs, and answer for the servers launched now).
Status StopOrphans(SweepContext& cx) {
  if (!cx.options.stop_orphans) return Status::Ok();
  FRONTIER_ASSIGN_OR_RETURN(std::vector<std::string> orphans, cx.options.stop_orphans(cx.store));
  for (const auto& line : orphans) cx.Report("orphan", line);
  return Status::Ok();
}

// The latest run of each search (system x workload, by s * workloads + w) in the store.
Result<std::vector<std::optional<store::RunInfo>>> PreviousSearches(const Plan& plan, store::Store& store) {
  const size_t n_workloads = plan.workloads.size();
  std::vector<std::optional<store::RunInfo>> previous(plan.systems.size() * n_workloads);
  FRONTIER_ASSIGN_OR_RETURN(std::vector<store::RunInfo> all, store.ListRuns());
  for (store::RunInfo& run : all) {
    if (run.sweep != plan.name || run.plan_hash != plan.hash) continue;
    const auto it = run.config.find("workload");
    if (it == run.config.end()) continue;
    for (size_t s = 0; s < plan.systems.size(); ++s)
      for (size_t w = 0; w < n_workloads; ++w) {
        auto& slot = previous[s * n_workloads + w];
        if (run.system == plan.systems[s].name && it->second == plan.workloads[w].name &&
            (!slot || run.id > slot->id))
          slot = run;
      }
  }
  return previous;
}

// The search of workload `w` on system `sys`, with the plan's request and the sweep's summary options.
Status MakeSearchOptions(const Plan& plan, const SystemSpec& sys, const WorkloadSpec& w,
                         const loadgen::ScenarioRules& rules, const SweepOptions& options, loadgen::SearchOptions* o) {
  o->rules = rules;
  o->base = SearchBaseLoad(plan, w);
  FRONTIER_RETURN_IF_ERROR(loadgen::ApplySearchRequest(plan.search->request, o));  // checked by ParsePlan
  o->point.summary.percentiles = plan.percentiles;
  o->point.summary.num_gpus = sys.gpus;
  o->point.summary.goodput = plan.slo;
  o->point.summary.timeslice.slice_s = plan.timeslice_s;
  const auto cl = options.provenance.find("command_line");
  if (cl != options.provenance.end()) o->point.command_line = cl->second;
  o->point.effective_settings = {{"workload", w.name},
                                 {"dataset", w.dataset},
                                 {"input_len", std::to_string(w.input_len)},
                                 {"output_len", std::to_string(w.output_len)},
                                 {"num_prompts", std::to_string(o->base.num_prompts)},
                                 {"warmup", std::to_string(o->base.warmup)},
                                 {"seed", std::to_string(w.seed)}};
  o->interrupt = options.stop;
  return Status::Ok();
}

// Runs the search of workload `wi` on system `s` into a new run. `session` is
// null when `*broken` says why the system cannot run; a failed search sets
// `*broken`. Sets cx.out.interrupted when the search was.
Status SearchOne(SweepContext& cx, size_t s, size_t wi, const loadgen::ScenarioRules& rules,
                 const std::optional<store::RunInfo>& before, Session* session, std::string* broken) {
  const Plan& plan = cx.plan;
  const SystemSpec& sys = plan.systems[s];
  const WorkloadSpec& w = plan.workloads[wi];
  SweepProgress& prog = cx.prog();
  prog.point = w.name;
  loadgen::SearchOptions o;
  FRONTIER_RETURN_IF_ERROR(MakeSearchOptions(plan, sys, w, rules, cx.options, &o));

  store::RunInfo info = PlanRun(plan, sys, cx.options);
  info.config["workload"] = w.name;
  info.config["search_goal"] = loadgen::SearchGoalName(o.goal);
  info.config["search_axis"] = loadgen::SearchAxisName(o.axis);
  FRONTIER_ASSIGN_OR_RETURN(PointSink sink, PointSink::Start(cx.store, std::move(info)));
  // A search cut short before is run again from its first trial; its run keeps its trials, marked.
  if (before)
    FRONTIER_RETURN_IF_ERROR(cx.store.SetRunStatus(
        before->id, store::SystemStatus::Broken("search interrupted; run again as run " +
                                                std::to_string(sink.run().id))));
  auto give_up = [&](const std::string& why) -> Status {
    ++prog.failed;
    ++prog.done;
    ++cx.out.failed;
    cx.Report("broken", why);
    return sink.MarkBroken(why);
  };
  if (!broken->empty()) return give_up(*broken);
  cx.Report("start", std::string(loadgen::SearchGoalName(o.goal)) + " over " + loadgen::SearchAxisName(o.axis));
  PointSpec point;
  point.system = s;
  point.workload = wi;
  point.num_prompts = o.base.num_prompts;
  point.seed = w.seed;
  point.key = w.name;
  SessionTrials trials(*session, point, sys.name);
  auto on_trial = [&](const loadgen::Trial& t, const loadgen::SearchResult& so_far) -> Status {
    FRONTIER_RETURN_IF_ERROR(sink.AddTrial(w.name, t, so_far, o, trials.Name()));
    prog.point = w.name + " trial " + std::to_string(t.index) + " @ " + FormatNumber(t.value);
    std::string detail = metrics::VerdictLabel(t.verdict.valid);
    if (!t.verdict.valid && !t.verdict.reasons.empty()) detail += " (" + t.verdict.reasons.front() + ")";
    if (t.band) detail += "  " + BandDetail(*t.band);
    cx.Report("trial", detail + " -> " + t.decision);
    return Status::Ok();
  };
  Result<loadgen::SearchResult> r = loadgen::Search(trials, o, on_trial);
  prog.point = w.name;
  if (!r.ok()) {
    // The session or the store failed: the system's remaining searches are not run.
    *broken = "search of workload " + w.name + " failed: " + r.status().message();
    return give_up(*broken);
  }
  if (r->stop_reason == "interrupted") {
    cx.out.interrupted = true;
    return Status::Ok();
  }
  ++prog.ran;
  ++prog.done;
  ++cx.out.ran;
  cx.Report("done", Answer(*r, o));
  return Status::Ok();
}

}  // namespace

Result<SweepOutcome> RunSearches(const Plan& plan, store::Store& store, const SessionFactory& factory,
                                 const SweepOptions& options) {
  SweepOutcome out;
  const size_t n_workloads = plan.workloads.size();
  out.total = static_cast<int64_t>(plan.systems.size() * n_workloads);
  ProgressReporter progress(out.total, options);
  SweepContext cx{plan, store, options, out, progress};
  SweepProgress& prog = progress.progress();

  // Each system's rules (its model picks the MLPerf benchmark), all resolved
  // before anything runs; the first trial's target lets a Server scenario resolve.
  FRONTIER_RETURN_IF_ERROR(CheckWorkloadFiles(plan));
  std::vector<loadgen::ScenarioRules> rules;
  for (const SystemSpec& sys : plan.systems) {
    FRONTIER_ASSIGN_OR_RETURN(loadgen::ScenarioRules r, SystemRules(plan, sys, plan.search->request.start, options));
    rules.push_back(std::move(r));
  }
  FRONTIER_RETURN_IF_ERROR(StopOrphans(cx));

  // The latest run of each search (system x workload) in the store, with --resume.
  std::vector<std::optional<store::RunInfo>> previous(static_cast<size_t>(out.total));
  if (options.resume) {
    FRONTIER_ASSIGN_OR_RETURN(previous, PreviousSearches(plan, store));
    for (const auto& p : previous)
      if (p && SearchFinished(*p)) ++prog.skipped;
    prog.done = prog.skipped;
    out.skipped = prog.skipped;
    if (prog.skipped > 0) cx.Report("skip", std::to_string(prog.skipped) + " searches already finished");
  }

  for (size_t s = 0; s < plan.systems.size() && !out.interrupted; ++s) {
    const SystemSpec& sys = plan.systems[s];
    std::vector<size_t> todo;
    for (size_t w = 0; w < n_workloads; ++w) {
      const auto& p = previous[s * n_workloads + w];
      if (!p || !SearchFinished(*p)) todo.push_back(w);
    }
    if (todo.empty()) continue;
    if (cx.StopAsked()) {
      out.interrupted = true;
      break;
    }
    prog.system = sys.name;
    prog.point.clear();
    std::unique_ptr<Session> session;
    std::string broken;  // why the system's remaining searches cannot run
    if (Result<std::unique_ptr<Session>> made = factory(plan, sys); made.ok()) {
      session = std::move(*made);
    } else {
      broken = made.status().message();
    }
    for (size_t k = 0; k < todo.size(); ++k) {
      FRONTIER_RETURN_IF_ERROR(
          SearchOne(cx, s, todo[k], rules[s], previous[s * n_workloads + todo[k]], session.get(), &broken));
      if (out.interrupted) break;
    }
    if (!broken.empty()) out.broken.push_back(sys.name + ": " + broken);
  }
  return out;
}

ProgressReporter::ProgressReporter(int64_t total, const SweepOptions& options)
    : options_(options), t0_(options.clock->Now()) {
  prog_.total = total;
}

void ProgressReporter::Ran(Nanos took, int64_t requests) {
  run_time_ += took;
  run_requests_ += requests;
}

void ProgressReporter::Report(const std::string& event, const std::string& detail) {
  prog_.event = event;
  prog_.detail = detail;
  prog_.elapsed_s = NanosToSeconds(options_.clock->Now() - t0_);
  prog_.eta_s = run_requests_ > 0 ? NanosToSeconds(run_time_) / static_cast<double>(run_requests_) *
                                         static_cast<double>(pending_requests_)
                                   : -1;
  if (options_.on_progress) options_.on_progress(prog_);
}

namespace {

// The scenario's rules of a system at a load value (none without a scenario).
Result<std::optional<loadgen::ScenarioRules>> RulesFor(const Plan& plan, const SystemSpec& sys, double load_value,
                                                       const SweepOptions& options) {
  if (!plan.scenario) return std::optional<loadgen::ScenarioRules>();
  FRONTIER_ASSIGN_OR_RETURN(loadgen::ScenarioRules r, SystemRules(plan, sys, load_value, options));
  return std::optional<loadgen::ScenarioRules>(std::move(r));
}

// Runs (found with --resume, or created) and the point keys they already hold, per system.
Status OpenRuns(SweepContext& cx, const std::vector<PointSpec>& matrix, std::vector<store::RunInfo>* runs,
                std::vector<std::set<std::string>>* have) {
  const Plan& plan = cx.plan;
  for (size_t s = 0; s < plan.systems.size(); ++s) {
    const SystemSpec& sys = plan.systems[s];
    std::optional<store::RunInfo> found;
    if (cx.options.resume) {
      FRONTIER_ASSIGN_OR_RETURN(found, cx.store.FindRun(plan.name, plan.hash, sys.name));
    }
    if (found) {
      (*runs)[s] = *found;
      FRONTIER_ASSIGN_OR_RETURN((*have)[s], cx.store.PointKeys(found->id));
    } else {
      store::RunInfo info = PlanRun(plan, sys, cx.options);
      // How many points the run will hold when whole (the dashboard's progress).
      info.provenance["planned_points"] = std::to_string(
          std::count_if(matrix.begin(), matrix.end(), [&](const PointSpec& p) { return p.system == s; }));
      FRONTIER_ASSIGN_OR_RETURN((*runs)[s], cx.store.CreateRun(info));
    }
    // Only the id and status are used from here on: the plan's text is held
    // once (plan.text), not once per system (10,000 systems held 7.2 GB).
    std::string().swap((*runs)[s].plan_text);
    cx.out.run_ids.push_back((*runs)[s].id);
  }
  return Status::Ok();
}

// What the attempts at one point came to, before it is stored.
struct PointAttempts {
  Status error;                         // a failure that stops the sweep (rules that do not resolve)
  Result<loadgen::PointOutcome> outcome = Status::Ok();  // the attempt that completed a request
  std::optional<loadgen::ScenarioRules> rules;           // ... and the rules it was judged by
  int attempt = 0;                      // its number, from 1; 0 when none did
  int attempts = 0;                     // attempts run
  bool interrupted = false;             // an attempt was (the point is not stored; --resume runs it again)
  std::string last_error;               // when none completed a request
  std::vector<std::string> retried;     // the errors of attempts tried again, not yet reported
  Nanos took = 0;                       // the attempts' time
};

// Runs point `p` up to options.max_attempts times, until an attempt completes
// a request, into `a`; `retry` hears each failed attempt that is tried again.
// Reads cx and changes nothing in it, so points of one system may run on
// several threads (Session::Parallelism).
void AttemptPoint(const SweepContext& cx, const SystemSpec& sys, Session& session, const PointSpec& p,
                  const loadgen::PointOptions& point_options, const std::function<void(const std::string&)>& retry,
                  PointAttempts* a) {
  const SweepOptions& options = cx.options;
  for (int attempt = 1; attempt <= options.max_attempts; ++attempt) {
    const Nanos start = options.clock->Now();
    Result<std::optional<loadgen::ScenarioRules>> rules = RulesFor(cx.plan, sys, p.load_value, options);
    if (!rules.ok()) {
      a->error = rules.status();
      return;
    }
    loadgen::PointOptions at = point_options;
    at.rules = std::move(*rules);
    Result<loadgen::PointOutcome> r = session.RunPoint(p, at);
    a->took += options.clock->Now() - start;
    ++a->attempts;
    if (r.ok() && r->run.interrupted) {
      a->interrupted = true;
      return;
    }
    a->last_error = r.ok() ? (r->summary.completed == 0 ? metrics::NoRequestCompleted(r->summary.failures_by_reason) : "")
                           : r.status().message();
    if (a->last_error.empty()) {
      a->outcome = std::move(r);
      a->rules = std::move(at.rules);
      a->attempt = attempt;
      return;
    }
    if (attempt < options.max_attempts) retry(a->last_error);
  }
}

// The "done" event's detail: the scenario's verdict, then a simulated point's band.
std::string DoneDetail(const loadgen::PointOutcome& r) {
  std::string detail;
  if (r.verdict) {
    detail = metrics::VerdictLabel(r.verdict->valid);
    if (!r.verdict->reasons.empty()) detail += ": " + r.verdict->reasons.front();
  }
  if (r.run.band) detail += (detail.empty() ? "" : "  ") + BandDetail(*r.run.band);
  return detail;
}

// Runs the points `todo` of system `s` into `run`, each stored as it is
// delivered (in the plan's order, whatever order they end in when the
// session runs several at once); a point that fails every attempt breaks the
// system (its remaining points are not run, or not stored).
Status RunSystem(SweepContext& cx, const SessionFactory& factory, size_t s, const std::vector<const PointSpec*>& todo,
                 store::RunInfo& run) {
  const SystemSpec& sys = cx.plan.systems[s];
  SweepProgress& prog = cx.prog();
  prog.system = sys.name;
  prog.point.clear();
  auto mark_broken = [&](const std::string& reason, size_t from) -> Status {
    const int64_t lost = static_cast<int64_t>(todo.size() - from);
    for (size_t k = from; k < todo.size(); ++k) cx.progress.Settled(todo[k]->num_prompts);
    prog.failed += lost;
    prog.done += lost;
    cx.out.failed += lost;
    cx.out.broken.push_back(sys.name + ": " + reason);
    cx.Report("broken", reason);
    return cx.store.SetRunStatus(run.id, store::SystemStatus::Broken(reason));
  };
  cx.Report("start");
  // Every point of the system is summarised as bench summarises its point
  // (loadgen::ResolveMetrics): the plan's percentiles, SLO and window.
  loadgen::PointOptions point_options;
  point_options.summary.percentiles = cx.plan.percentiles;
  point_options.summary.num_gpus = sys.gpus;
  point_options.summary.goodput = cx.plan.slo;
  point_options.summary.timeslice.slice_s = cx.plan.timeslice_s;
  Result<std::unique_ptr<Session>> session = factory(cx.plan, sys);
  if (!session.ok()) return mark_broken(session.status().message(), 0);
  PointSink sink = PointSink::Over(cx.store, run);
  const unsigned threads = std::max(1u, (*session)->Parallelism());
  std::vector<PointAttempts> slots(todo.size());
  auto attempt = [&](size_t i) {
    // One thread: each retry is reported as it happens; several: when the point is delivered.
    if (threads == 1) prog.point = todo[i]->key;
    auto retry = [&, i](const std::string& e) {
      if (threads == 1) cx.Report("retry", e);
      else slots[i].retried.push_back(e);
    };
    AttemptPoint(cx, sys, **session, *todo[i], point_options, retry, &slots[i]);
  };
  Status error;
  bool broken = false;
  Nanos last = cx.options.clock->Now();
  auto deliver = [&](size_t i) -> bool {
    PointAttempts& a = slots[i];
    const PointSpec& p = *todo[i];
    prog.point = p.key;
    for (const std::string& e : a.retried) cx.Report("retry", e);
    // The ETA's time per request: the attempts' own time on one thread, the
    // time between deliveries on several (their attempts overlap).
    const Nanos now = cx.options.clock->Now();
    cx.progress.Ran(threads == 1 ? a.took : now - last, p.num_prompts * a.attempts);
    last = now;
    if (!a.error.ok() || a.interrupted) {
      error = a.error;
      cx.out.interrupted = cx.out.interrupted || a.interrupted;
      return false;
    }
    ++prog.ran;
    if (a.attempt == 0) {
      error = mark_broken("point " + p.key + " failed twice: " + a.last_error, i);
      broken = true;
      return false;
    }
    // A point judged against a scenario keeps its verdict beside its metrics.
    error = sink.Add(SweepPlace(cx.plan, sys, p, *a.outcome, a.attempt), *a.outcome, a.rules);
    if (!error.ok()) return false;
    const std::string detail = DoneDetail(*a.outcome);
    a.outcome = Status::Ok();  // frees the run's records
    ++cx.out.ran;
    ++prog.done;
    cx.progress.Settled(p.num_prompts);
    cx.Report("done", detail);
    return true;
  };
  const size_t delivered =
      RunOrdered(todo.size(), {.threads = threads}, attempt, deliver, [&cx] { return cx.StopAsked(); });
  FRONTIER_RETURN_IF_ERROR(error);
  if (!broken && delivered < todo.size()) cx.out.interrupted = true;  // stopped between points
  if (!broken && !cx.out.interrupted && !run.status.ok()) {
    FRONTIER_RETURN_IF_ERROR(cx.store.SetRunStatus(run.id, store::SystemStatus{}));
  }
  return Status::Ok();
}

}  // namespace

Result<SweepOutcome> RunSweep(const Plan& plan, store::Store& store, const SessionFactory& factory,
                              const SweepOptions& options) {
  if (plan.search) return RunSearches(plan, store, factory, options);
  const std::vector<PointSpec> matrix = ExpandMatrix(plan);
  SweepOutcome out;
  out.total = static_cast<int64_t>(matrix.size());
  ProgressReporter progress(out.total, options);
  SweepContext cx{plan, store, options, out, progress};
  SweepProgress& prog = progress.progress();

  // Every system's scenario rules, and the workloads' files, are checked before anything runs.
  FRONTIER_RETURN_IF_ERROR(CheckWorkloadFiles(plan));
  for (const SystemSpec& sys : plan.systems)
    FRONTIER_RETURN_IF_ERROR(RulesFor(plan, sys, plan.load.values.front(), options).status());
  FRONTIER_RETURN_IF_ERROR(StopOrphans(cx));

  std::vector<store::RunInfo> runs(plan.systems.size());
  std::vector<std::set<std::string>> have(plan.systems.size());
  FRONTIER_RETURN_IF_ERROR(OpenRuns(cx, matrix, &runs, &have));
  for (const auto& p : matrix) {
    if (have[p.system].count(p.key)) {
      ++prog.done;
      ++prog.skipped;
    } else {
      progress.AddPending(p.num_prompts);
    }
  }
  out.skipped = prog.skipped;
  if (prog.skipped > 0) cx.Report("skip", std::to_string(prog.skipped) + " points already stored");

  for (size_t s = 0; s < plan.systems.size(); ++s) {
    std::vector<const PointSpec*> todo;
    for (const auto& p : matrix)
      if (p.system == s && !have[s].count(p.key)) todo.push_back(&p);
    if (todo.empty()) {
      if (!runs[s].status.ok()) FRONTIER_RETURN_IF_ERROR(store.SetRunStatus(runs[s].id, store::SystemStatus{}));
      continue;
    }
    if (cx.StopAsked()) break;
    FRONTIER_RETURN_IF_ERROR(RunSystem(cx, factory, s, todo, runs[s]));
    if (out.interrupted) break;
  }
  return out;
}

}  // namespace frontier::sweep
