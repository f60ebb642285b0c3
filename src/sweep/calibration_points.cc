#include "sweep/calibration_points.h"

#include <cstdint>
#include <utility>

#include "core/parse.h"
#include "core/redact.h"
#include "core/split.h"
#include "sim/fit/measured.h"
#include "store/store.h"
#include "sweep/point_store.h"

namespace frontier::sweep {
namespace {

using C = StackCalibration;
const std::string kDbRunsHelp = std::string(kDbHelp) + "; holds the measured runs (--runs)";
const FlagRow<C> kFlags[] = {
    {"--fit", &C::fit, "Parameters to fit, comma-separated [the stack's calibration.free]", "Options"},
    {"--id", &C::only, "Only published results whose id contains this text", "Options"},
    {"--no-published", &C::no_published, "Fit only the measured runs (--db, --runs)", "Options"},
    {"--db", &C::db, kDbRunsHelp.c_str(), "Options"},
    {"--runs", &C::runs, "Run ids in --db to fit (their concurrency points), comma-separated", "Options"},
    {"--probe", &C::probe,
     "A probe run in --db (frontier probe): fit its GEMM and HBM points as its GPU's efficiency curves, written to "
     "data/probes/<gpu>.json (or --out)",
     "Options"},
    {"--version", &C::version, "Version of the stack file written [<version>+cal<date>]", "Options"},
    {"--out", &C::out_path, "Path of the stack file written [data/stacks/<name>@<version>.json]", "Options"},
    {"--in-place", &C::in_place, "Rewrite the stack version's own file", "Options"},
    {"--dry-run", &C::dry_run, "Fit and print; write nothing", "Options"},
    {"--no-loo", &C::no_loo, "Skip the leave-one-out refits", "Options"},
    {"--note", &C::note, "One line kept in the file's calibration record", "Options"},
    {"--offline-requests", &C::offline_requests, "Samples drawn per Offline run [6000]", "Options"},
    {"--server-requests", &C::server_requests, "Requests per probe of the Server rate search [4000]", "Options"},
};

// --probe's: a GPU's fit from a stored probe run.
std::string ProbeCalibrationProblem(const StackCalibration& c) {
  if (c.db.empty()) return "--probe needs --db, the results database that holds the probe run";
  if (!c.runs.empty() || c.deployment.stack || c.in_place || !c.version.empty())
    return "--probe fits a GPU, not a stack: drop --runs, --stack, --in-place and --version";
  if (!ParseInt("--probe", c.probe, 1, INT64_MAX).ok())
    return "--probe takes a probe run's id (frontier db ls), got '" + c.probe + "'";
  return "";
}

}  // namespace

std::span<const FlagRow<StackCalibration>> StackCalibrationFlagRows() { return kFlags; }

std::string StackCalibrationProblem(const StackCalibration& c, const FlagGiven& given) {
  if (!c.probe.empty()) return ProbeCalibrationProblem(c);
  if (!c.deployment.stack) return "--stack is required: the stack version to fit, or 'all'";
  if (!c.db.empty() && c.runs.empty()) return "--db needs --runs (frontier db ls lists them)";
  if (c.db.empty() && !c.runs.empty()) return "--runs needs --db";
  if (!c.db.empty() && (!given("--model") || !given("--hardware")))
    return "measured runs need their deployment: --model and --hardware (and --tp, ... as run)";
  if (c.in_place + !c.version.empty() + !c.out_path.empty() > 1) return "give one of --in-place, --version and --out";
  return sim::ValidationOptionsProblem(c);
}

Result<std::vector<std::string>> SplitFlagList(const std::string& text, const char* flag) {
  std::vector<std::string> out = SplitNonEmpty(text, ',');
  if (out.empty() && !text.empty()) return InvalidArgument(std::string(flag) + ": empty list");
  return out;
}

Result<std::vector<sim::ResultModel>> MeasuredRunModels(const std::string& db, const std::vector<std::string>& runs,
                                                        const sim::SimConfig& config) {
  FRONTIER_ASSIGN_OR_RETURN(auto store, store::OpenStore(db, store::OpenMode::kSnapshot));
  std::vector<sim::MeasuredPoint> points;
  for (const auto& text : runs) {
    const Result<int64_t> run_id = ParseInt("--runs", text, 1, INT64_MAX);
    if (!run_id.ok())
      return InvalidArgument("--runs takes comma-separated run ids (frontier db ls), got '" + text + "'");
    FRONTIER_ASSIGN_OR_RETURN(store::RunInfo info, store->GetRun(*run_id));
    FRONTIER_ASSIGN_OR_RETURN(std::vector<store::PointRecord> stored, store->ListPoints(*run_id));
    for (const auto& p : stored) {
      sim::MeasuredPoint m{info.Label() + "/" + p.key, db + " point " + std::to_string(p.id),
                           p.load_kind == store::LoadKind::kConcurrency, p.load_value,
                           p.metrics.output_throughput, {}};
      if (m.closed_loop && m.output_throughput > 0) {
        FRONTIER_ASSIGN_OR_RETURN(std::vector<store::RequestRow> rows, store->ListRequests(p.id));
        for (const auto& r : rows) m.requests.push_back({r.ok, r.warmup, r.prompt_tokens, r.output_tokens});
      }
      points.push_back(std::move(m));
    }
  }
  return sim::MeasuredModels(points, config, RedactUrl(db));
}

Result<std::vector<sim::ResultModel>> ModelsToFit(const sim::StackFitRequest& request, const sim::ValidationSet& set,
                                                  const sim::Stack& stack, const MeasuredRuns& measured,
                                                  const std::function<void(const std::string&)>& skipped) {
  FRONTIER_ASSIGN_OR_RETURN(std::vector<sim::ResultModel> models,
                            sim::PublishedModelsToFit(request, set, stack, skipped));
  if (!request.measured) return models;
  sim::SimSpec spec = measured.deployment;
  spec.stack = stack.id();
  FRONTIER_ASSIGN_OR_RETURN(const sim::SimConfig config, sim::ResolveSimConfig(spec));
  FRONTIER_ASSIGN_OR_RETURN(std::vector<sim::ResultModel> runs, MeasuredRunModels(measured.db, measured.runs, config));
  for (auto& m : runs) models.push_back(std::move(m));
  return models;
}

Result<std::optional<FittedStack>> FitStackVersion(const std::string& id, const sim::StackFitRequest& request,
                                                   const sim::CalibrationOptions& options,
                                                   const sim::ValidationSet& set, const MeasuredRuns& measured,
                                                   const std::string& data_dir,
                                                   const std::function<void(const std::string&)>& skipped) {
  FRONTIER_ASSIGN_OR_RETURN(sim::Stack stack, sim::LoadStack(id, data_dir));
  FRONTIER_ASSIGN_OR_RETURN(std::vector<sim::ResultModel> models, ModelsToFit(request, set, stack, measured, skipped));
  if (models.empty()) {
    // --stack all (with --id) fits the stacks that have matching results.
    if (request.stack == "all") return std::optional<FittedStack>();
    return InvalidArgument("nothing to fit " + stack.id() + " to: no published result names it (data/validation) "
                           "and no --db runs were given");
  }
  FRONTIER_ASSIGN_OR_RETURN(sim::CalibrationResult cal, sim::Calibrate(stack, models, options));
  return std::optional<FittedStack>(FittedStack{std::move(stack), std::move(cal)});
}

Result<StacksFitted> CalibrateStacks(StackCalibration c, const std::string& data_dir,
                                     const std::function<void(const std::string&)>& out) {
  FRONTIER_ASSIGN_OR_RETURN(sim::ValidationSet set, sim::LoadValidation(data_dir));
  sim::CalibrationOptions co;
  co.leave_one_out = !c.no_loo;
  FRONTIER_ASSIGN_OR_RETURN(co.free, SplitFlagList(c.fit, "--fit"));
  c.stack = *c.deployment.stack;
  c.measured = !c.db.empty();
  FRONTIER_ASSIGN_OR_RETURN(std::vector<std::string> stacks, sim::StacksToFit(c, co, data_dir));
  FRONTIER_ASSIGN_OR_RETURN(std::vector<std::string> runs, SplitFlagList(c.runs, "--runs"));
  const MeasuredRuns measured{c.db, runs, c.deployment};
  auto skipped = [&out](const std::string& line) { out(line + "\n"); };
  StacksFitted total;
  total.named = stacks.size();
  for (const auto& id : stacks) {
    FRONTIER_ASSIGN_OR_RETURN(std::optional<FittedStack> fit,
                              FitStackVersion(id, c, co, set, measured, data_dir, skipped));
    if (!fit) continue;
    const auto& [stack, cal] = *fit;
    total.seconds += cal.seconds;
    total.points += static_cast<int>(cal.points.size());
    ++total.stacks;
    out(sim::CalibrationText(stack, cal));
    if (c.dry_run) continue;
    FRONTIER_ASSIGN_OR_RETURN(sim::FittedStackFile file, sim::WriteFittedStack(c, stack, cal, data_dir));
    out("  wrote " + file.path + " (" + stack.name + "@" + file.version + ")\n");
  }
  return total;
}

}  // namespace frontier::sweep
