#include "power/rocm_smi.h"

#include <cstdint>

#include "power/vendor_gpu.h"

namespace frontier::power {
namespace {

using rsmi_status_t = int;
constexpr rsmi_status_t kRsmiSuccess = 0;

using InitFn = rsmi_status_t (*)(uint64_t);
using ShutDownFn = rsmi_status_t (*)();
using CountFn = rsmi_status_t (*)(uint32_t*);
using EnergyFn = rsmi_status_t (*)(uint32_t, uint64_t*, float*, uint64_t*);
using PowerFn = rsmi_status_t (*)(uint32_t, uint32_t, uint64_t*);  // µW
using NameFn = rsmi_status_t (*)(uint32_t, char*, size_t);
using StatusStringFn = rsmi_status_t (*)(rsmi_status_t, const char**);

class RocmSmiSource final : public VendorGpuSource {
 public:
  RocmSmiSource() : VendorGpuSource("amdsmi", "rsmi_dev_energy_count_get", "rsmi_dev_power_ave_get") {}

  static Result<std::unique_ptr<PowerSource>> Open(const std::string& path);

 private:
  int EnergyJoules(size_t i, double* joules) override {
    uint64_t count = 0, timestamp = 0;
    float resolution_uj = 0;
    const rsmi_status_t rc = energy_(static_cast<uint32_t>(i), &count, &resolution_uj, &timestamp);
    *joules = static_cast<double>(count - origins_[i]) * static_cast<double>(resolution_uj) / 1e6;
    return rc;
  }
  int PowerWatts(size_t i, double* watts) override {
    uint64_t uw = 0;
    const rsmi_status_t rc = power_(static_cast<uint32_t>(i), 0, &uw);
    *watts = static_cast<double>(uw) / 1e6;
    return rc;
  }
  std::string ErrorText(int rc) const override {
    const char* text = nullptr;
    if (status_string_ != nullptr) status_string_(rc, &text);
    return text != nullptr ? text : "status " + std::to_string(rc);
  }

  EnergyFn energy_ = nullptr;
  PowerFn power_ = nullptr;
  StatusStringFn status_string_ = nullptr;
  std::vector<uint64_t> origins_;  // per GPU: the energy counter at open
};

Result<std::unique_ptr<PowerSource>> RocmSmiSource::Open(const std::string& path_arg) {
  const std::vector<std::string> paths =
      LibraryCandidates(path_arg, "FRONTIER_ROCM_SMI_LIB", {"librocm_smi64.so.1", "librocm_smi64.so"});
  auto s = std::make_unique<RocmSmiSource>();
  if (std::string why; !s->Load(paths, &why))
    return Unavailable("amdsmi: cannot load ROCm SMI (" + why +
                       "); install ROCm or set FRONTIER_ROCM_SMI_LIB to librocm_smi64.so's path");
  auto init = s->Symbol<InitFn>("rsmi_init");
  auto shut_down = s->Symbol<ShutDownFn>("rsmi_shut_down");
  auto count = s->Symbol<CountFn>("rsmi_num_monitor_devices");
  s->energy_ = s->Symbol<EnergyFn>("rsmi_dev_energy_count_get");
  s->power_ = s->Symbol<PowerFn>("rsmi_dev_power_ave_get");
  auto name = s->Symbol<NameFn>("rsmi_dev_name_get");
  s->status_string_ = s->Symbol<StatusStringFn>("rsmi_status_string");
  if (init == nullptr || shut_down == nullptr || count == nullptr || s->power_ == nullptr)
    return Unavailable("amdsmi: the library lacks rsmi_init, rsmi_shut_down, rsmi_num_monitor_devices or "
                       "rsmi_dev_power_ave_get; is it ROCm's librocm_smi64?");
  if (rsmi_status_t rc = init(0); rc != kRsmiSuccess) return s->Error("rsmi_init", rc);
  s->SetShutdown(shut_down);
  uint32_t n = 0;
  if (rsmi_status_t rc = count(&n); rc != kRsmiSuccess) return s->Error("rsmi_num_monitor_devices", rc);
  if (n == 0) return Unavailable("amdsmi: ROCm SMI lists no GPU");
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t c = 0, timestamp = 0;
    float resolution = 0;
    const bool has_energy =
        s->energy_ != nullptr && s->energy_(i, &c, &resolution, &timestamp) == kRsmiSuccess && resolution > 0;
    char text[128] = {};
    if (name == nullptr || name(i, text, sizeof(text) - 1) != kRsmiSuccess) text[0] = '\0';
    s->origins_.push_back(has_energy ? c : 0);
    s->AddDevice(GpuLabel(i, text), has_energy);
  }
  return std::unique_ptr<PowerSource>(std::move(s));
}

}  // namespace

Result<std::unique_ptr<PowerSource>> OpenRocmSmi(const std::string& path) { return RocmSmiSource::Open(path); }

}  // namespace frontier::power
