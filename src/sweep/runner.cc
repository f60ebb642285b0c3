#include "sweep/runner.h"

#include <algorithm>

#include "metrics/summary.h"
#include "store/records.h"

namespace frontier::sweep {
namespace {

std::string Source(const SystemSpec& s) {
  return s.simulated() && !s.live ? store::source::kSimulated : store::source::kMeasured;
}

store::PointRecord MakeRecord(const Plan& plan, const SystemSpec& system, const PointSpec& p,
                              const RunResult& result, const metrics::Summary& summary,
                              int attempts) {
  const WorkloadSpec& w = plan.workloads[p.workload];
  store::PointRecord r;
  r.key = p.key;
  r.workload = w.name;
  r.load_kind = plan.load.kind;
  r.load_value = p.load_value;
  r.repetition = p.repetition;
  // A `live` simulated system is measured over HTTP by the client: its points are measured.
  r.source = result.source == "simulated" ? store::source::kSimulated : Source(system);
  r.attempts = attempts;
  r.settings = result.effective_settings;
  r.settings["num_prompts"] = std::to_string(p.num_prompts);
  r.settings["seed"] = std::to_string(p.seed);
  r.settings["input_len"] = std::to_string(w.input_len);
  r.settings["output_len"] = std::to_string(w.output_len);
  r.settings["dataset"] = w.dataset;
  r.metrics = store::MetricsFromSummary(summary, system.gpus);
  r.summary_json = store::SummaryToJson(summary);
  r.series = store::SeriesFromRun(result, summary);
  return r;
}

}  // namespace

Result<SweepOutcome> RunSweep(const Plan& plan, store::Store& store, const SessionFactory& factory,
                              const SweepOptions& options) {
  const std::vector<PointSpec> matrix = ExpandMatrix(plan);
  SweepOutcome out;
  out.total = static_cast<int64_t>(matrix.size());
  SweepProgress prog;
  prog.total = out.total;
  const Nanos t0 = options.clock->Now();
  // The ETA weighs points by their request count: a point at concurrency 256
  // sends 256 times the requests of one at concurrency 1 and takes about as
  // much longer.
  Nanos run_time = 0;          // time spent in points run now
  int64_t run_requests = 0;    // requests of those points
  int64_t left_requests = 0;   // requests of the points not done yet
  auto report = [&](const std::string& event, const std::string& detail = "") {
    prog.event = event;
    prog.detail = detail;
    prog.elapsed_s = NanosToSeconds(options.clock->Now() - t0);
    prog.eta_s = run_requests > 0 ? NanosToSeconds(run_time) / static_cast<double>(run_requests) *
                                        static_cast<double>(left_requests)
                                  : -1;
    if (options.on_progress) options.on_progress(prog);
  };

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
      store::RunInfo info;
      info.sweep = plan.name;
      info.plan_hash = plan.hash;
      info.plan_text = plan.text;
      info.system = sys.name;
      info.source = Source(sys);
      info.config = sys.Config();
      info.provenance = options.provenance;
      info.provenance["plan_file"] = plan.file;
      // How many points the run will hold when whole (the dashboard's progress).
      info.provenance["planned_points"] = std::to_string(
          std::count_if(matrix.begin(), matrix.end(), [&](const PointSpec& p) { return p.system == s; }));
      FRONTIER_ASSIGN_OR_RETURN(runs[s], store.CreateRun(info));
    }
    out.run_ids.push_back(runs[s].id);
  }
  for (const auto& p : matrix) {
    if (have[p.system].count(p.key)) {
      ++prog.done;
      ++prog.skipped;
    } else {
      left_requests += p.num_prompts;
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
      for (size_t k = from; k < todo.size(); ++k) left_requests -= todo[k]->num_prompts;
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
      bool stored = false;
      for (int attempt = 1; attempt <= options.max_attempts && !stored; ++attempt) {
        const Nanos start = options.clock->Now();
        Result<loadgen::PointOutcome> r = (*session)->RunPoint(p, point_options);
        run_time += options.clock->Now() - start;
        run_requests += p.num_prompts;
        if (r.ok() && r->run.interrupted) {
          out.interrupted = true;  // partial: not stored, so --resume runs it again
          break;
        }
        if (r.ok()) {
          const metrics::Summary& summary = r->summary;
          if (summary.completed == 0) {
            std::string why;
            for (auto& [reason, n] : summary.failures_by_reason)
              why += (why.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
            last_error = "no request completed (" + (why.empty() ? "no requests" : why) + ")";
          }
        } else {
          last_error = r.status().message();
        }
        if (last_error.empty()) {
          store::PointRecord rec = MakeRecord(plan, sys, p, r->run, r->summary, attempt);
          rec.run_id = runs[s].id;
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
      left_requests -= p.num_prompts;
      report("done");
    }
    if (!broken && !out.interrupted && !runs[s].status.ok()) {
      FRONTIER_RETURN_IF_ERROR(store.SetRunStatus(runs[s].id, store::SystemStatus{}));
    }
    if (out.interrupted) break;
  }
  return out;
}

}  // namespace frontier::sweep
