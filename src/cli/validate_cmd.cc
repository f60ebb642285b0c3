// `frontier validate`: the simulator's predictions of published results
// (data/validation/), each with its error. Parsing and printing only.
#include <cmath>
#include <cstdio>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "core/limits.h"
#include "core/parse.h"
#include "sim/data_dir.h"
#include "sim/validation.h"

namespace frontier::cli {
namespace {

constexpr const char* kCmd = "validate";

int RunValidate(int argc, char** argv) {
  CLI::App app{"Predict published results (data/validation) and print each error", kCmd};
  std::string only;
  int64_t offline_requests = 0, server_requests = 4000;
  uint64_t seed = 1;
  app.add_option("--id", only, "Only the result whose id contains this text");
  app.add_option("--offline-requests", offline_requests, "Requests per Offline run [the dataset's sample count]");
  app.add_option("--server-requests", server_requests, "Requests per probe of the Server rate search [4000]");
  app.add_option("--seed", seed, "Seeds the drawn request lengths and arrivals [1]");
  if (const int rc = Parse(app, argc, argv); rc >= 0) return rc;
  // Bounded as every run is (core/limits.h): the requests of a run are held in memory.
  if (Status in = CheckRange("--offline-requests", offline_requests, 0, kMaxRunRequests); !in.ok())
    return UsageError(kCmd, in.message());
  if (Status in = CheckRange("--server-requests", server_requests, 100, kMaxRunRequests); !in.ok())
    return UsageError(kCmd, in.message());

  Result<sim::ValidationSet> set = sim::LoadValidation(sim::DefaultDataDir());
  if (!set.ok()) return Fail(kCmd, set.status());
  sim::ValidationOptions o;
  o.offline_requests = offline_requests;
  o.server_requests = server_requests;
  o.seed = seed;
  std::printf("%-28s %-8s %10s %10s %8s  %-22s %-22s %s\n", "result", "scenario", "published", "predicted",
              "error", "median TTFT ms pub/pred", "median TPOT ms pub/pred", "role");
  double worst_predicted = 0;
  int shown = 0;
  for (const auto& r : set->results) {
    if (!only.empty() && r.id.find(only) == std::string::npos) continue;
    Result<sim::Prediction> p = sim::Predict(r, *set, o);
    if (!p.ok()) return Fail(kCmd, p.status());
    ++shown;
    char ttft[64] = "", tpot[64] = "";
    if (r.median_ttft_ms && p->median_ttft_ms)
      std::snprintf(ttft, sizeof ttft, "%.0f / %.0f", *r.median_ttft_ms, *p->median_ttft_ms);
    if (r.median_tpot_ms && p->median_tpot_ms)
      std::snprintf(tpot, sizeof tpot, "%.0f / %.0f", *r.median_tpot_ms, *p->median_tpot_ms);
    std::printf("%-28s %-8s %10.0f %10.0f %+7.1f%%  %-22s %-22s %s\n", r.id.c_str(), r.scenario.c_str(),
                r.output_tokens_per_s, p->output_tokens_per_s, 100 * p->error, ttft, tpot,
                r.calibrate ? "calibration" : "prediction");
    if (!r.calibrate) worst_predicted = std::max(worst_predicted, std::fabs(p->error));
  }
  if (shown == 0) return UsageError(kCmd, "--id '" + only + "' matches no result");
  std::printf("throughput in output tokens/s; worst error on results not used for calibration: %.1f%%\n",
              100 * worst_predicted);
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(validate, "Compare the simulator's predictions with published results",
                          frontier::cli::RunValidate);
