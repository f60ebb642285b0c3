// record.h: a probe's result as JSON (--result-json) and as a stored run.
//
// Stored runs: source "measured", config kind "probe" (with hardware, device,
// backend, models), one point per measurement with load_kind "probe",
// workload "gemm/<model>/<layer>/<precision>", "stream/<kernel>",
// "decode/<model>" or "collective/<op>", load_value its size (M, bytes per
// array, batch, bytes), its figures in settings (for `db` and the dashboard)
// and the measurement's JSON in summary_json (what LoadProbeRun reads back).
// Nothing else of a point (throughput, latencies, energy) is set.
//
// Thread safety: values; the store functions use the store they are given.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "probe/probe.h"
#include "store/store.h"

namespace frontier::probe {

nlohmann::json ProbeToJson(const ProbeResult& r);
// The inverse of ProbeToJson; InvalidArgument naming the field otherwise.
Result<ProbeResult> ProbeFromJson(const nlohmann::json& j);

// Stores `r` as a new run (sweep `label`, system its hardware) with
// `provenance`; returns the run.
Result<store::RunInfo> StoreProbe(store::Store& db, const ProbeResult& r, const std::string& label,
                                  const std::map<std::string, std::string>& provenance);
// Reads a stored probe run back. InvalidArgument when the run is not a probe.
Result<ProbeResult> LoadProbeRun(store::Store& db, int64_t run_id);

}  // namespace frontier::probe
