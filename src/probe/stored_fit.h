// stored_fit.h: `frontier calibrate --probe RUN`: a probe run read back from
// a results database, fitted as its GPU's efficiency curves (fit.h), and
// written as that GPU's override (sim/engine/gpu_override.h), which every
// stack on the GPU then uses.
//
//   FRONTIER_ASSIGN_OR_RETURN(StoredProbeFit f, FitStoredProbe(db, run_id, only, sim::DefaultDataDir()));
//   std::printf("%s", StoredProbeFitText(f).c_str());
//   FRONTIER_ASSIGN_OR_RETURN(std::string path, WriteStoredProbeFit(f, out_path, data_dir));
//
// Thread safety: functions of their arguments; each opens its own snapshot
// of the database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "probe/fit.h"
#include "probe/probe.h"
#include "sim/engine/gpu_override.h"
#include "store/records.h"

namespace frontier::probe {

struct StoredProbeFit {
  store::RunInfo run;                      // the probe run
  ProbeResult probe;                       // its measurements
  std::string gpu;                         // the hardware catalog's name of its GPU
  ProbeFit fit;
  std::optional<sim::GpuOverride> before;  // the GPU's override before this fit (none, or unreadable)
};

// Reads run `run_id` of the database at `db` (a snapshot) and fits it
// (FitProbe, `only` as there) on the hardware catalog under `data_dir`. The
// store's error for a missing database or run, LoadProbeRun's for a run that
// is not a probe's, the catalog's for an unknown GPU, FitProbe's.
Result<StoredProbeFit> FitStoredProbe(const std::string& db, int64_t run_id, const std::vector<std::string>& only,
                                      const std::string& data_dir);

// What `calibrate --probe` prints of a fit: a headline, each precision's
// curve, each parameter written with the value the GPU's override had. Each
// line ends in a newline.
std::string StoredProbeFitText(const StoredProbeFit& fit);

// Writes the fit's override to `out_path` ("": the GPU's override file under
// `data_dir`) and returns the path written; WriteGpuOverride's error.
Result<std::string> WriteStoredProbeFit(const StoredProbeFit& fit, const std::string& out_path,
                                        const std::string& data_dir);

}  // namespace frontier::probe
