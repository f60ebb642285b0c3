#include "power/rocm_smi.h"

#include <cstdint>

#include "power/vendor_gpu.h"

namespace frontier::power {
namespace {

using rsmi_status_t = int;
constexpr rsmi_status_t kRsmiSuccess = 0;

// The entry points used here, bound by name in Open (null where optional and
// missing).
struct RsmiApi {
  rsmi_status_t (*init)(uint64_t) = nullptr;
  rsmi_status_t (*shut_down)() = nullptr;
  rsmi_status_t (*count)(uint32_t*) = nullptr;
  rsmi_status_t (*energy)(uint32_t, uint64_t*, float*, uint64_t*) = nullptr;
  rsmi_status_t (*power)(uint32_t, uint32_t, uint64_t*) = nullptr;  // µW
  rsmi_status_t (*name)(uint32_t, char*, size_t) = nullptr;
  rsmi_status_t (*status_string)(rsmi_status_t, const char**) = nullptr;
};

class RocmSmiSource final : public VendorGpuSource {
 public:
  RocmSmiSource() : VendorGpuSource("amdsmi", "rsmi_dev_energy_count_get", "rsmi_dev_power_ave_get") {}

  static Result<std::unique_ptr<PowerSource>> Open(const std::string& path);

 private:
  int EnergyJoules(size_t i, double* joules) override {
    uint64_t count = 0, timestamp = 0;
    float resolution_uj = 0;
    const rsmi_status_t rc = api_.energy(static_cast<uint32_t>(i), &count, &resolution_uj, &timestamp);
    *joules = static_cast<double>(count - origins_[i]) * static_cast<double>(resolution_uj) / 1e6;
    return rc;
  }
  int PowerWatts(size_t i, double* watts) override {
    uint64_t uw = 0;
    const rsmi_status_t rc = api_.power(static_cast<uint32_t>(i), 0, &uw);
    *watts = static_cast<double>(uw) / 1e6;
    return rc;
  }
  std::string ErrorText(int rc) const override {
    const char* text = nullptr;
    if (api_.status_string != nullptr) api_.status_string(rc, &text);
    return text != nullptr ? text : "status " + std::to_string(rc);
  }

  RsmiApi api_;
  std::vector<uint64_t> origins_;  // per GPU: the energy counter at open
};

Result<std::unique_ptr<PowerSource>> RocmSmiSource::Open(const std::string& path_arg) {
  const std::vector<std::string> paths =
      LibraryCandidates(path_arg, "FRONTIER_ROCM_SMI_LIB", {"librocm_smi64.so.1", "librocm_smi64.so"});
  auto s = std::make_unique<RocmSmiSource>();
  if (std::string why; !s->Load(paths, &why))
    return Unavailable("amdsmi: cannot load ROCm SMI (" + why +
                       "); install ROCm or set FRONTIER_ROCM_SMI_LIB to librocm_smi64.so's path");
  FRONTIER_RETURN_IF_ERROR(s->Bind(
      {Required("rsmi_init", &s->api_.init), Required("rsmi_shut_down", &s->api_.shut_down),
       Required("rsmi_num_monitor_devices", &s->api_.count), Optional("rsmi_dev_energy_count_get", &s->api_.energy),
       Required("rsmi_dev_power_ave_get", &s->api_.power), Optional("rsmi_dev_name_get", &s->api_.name),
       Optional("rsmi_status_string", &s->api_.status_string)},
      "the library", "ROCm's librocm_smi64"));
  if (rsmi_status_t rc = s->api_.init(0); rc != kRsmiSuccess) return s->Error("rsmi_init", rc);
  s->SetShutdown(s->api_.shut_down);
  uint32_t n = 0;
  if (rsmi_status_t rc = s->api_.count(&n); rc != kRsmiSuccess) return s->Error("rsmi_num_monitor_devices", rc);
  if (n == 0) return Unavailable("amdsmi: ROCm SMI lists no GPU");
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t c = 0, timestamp = 0;
    float resolution = 0;
    const bool has_energy =
        s->api_.energy != nullptr && s->api_.energy(i, &c, &resolution, &timestamp) == kRsmiSuccess && resolution > 0;
    char text[128] = {};
    if (s->api_.name == nullptr || s->api_.name(i, text, sizeof(text) - 1) != kRsmiSuccess) text[0] = '\0';
    s->origins_.push_back(has_energy ? c : 0);
    s->AddDevice(GpuLabel(i, text), has_energy);
  }
  return std::unique_ptr<PowerSource>(std::move(s));
}

}  // namespace

Result<std::unique_ptr<PowerSource>> OpenRocmSmi(const std::string& path) { return RocmSmiSource::Open(path); }

}  // namespace frontier::power
