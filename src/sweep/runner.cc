#include "sweep/runner.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/parse.h"
#include "loadgen/verdict.h"
#include "metrics/summary.h"
#include "metrics/verdict_label.h"
#include "store/records.h"
#include "sweep/search_store.h"
#include "workload/option_names.h"

namespace frontier::sweep {
namespace {

std::string Source(const SystemSpec& s) {
  return s.simulated() && !s.live ? store::source::kSimulated : store::source::kMeasured;
}

// The run a system of the plan is stored as, grid or search alike: the plan
// (name, hash, text), the system (name, source, configuration) and the
// sweep's provenance with the plan's file. Each caller adds its own keys
// (a grid's planned_points, a search's workload, goal and axis).
store::RunInfo PlanRun(const Plan& plan, const SystemSpec& sys, const SweepOptions& options) {
  store::RunInfo info;
  info.sweep = plan.name;
  info.plan_hash = plan.hash;
  info.plan_text = plan.text;
  info.system = sys.name;
  info.source = Source(sys);
  info.config = sys.Config();
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

store::PointRecord MakeRecord(const Plan& plan, const SystemSpec& system, const PointSpec& p,
                              const loadgen::PointOutcome& outcome, int attempts) {
  const RunResult& result = outcome.run;
  const metrics::Summary& summary = outcome.summary;
  const WorkloadSpec& w = plan.workloads[p.workload];
  store::PointRecord r = store::PointFromRun(result, summary, system.gpus);
  r.key = p.key;
  r.workload = w.name;
  r.load_kind = plan.load.kind;
  r.load_value = p.load_value;
  r.repetition = p.repetition;
  // A `live` simulated system is measured over HTTP by the client: its points are measured.
  r.source = result.source == RunSource::kSimulated ? store::source::kSimulated : Source(system);
  r.attempts = attempts;
  r.settings["num_prompts"] = std::to_string(p.num_prompts);
  r.settings["seed"] = std::to_string(p.seed);
  r.settings["input_len"] = std::to_string(w.input_len);
  r.settings["output_len"] = std::to_string(w.output_len);
  r.settings["dataset"] = w.dataset;
  if (summary.has_sessions) r.settings["load_unit"] = "sessions";  // num_prompts and concurrency count sessions
  if (outcome.verdict) r.settings["num_prompts"] = std::to_string(outcome.verdict->queries);  // the scenario's
  if (plan.scenario && plan.scenario->scenario) {
    r.settings["scenario"] = loadgen::ScenarioName(*plan.scenario->scenario);
    r.settings["target_qps"] = FormatNumber(p.load_value);
  }
  return r;
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

}  // namespace

Result<SweepOutcome> RunSearches(const Plan& plan, store::Store& store, const SessionFactory& factory,
                                 const SweepOptions& options) {
  SweepOutcome out;
  const size_t n_workloads = plan.workloads.size();
  out.total = static_cast<int64_t>(plan.systems.size() * n_workloads);
  ProgressReporter progress(out.total, options);
  SweepProgress& prog = progress.progress();
  auto report = [&](const std::string& event, const std::string& detail = "") { progress.Report(event, detail); };

  // Each system's rules (its model picks the MLPerf benchmark), all resolved
  // before anything runs; the first trial's target lets a Server scenario resolve.
  std::vector<loadgen::ScenarioRules> rules;
  for (const SystemSpec& sys : plan.systems) {
    FRONTIER_ASSIGN_OR_RETURN(loadgen::ScenarioRules r, SystemRules(plan, sys, plan.search->request.start, options));
    rules.push_back(std::move(r));
  }
  if (options.stop_orphans) {
    FRONTIER_ASSIGN_OR_RETURN(std::vector<std::string> orphans, options.stop_orphans(store));
    for (const auto& line : orphans) report("orphan", line);
  }

  // The latest run of each search (system x workload) in the store, with --resume.
  std::vector<std::optional<store::RunInfo>> previous(static_cast<size_t>(out.total));
  if (options.resume) {
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
    for (const auto& p : previous)
      if (p && SearchFinished(*p)) ++prog.skipped;
    prog.done = prog.skipped;
    out.skipped = prog.skipped;
    if (prog.skipped > 0) report("skip", std::to_string(prog.skipped) + " searches already finished");
  }

  for (size_t s = 0; s < plan.systems.size() && !out.interrupted; ++s) {
    const SystemSpec& sys = plan.systems[s];
    std::vector<size_t> todo;
    for (size_t w = 0; w < n_workloads; ++w) {
      const auto& p = previous[s * n_workloads + w];
      if (!p || !SearchFinished(*p)) todo.push_back(w);
    }
    if (todo.empty()) continue;
    if (options.stop && options.stop->load()) {
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
      const WorkloadSpec& w = plan.workloads[todo[k]];
      prog.point = w.name;
      loadgen::SearchOptions o;
      o.rules = rules[s];
      o.base = SearchBaseLoad(plan, w);
      FRONTIER_RETURN_IF_ERROR(loadgen::ApplySearchRequest(plan.search->request, &o));  // checked by ParsePlan
      o.point.summary.percentiles = options.percentiles;
      o.point.summary.num_gpus = sys.gpus;
      o.point.summary.goodput = plan.slo;
      const auto cl = options.provenance.find("command_line");
      if (cl != options.provenance.end()) o.point.command_line = cl->second;
      o.point.effective_settings = {{"workload", w.name},
                                    {"dataset", w.dataset},
                                    {"input_len", std::to_string(w.input_len)},
                                    {"output_len", std::to_string(w.output_len)},
                                    {"num_prompts", std::to_string(o.base.num_prompts)},
                                    {"warmup", std::to_string(o.base.warmup)},
                                    {"seed", std::to_string(w.seed)}};
      o.interrupt = options.stop;

      store::RunInfo info = PlanRun(plan, sys, options);
      info.config["workload"] = w.name;
      info.config["search_goal"] = loadgen::SearchGoalName(o.goal);
      info.config["search_axis"] = loadgen::SearchAxisName(o.axis);
      FRONTIER_ASSIGN_OR_RETURN(SearchRecorder recorder, SearchRecorder::Start(store, std::move(info), w.name));
      // A search cut short before is run again from its first trial; its run keeps its trials, marked.
      if (const auto& before = previous[s * n_workloads + todo[k]])
        FRONTIER_RETURN_IF_ERROR(store.SetRunStatus(
            before->id, store::SystemStatus::Broken("search interrupted; run again as run " +
                                                    std::to_string(recorder.run().id))));
      auto give_up = [&](const std::string& why) -> Status {
        ++prog.failed;
        ++prog.done;
        ++out.failed;
        report("broken", why);
        return store.SetRunStatus(recorder.run().id, store::SystemStatus::Broken(why));
      };
      if (!broken.empty()) {
        FRONTIER_RETURN_IF_ERROR(give_up(broken));
        continue;
      }
      report("start", std::string(loadgen::SearchGoalName(o.goal)) + " over " + loadgen::SearchAxisName(o.axis));
      PointSpec point;
      point.system = s;
      point.workload = todo[k];
      point.num_prompts = o.base.num_prompts;
      point.seed = w.seed;
      point.key = w.name;
      SessionTrials trials(*session, point, sys.name);
      auto on_trial = [&](const loadgen::Trial& t, const loadgen::SearchResult& so_far) -> Status {
        FRONTIER_RETURN_IF_ERROR(recorder.Record(t, so_far, o, trials.Name()));
        prog.point = w.name + " trial " + std::to_string(t.index) + " @ " + FormatNumber(t.value);
        std::string detail = metrics::VerdictLabel(t.verdict.valid);
        if (!t.verdict.valid && !t.verdict.reasons.empty()) detail += " (" + t.verdict.reasons.front() + ")";
        if (t.band) detail += "  " + BandDetail(*t.band);
        report("trial", detail + " -> " + t.decision);
        return Status::Ok();
      };
      Result<loadgen::SearchResult> r = loadgen::Search(trials, o, on_trial);
      prog.point = w.name;
      if (!r.ok()) {
        // The session or the store failed: the system's remaining searches are not run.
        broken = "search of workload " + w.name + " failed: " + r.status().message();
        FRONTIER_RETURN_IF_ERROR(give_up(broken));
        continue;
      }
      if (r->stop_reason == "interrupted") {
        out.interrupted = true;
        break;
      }
      ++prog.ran;
      ++prog.done;
      ++out.ran;
      report("done", Answer(*r, o));
    }
    if (!broken.empty()) out.broken.push_back(sys.name + ": " + broken);
  }
  return out;
}

ProgressReporter::ProgressReporter(
int64_t total, const SweepOptions& options)
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

Result<SweepOutcome> RunSweep(const Plan& plan, store::Store& store, const SessionFactory& factory,
                              const SweepOptions& options) {
  if (plan.search) return RunSearches(plan, store, factory, options);
  const std::vector<PointSpec> matrix = ExpandMatrix(plan);
  SweepOutcome out;
  out.total = static_cast<int64_t>(matrix.size());
  ProgressReporter progress(out.total, options);
  SweepProgress& prog = progress.progress();
  auto report = [&](const std::string& event, const std::string& detail = "") { progress.Report(event, detail); };

  // The scenario's rules of a system at a load value; every system's are
  // checked before anything runs.
  auto rules_for = [&](const SystemSpec& sys, double load_value) -> Result<std::optional<loadgen::ScenarioRules>> {
    if (!plan.scenario) return std::optional<loadgen::ScenarioRules>();
    FRONTIER_ASSIGN_OR_RETURN(loadgen::ScenarioRules r, SystemRules(plan, sys, load_value, options));
    return std::optional<loadgen::ScenarioRules>(std::move(r));
  };
  for (const SystemSpec& sys : plan.systems) FRONTIER_RETURN_IF_ERROR(rules_for(sys, plan.load.values.front()).status());

  // Servers that a sweep launched and died before stopping are stopped first
  // (they would hold ports, GPUs, and answer for the servers launched now).
  if (options.stop_orphans) {
    FRONTIER_ASSIGN_OR_RETURN(std::vector<std::string> orphans, options.stop_orphans(store));
    for (const auto& line : orphans) report("orphan", line);
  }

  // Runs (found or created) and what they already hold, per system.
  std::vector<store::RunInfo> runs(plan.systems.size());
  std::vector<std::set<std::string>> have(plan.systems.size());
  for (size_t s = 0; s < plan.systems.size(); ++s) {
    const SystemSpec& sys = plan.systems[s];
    std::optional<store::RunInfo> found;
    if (options.resume) {
      FRONTIER_ASSIGN_OR_RETURN(found, store.FindRun(plan.name, plan.hash, sys.name));
    }
    if (found) {
      runs[s] = *found;
      FRONTIER_ASSIGN_OR_RETURN(have[s], store.PointKeys(found->id));
    } else {
      store::RunInfo info = PlanRun(plan, sys, options);
      // How many points the run will hold when whole (the dashboard's progress).
      info.provenance["planned_points"] = std::to_string(
          std::count_if(matrix.begin(), matrix.end(), [&](const PointSpec& p) { return p.system == s; }));
      FRONTIER_ASSIGN_OR_RETURN(runs[s], store.CreateRun(info));
    }
    // Only the id and status are used from here on: the plan's text is held
    // once (plan.text), not once per system (10,000 systems held 7.2 GB).
    std::string().swap(runs[s].plan_text);
    out.run_ids.push_back(runs[s].id);
  }
  for (const auto& p : matrix) {
    if (have[p.system].count(p.key)) {
      ++prog.done;
      ++prog.skipped;
    } else {
      progress.AddPending(p.num_prompts);
    }
  }
  out.skipped = prog.skipped;
  if (prog.skipped > 0) report("skip", std::to_string(prog.skipped) + " points already stored");

  for (size_t s = 0; s < plan.systems.size(); ++s) {
    const SystemSpec& sys = plan.systems[s];
    std::vector<const PointSpec*> todo;
    for (const auto& p : matrix)
      if (p.system == s && !have[s].count(p.key)) todo.push_back(&p);
    if (todo.empty()) {
      if (!runs[s].status.ok()) FRONTIER_RETURN_IF_ERROR(store.SetRunStatus(runs[s].id, store::SystemStatus{}));
      continue;
    }
    if (options.stop && options.stop->load()) break;
    prog.system = sys.name;
    prog.point.clear();
    auto mark_broken = [&](const std::string& reason, size_t from) -> Status {
      const int64_t lost = static_cast<int64_t>(todo.size() - from);
      for (size_t k = from; k < todo.size(); ++k) progress.Settled(todo[k]->num_prompts);
      prog.failed += lost;
      prog.done += lost;
      out.failed += lost;
      out.broken.push_back(sys.name + ": " + reason);
      report("broken", reason);
      return store.SetRunStatus(runs[s].id, store::SystemStatus::Broken(reason));
    };
    report("start");
    // Every point of the system is summarised with the sweep's percentiles and the plan's SLO.
    loadgen::PointOptions point_options;
    point_options.summary.percentiles = options.percentiles;
    point_options.summary.num_gpus = sys.gpus;
    point_options.summary.goodput = plan.slo;
    Result<std::unique_ptr<Session>> session = factory(plan, sys);
    if (!session.ok()) {
      FRONTIER_RETURN_IF_ERROR(mark_broken(session.status().message(), 0));
      continue;
    }
    bool broken = false;
    for (size_t i = 0; i < todo.size() && !broken; ++i) {
      if (options.stop && options.stop->load()) {
        out.interrupted = true;
        break;
      }
      const PointSpec& p = *todo[i];
      prog.point = p.key;
      std::string last_error;
      std::string verdict;  // the scenario's, when there is one; then a simulated point's band
      bool stored = false;
      for (int attempt = 1; attempt <= options.max_attempts && !stored; ++attempt) {
        const Nanos start = options.clock->Now();
        loadgen::PointOptions at = point_options;
        FRONTIER_ASSIGN_OR_RETURN(at.rules, rules_for(sys, p.load_value));
        Result<loadgen::PointOutcome> r = (*session)->RunPoint(p, at);
        progress.Ran(options.clock->Now() - start, p.num_prompts);
        if (r.ok() && r->run.interrupted) {
          out.interrupted = true;  // partial: not stored, so --resume runs it again
          break;
        }
        if (r.ok()) {
          const metrics::Summary& summary = r->summary;
          if (summary.completed == 0) last_error = metrics::NoRequestCompleted(summary.failures_by_reason);
        } else {
          last_error = r.status().message();
        }
        if (last_error.empty()) {
          store::PointRecord rec = MakeRecord(plan, sys, p, *r, attempt);
          if (r->verdict) {
            verdict = metrics::VerdictLabel(r->verdict->valid);
            if (!r->verdict->reasons.empty()) verdict += ": " + r->verdict->reasons.front();
          }
          rec.run_id = runs[s].id;
          // A point judged against a scenario keeps its verdict beside its metrics.
          if (r->verdict && at.rules) rec.verdict_json = loadgen::VerdictJson(*r->verdict, *at.rules).dump();
          if (rec.band) verdict += (verdict.empty() ? "" : "  ") + BandDetail(*rec.band);
          FRONTIER_ASSIGN_OR_RETURN(int64_t id, store.AddPoint(rec, store::RowsFromRun(r->run)));
          (void)id;
          stored = true;
        } else if (attempt < options.max_attempts) {
          report("retry", last_error);
          last_error.clear();
        }
      }
      if (out.interrupted) break;
      if (!stored) {
        ++prog.ran;
        FRONTIER_RETURN_IF_ERROR(mark_broken("point " + p.key + " failed twice: " + last_error, i));
        broken = true;
        break;
      }
      ++prog.ran;
      ++out.ran;
      ++prog.done;
      progress.Settled(p.num_prompts);
      report("done", verdict);
    }
    if (!broken && !out.interrupted && !runs[s].status.ok()) {
      FRONTIER_RETURN_IF_ERROR(store.SetRunStatus(runs[s].id, store::SystemStatus{}));
    }
    if (out.interrupted) break;
  }
  return out;
}

}  // namespace frontier::sweep
