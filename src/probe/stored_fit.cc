#include "probe/stored_fit.h"

#include <cstdio>
#include <utility>

#include "core/append_printf.h"
#include "probe/record.h"
#include "sim/engine/hardware.h"
#include "store/store.h"

namespace frontier::probe {
Result<StoredProbeFit> FitStoredProbe(const std::string& db, int64_t run_id, const std::vector<std::string>& only,
                                      const std::string& data_dir) {
  FRONTIER_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store, store::OpenStore(db, store::OpenMode::kSnapshot));
  StoredProbeFit out;
  FRONTIER_ASSIGN_OR_RETURN(out.run, store->GetRun(run_id));
  FRONTIER_ASSIGN_OR_RETURN(out.probe, LoadProbeRun(*store, run_id));
  FRONTIER_ASSIGN_OR_RETURN(sim::Hardware hw, sim::LoadHardware(out.probe.hardware, data_dir));
  out.gpu = hw.name;
  FRONTIER_ASSIGN_OR_RETURN(out.fit, FitProbe(out.probe, out.run.Label(), out.run.created_utc, only));
  // Only to show what each value replaces: an unreadable override is not an error here.
  Result<std::optional<sim::GpuOverride>> before = sim::LoadGpuOverride(data_dir, out.gpu);
  if (before.ok()) out.before = std::move(*before);
  return out;
}

std::string StoredProbeFitText(const StoredProbeFit& f) {
  std::string text;
  AppendPrintf(text, "== probe run %s: %s on %s (%s)\n", f.run.Label().c_str(), f.probe.device.name.c_str(),
          f.gpu.c_str(), f.probe.device.backend.c_str());
  for (const auto& c : f.fit.curves)
    AppendPrintf(text, "  gemm.%s: max %.4f, half %.1f rows over %d points (rms %.1f%% in log)\n",
            GemmPrecisionName(c.precision), c.curve.max, c.curve.half, c.points, 100 * c.rms_log_error);
  for (const auto& [name, v] : f.fit.override_file.params) {
    std::string was;
    if (f.before && f.before->params.count(name))
      was = " (this GPU's override had " + std::to_string(f.before->params.at(name).value) + ")";
    AppendPrintf(text, "  %-22s -> %g%s\n", name.c_str(), v.value, was.c_str());
  }
  return text;
}

Result<std::string> WriteStoredProbeFit(const StoredProbeFit& f, const std::string& out_path,
                                        const std::string& data_dir) {
  const std::string path = out_path.empty() ? sim::GpuOverridePath(data_dir, f.gpu) : out_path;
  FRONTIER_RETURN_IF_ERROR(sim::WriteGpuOverride(f.fit.override_file, path));
  return path;
}

}  // namespace frontier::probe
