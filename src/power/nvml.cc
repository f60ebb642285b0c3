#include "power/nvml.h"

#include "power/vendor_gpu.h"

namespace frontier::power {
namespace {

// NVML's types and entry points, as its public API documents them.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;

using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using CountFn = nvmlReturn_t (*)(unsigned int*);
using HandleFn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using EnergyFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);  // mJ
using PowerFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);         // mW
using NameFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using ErrorStringFn = const char* (*)(nvmlReturn_t);

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
    const nvmlReturn_t rc = energy_(gpus_[i].handle, &mj);
    *joules = static_cast<double>(mj - gpus_[i].energy_origin_mj) / 1e3;
    return rc;
  }
  int PowerWatts(size_t i, double* watts) override {
    unsigned int mw = 0;
    const nvmlReturn_t rc = power_(gpus_[i].handle, &mw);
    *watts = mw / 1e3;
    return rc;
  }
  std::string ErrorText(int rc) const override {
    const char* text = error_string_ != nullptr ? error_string_(rc) : nullptr;
    return text != nullptr ? text : "error " + std::to_string(rc);
  }

  EnergyFn energy_ = nullptr;
  PowerFn power_ = nullptr;
  ErrorStringFn error_string_ = nullptr;
  std::vector<Gpu> gpus_;
};

Result<std::unique_ptr<PowerSource>> NvmlSource::Open(const std::string& path_arg) {
  const std::vector<std::string> paths = LibraryCandidates(path_arg, "FRONTIER_NVML_LIB", {"libnvidia-ml.so.1"});
  const std::string& path = paths.front();
  auto s = std::make_unique<NvmlSource>();
  if (std::string why; !s->Load(paths, &why))
    return Unavailable("nvml: cannot load " + path + " (" + why +
                       "); install NVIDIA's driver or set FRONTIER_NVML_LIB to libnvidia-ml.so.1's path");
  auto init = s->Symbol<InitFn>("nvmlInit_v2");
  auto shutdown = s->Symbol<ShutdownFn>("nvmlShutdown");
  auto count = s->Symbol<CountFn>("nvmlDeviceGetCount_v2");
  auto handle = s->Symbol<HandleFn>("nvmlDeviceGetHandleByIndex_v2");
  s->energy_ = s->Symbol<EnergyFn>("nvmlDeviceGetTotalEnergyConsumption");
  s->power_ = s->Symbol<PowerFn>("nvmlDeviceGetPowerUsage");
  auto name = s->Symbol<NameFn>("nvmlDeviceGetName");
  s->error_string_ = s->Symbol<ErrorStringFn>("nvmlErrorString");
  if (init == nullptr || shutdown == nullptr || count == nullptr || handle == nullptr || s->power_ == nullptr)
    return Unavailable("nvml: " + path + " lacks nvmlInit_v2, nvmlShutdown, nvmlDeviceGetCount_v2, "
                       "nvmlDeviceGetHandleByIndex_v2 or nvmlDeviceGetPowerUsage; is it NVIDIA's libnvidia-ml?");
  if (nvmlReturn_t rc = init(); rc != kNvmlSuccess) return s->Error("nvmlInit_v2", rc);
  s->SetShutdown(shutdown);
  unsigned int n = 0;
  if (nvmlReturn_t rc = count(&n); rc != kNvmlSuccess) return s->Error("nvmlDeviceGetCount_v2", rc);
  if (n == 0) return Unavailable("nvml: no GPU is listed by " + path);
  for (unsigned int i = 0; i < n; ++i) {
    Gpu g;
    if (nvmlReturn_t rc = handle(i, &g.handle); rc != kNvmlSuccess)
      return s->Error("nvmlDeviceGetHandleByIndex_v2(" + std::to_string(i) + ")", rc);
    char text[96] = {};
    if (name == nullptr || name(g.handle, text, sizeof(text) - 1) != kNvmlSuccess) text[0] = '\0';
    const bool has_energy = s->energy_ != nullptr && s->energy_(g.handle, &g.energy_origin_mj) == kNvmlSuccess;
    s->gpus_.push_back(g);
    s->AddDevice(GpuLabel(i, text), has_energy);
  }
  return std::unique_ptr<PowerSource>(std::move(s));
}

}  // namespace

Result<std::unique_ptr<PowerSource>> OpenNvml(const std::string& path) { return NvmlSource::Open(path); }

}  // namespace frontier::power
