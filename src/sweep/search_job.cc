#include "sweep/search_job.h"

#include <utility>

#include "core/atomic_file.h"
#include "loadgen/live_trial.h"
#include "loadgen/search_text.h"
#include "loadgen/target_request.h"
#include "sim/engine/data_dir.h"
#include "sim/search_trial.h"
#include "sim/spec_fields.h"
#include "sweep/as_plan.h"
#include "sweep/system_run.h"
#include "workload/dataset_label.h"

namespace frontier::sweep {

std::string SearchUsageProblem(const FlagGiven& given, bool live) {
  if (given("--as-plan"))
    if (std::string bad = loadgen::PlanFormProblem("search", SearchFlagsWithoutPlanForm(), given); !bad.empty())
      return bad;
  if (!given("--model"))
    return live ? "--model is required (the model name the server serves)"
                : "--model is required (frontier simulate --list shows the catalog)";
  if (live) {
    for (const FlagRow<sim::SimSpec>& row : sim::SimSpecFields())
      if (std::string(row.name) != "--model" && given(row.name))
        return std::string(row.name) + " describes a simulated system; leave it out with --base-url";
    if (given("--client-rtt-us")) return "--client-rtt-us is for simulated systems";
  } else {
    if (!given("--hardware"))
      return "--hardware is required for a simulated system (or give --base-url for a live one)";
    for (const FlagRow<loadgen::TargetRequest>& row : loadgen::TargetFlagRows()) {  // --model is the simulated system's
      const std::string flag = row.name;
      if (flag != "--base-url" && flag != "--model" && given(flag))
        return flag + " is for a live server: give --base-url too";
    }
  }
  return "";
}

std::vector<std::string> SearchOwnFlags() {
  std::vector<std::string> own;
  for (const FlagRow<sim::SimSpec>& row : sim::SimSpecFields()) own.push_back(row.name);
  for (const FlagRow<loadgen::SearchRequest>& row : loadgen::SearchFlagRows()) own.push_back(row.name);
  own.insert(own.end(), {"--no-saturation-stop", "--client-rtt-us", "--db", "--run-label"});
  return own;
}

Status SimulateSearch(const sim::SimSpec& spec, SearchJob* job) {
  FRONTIER_ASSIGN_OR_RETURN(sim::SimConfig config, sim::ResolveSimConfig(spec));
  job->system = SimulatedSystem(spec, config);
  job->spec = spec;
  job->model = config.model.name;
  job->config = std::move(config);
  return Status::Ok();
}

Status ResolveSearchOptions(const SearchSettings& settings, SearchJob* job) {
  loadgen::ResolvedWorkload& w = job->w;
  // Each trial sets its own target; the first one's lets the rules resolve.
  if (!w.scenario)  // said here before the rules are resolved (ApplySearchRequest says it too)
    return InvalidArgument("say what a trial must meet: --scenario server|interactive (the highest valid QPS), or "
                           "--slo / --min-interactivity (the best throughput per GPU)");
  if (w.scenario->scenario) w.scenario->target_qps = settings.request.start;
  FRONTIER_ASSIGN_OR_RETURN(std::optional<loadgen::ScenarioRules> rules,
                            loadgen::ResolveScenarioRules(w, sim::DefaultDataDir(), job->model));
  loadgen::SearchOptions& o = job->options;
  job->request = settings.request;
  o.rules = *rules;
  o.base = w.load;
  // The same checks as a plan's `search:` block.
  if (Status st = loadgen::ApplySearchRequest(settings.request, &o); !st.ok()) return InvalidArgument(st.message());
  if (o.goal == loadgen::SearchGoal::kMaxValidQps) {
    // Each trial's load comes from the scenario; the prompts are a pool reused cyclically.
    loadgen::UseScenarioPromptPool(o.rules, workload::kUnboundedPrompts, &w);
  }
  o.point.summary = w.summary;
  o.interrupt = settings.interrupt;
  o.point.command_line = settings.command_line;
  o.point.requested_settings = w.requested;
  for (const auto& [k, v] : settings.given_flags) o.point.requested_settings[k] = v;
  o.point.effective_settings = w.effective;
  return Status::Ok();
}

Status MakeSearchRunner(std::optional<loadgen::BenchOptions> bench, SearchJob* job) {
  if (job->w.sessions)
    return InvalidArgument("the search takes single-turn workloads, not --dataset trace or multi-turn");
  if (!job->w.tokenizer.empty())
    return InvalidArgument("--tokenizer is taken by bench and simulate; a search does not make its prompts from a "
                           "tokenizer yet (leave it out)");
  FRONTIER_ASSIGN_OR_RETURN(job->specs, workload::LoadDataset(job->w.dataset));
  loadgen::PointOptions& point = job->options.point;
  if (bench) {
    bench->command_line = point.command_line;
    job->system = ServerSystem(job->model, bench->client.base_url, bench->client.endpoint, job->w.summary.num_gpus);
    point.extra_result_fields["backend"] = bench->extra_result_fields["backend"];
    job->runner = std::make_unique<loadgen::LiveTrialRunner>(std::move(*bench), &job->specs);
  } else {
    point.extra_result_fields["backend"] = "frontier-simulate";
    point.extra_result_fields["model_id"] = job->config->model.name;
    job->runner = std::make_unique<sim::SimTrialRunner>(*job->config, &job->specs, job->sim_options);
  }
  return Status::Ok();
}

Status StartSearchSink(std::unique_ptr<store::Store> db, const std::string& run_label,
                       std::map<std::string, std::string> provenance, SearchJob* job) {
  const loadgen::SearchOptions& o = job->options;
  store::RunInfo run = CommandRun(job->system, o.point.effective_settings, o.point.command_line);
  run.sweep = run_label;
  run.config["search_goal"] = loadgen::SearchGoalName(o.goal);
  run.config["search_axis"] = loadgen::SearchAxisName(o.axis);
  run.provenance = std::move(provenance);
  FRONTIER_ASSIGN_OR_RETURN(PointSink sink, PointSink::Start(std::move(db), std::move(run)));
  job->sink.emplace(std::move(sink));
  return Status::Ok();
}

Result<loadgen::SearchResult> RunSearchJob(SearchJob& job, const std::function<void(const std::string&)>& show) {
  const loadgen::SearchOptions& o = job.options;
  show(loadgen::SearchHeadline(o, job.runner->Name()));
  auto on_trial = [&](const loadgen::Trial& t, const loadgen::SearchResult& so_far) -> Status {
    show(loadgen::TrialRow(t, o.axis));
    if (job.sink)
      FRONTIER_RETURN_IF_ERROR(job.sink->AddTrial(workload::DatasetLabel(job.w.dataset), t, so_far, o,
                                                      job.runner->Name()));
    if (job.w.result_json.empty()) return Status::Ok();
    return WriteFileAtomically(job.w.result_json,
                               loadgen::SearchResultJson(so_far, o, job.runner->Name()).dump(2) + "\n");
  };
  return loadgen::Search(*job.runner, o, on_trial);
}

}  // namespace frontier::sweep
