// measured.h: runs measured into a results database as calibration points.
//
// `frontier calibrate --db DB --runs ...` fits a stack version to its own
// measured closed-loop points beside (or instead of) the published results.
// The caller reads the points out of the database; this decides which of
// them, and which of their requests, a fit can use, and makes each a
// ResultModel replayed on the deployment the runs were measured on.
//
// Thread safety: functions of their arguments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/config.h"
#include "sim/fit/validation.h"

namespace frontier::sim {

// One stored point, as calibration needs it.
struct MeasuredPoint {
  std::string id;                 // what the fit's table names it: "<run label>/<point key>"
  std::string source;             // where it was read: "<database> point <id>"
  bool closed_loop = false;       // a concurrency point (the store's LoadKind::kConcurrency)
  double load_value = 0;          // the concurrency of a closed loop
  double output_throughput = 0;   // measured output tokens per second
  struct Request {
    bool ok = false, warmup = false;
    int64_t prompt_tokens = 0, output_tokens = 0;
  };
  std::vector<Request> requests;  // every request it sent
};

// The fit's points among `points`, each replayed on `config`: closed-loop
// (concurrency) points with a measured output throughput, each with the
// measured requests that completed with a prompt and an output, in order.
// A point left with no such request is skipped. InvalidArgument when none
// is left, naming `where` (the database, redacted by the caller).
Result<std::vector<ResultModel>> MeasuredModels(const std::vector<MeasuredPoint>& points, const SimConfig& config,
                                                const std::string& where);

}  // namespace frontier::sim
