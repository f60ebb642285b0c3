#include "sim/fit/stack_fit.h"

#include <cstdio>
#include <ctime>
#include <utility>

#include "core/append_printf.h"
#include "sim/engine/efficiency.h"

namespace frontier::sim {
Result<std::vector<std::string>> StacksToFit(const StackFitRequest& request, const CalibrationOptions& options,
                                             const std::string& data_dir) {
  if (request.stack != "all") return std::vector<std::string>{request.stack};
  std::vector<std::string> stacks;
  for (const auto& s : ListStackVersions(data_dir))
    if (!s.free_params.empty() || !options.free.empty()) stacks.push_back(s.id());
  if (request.measured) return InvalidArgument("--stack all fits published results only; name one stack for --db");
  if (!request.out_path.empty() || !request.version.empty())
    return InvalidArgument("--stack all writes each stack's own file: use --in-place or --dry-run");
  return stacks;
}

Result<std::vector<ResultModel>> PublishedModelsToFit(const StackFitRequest& request, const ValidationSet& set,
                                                      const Stack& stack,
                                                      const std::function<void(const std::string&)>& skipped) {
  std::vector<ResultModel> models;
  if (request.no_published) return models;
  for (const auto& r : set.results) {
    if (r.stack != stack.id() || (!request.only.empty() && r.id.find(request.only) == std::string::npos)) continue;
    if (!r.Calibratable()) {
      skipped("skipping " + r.id + ": " +
              (r.OnCalibrationGpu() ? "marked held_out" : "on " + r.hardware + ", a validation GPU") +
              " (never fitted)");
      continue;
    }
    FRONTIER_ASSIGN_OR_RETURN(ResultModel m, ResultModel::Create(r, set, request));
    models.push_back(std::move(m));
  }
  return models;
}

std::string CalibrationText(const Stack& stack, const CalibrationResult& cal) {
  std::string text;
  AppendPrintf(text, "== %s: %zu points, %zu free parameters\n", stack.id().c_str(), cal.points.size(), cal.free.size());
  AppendPrintf(text, "%-48s %11s %11s %8s %11s %8s\n", "point", "measured", "fitted", "error", "LOO pred", "LOO err");
  for (const auto& p : cal.points) {
    char loo[32] = "", loo_err[32] = "";
    if (p.loo_predicted > 0) {
      std::snprintf(loo, sizeof loo, "%.1f", p.loo_predicted);
      std::snprintf(loo_err, sizeof loo_err, "%+.1f%%", 100 * p.loo_error);
    }
    AppendPrintf(text, "%-48s %11.1f %11.1f %+7.1f%% %11s %8s\n", p.id.c_str(), p.measured, p.predicted, 100 * p.error,
            loo, loo_err);
  }
  for (const auto& name : cal.free)
    AppendPrintf(text, "  %-28s prior %-10g -> %g\n", name.c_str(), GetParam(stack.priors, name),
            GetParam(cal.params, name));
  for (const auto& [name, why] : cal.not_identified)
    AppendPrintf(text, "  %-28s kept at %g: not identified (%s)\n", name.c_str(), GetParam(cal.params, name),
            why.c_str());
  AppendPrintf(text, "  %.2f s: %d Levenberg-Marquardt iterations, %lld trace replays, %d simulations\n", cal.seconds,
          cal.iterations, static_cast<long long>(cal.replays), cal.simulations);
  return text;
}

Result<FittedStackFile> WriteFittedStack(const StackFitRequest& request, const Stack& stack,
                                         const CalibrationResult& cal, const std::string& data_dir) {
  FittedStackFile out{request.out_path, request.version};
  if (request.in_place) {
    out.version = stack.version;
    out.path = stack.file;
  } else {
    if (out.version.empty()) {
      const std::time_t t = std::time(nullptr);
      char date[16];
      std::strftime(date, sizeof date, "%Y%m%d", std::gmtime(&t));
      out.version = stack.version + "+cal" + date;
    }
    if (out.path.empty()) out.path = data_dir + "/stacks/" + stack.name + "@" + out.version + ".json";
  }
  FRONTIER_RETURN_IF_ERROR(WriteCalibratedStack(stack, cal, stack.file, out.path, out.version, request.note));
  return out;
}

}  // namespace frontier::sim
