#include "power/nvml.h"

#include "power/vendor_gpu.h"

namespace frontier::power {
namespace {

// NVML's types and entry points, as its public API documents them.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;

// The entry points used here, bound by name in Open (null where optional and
// missing).
struct NvmlApi {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*count)(unsigned int*) = nullptr;
  nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long*) = nullptr;  // mJ
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned int*) = nullptr;         // mW
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned int) = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
};

class NvmlSource final : public VendorGpuSource {
 public:
  NvmlSource() : VendorGpuSource("nvml", "nvmlDeviceGetTotalEnergyConsumption", "nvmlDeviceGetPowerUsage") {}

  static Result<std::unique_ptr<PowerSource>> Open(const std::string& path);

 private:
  struct Gpu {
    nvmlDevice_t handle = nullptr;
    unsigned long long energy_origin_mj = 0;
  };

  int EnergyJoules(size_t i, double* joules) override {
    unsigned long long mj = 0;
    const nvmlReturn_t rc = api_.energy(gpus_[i].handle, &mj);
    *joules = static_cast<double>(mj - gpus_[i].energy_origin_mj) / 1e3;
    return rc;
  }
  int PowerWatts(size_t i, double* watts) override {
    unsigned int mw = 0;
    const nvmlReturn_t rc = api_.power(gpus_[i].handle, &mw);
    *watts = mw / 1e3;
    return rc;
  }
  std::string ErrorText(int rc) const override {
    const char* text = api_.error_string != nullptr ? api_.error_string(rc) : nullptr;
    return text != nullptr ? text : "error " + std::to_string(rc);
  }

  NvmlApi api_;
  std::vector<Gpu> gpus_;
};

Result<std::unique_ptr<PowerSource>> NvmlSource::Open(const std::string& path_arg) {
  const std::vector<std::string> paths = LibraryCandidates(path_arg, "FRONTIER_NVML_LIB", {"libnvidia-ml.so.1"});
  const std::string& path = paths.front();
  auto s = std::make_unique<NvmlSource>();
  if (std::string why; !s->Load(paths, &why))
    return Unavailable("nvml: cannot load " + path + " (" + why +
                       "); install NVIDIA's driver or set FRONTIER_NVML_LIB to libnvidia-ml.so.1's path");
  FRONTIER_RETURN_IF_ERROR(s->Bind(
      {Required("nvmlInit_v2", &s->api_.init), Required("nvmlShutdown", &s->api_.shutdown),
       Required("nvmlDeviceGetCount_v2", &s->api_.count), Required("nvmlDeviceGetHandleByIndex_v2", &s->api_.handle),
       Optional("nvmlDeviceGetTotalEnergyConsumption", &s->api_.energy),
       Required("nvmlDeviceGetPowerUsage", &s->api_.power), Optional("nvmlDeviceGetName", &s->api_.name),
       Optional("nvmlErrorString", &s->api_.error_string)},
      path, "NVIDIA's libnvidia-ml"));
  if (nvmlReturn_t rc = s->api_.init(); rc != kNvmlSuccess) return s->Error("nvmlInit_v2", rc);
  s->SetShutdown(s->api_.shutdown);
  unsigned int n = 0;
  if (nvmlReturn_t rc = s->api_.count(&n); rc != kNvmlSuccess) return s->Error("nvmlDeviceGetCount_v2", rc);
  if (n == 0) return Unavailable("nvml: no GPU is listed by " + path);
  for (unsigned int i = 0; i < n; ++i) {
    Gpu g;
    if (nvmlReturn_t rc = s->api_.handle(i, &g.handle); rc != kNvmlSuccess)
      return s->Error("nvmlDeviceGetHandleByIndex_v2(" + std::to_string(i) + ")", rc);
    char text[96] = {};
    if (s->api_.name == nullptr || s->api_.name(g.handle, text, sizeof(text) - 1) != kNvmlSuccess) text[0] = '\0';
    const bool has_energy =
        s->api_.energy != nullptr && s->api_.energy(g.handle, &g.energy_origin_mj) == kNvmlSuccess;
    s->gpus_.push_back(g);
    s->AddDevice(GpuLabel(i, text), has_energy);
  }
  return std::unique_ptr<PowerSource>(std::move(s));
}

}  // namespace

Result<std::unique_ptr<PowerSource>> OpenNvml(const std::string& path) { return NvmlSource::Open(path); }

}  // namespace frontier::power
