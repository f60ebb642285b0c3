#include "power/nvml.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>

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

class NvmlSource final : public PowerSource {
 public:
  ~NvmlSource() override {
    if (shutdown_ != nullptr) shutdown_();
    if (lib_ != nullptr) dlclose(lib_);
  }
  std::string Name() const override { return "nvml"; }
  const std::vector<std::string>& Devices() const override { return names_; }

  Status Read(PowerReading* r) override {
    r->energy_j.assign(gpus_.size(), std::nan(""));
    r->power_w.assign(gpus_.size(), std::nan(""));
    for (size_t i = 0; i < gpus_.size(); ++i) {
      Gpu& g = gpus_[i];
      if (g.has_energy) {
        unsigned long long mj = 0;
        const nvmlReturn_t rc = energy_(g.handle, &mj);
        if (rc != kNvmlSuccess) return Error(names_[i] + ": nvmlDeviceGetTotalEnergyConsumption", rc);
        r->energy_j[i] = static_cast<double>(mj - g.energy_origin_mj) / 1e3;
      }
      unsigned int mw = 0;
      const nvmlReturn_t rc = power_(g.handle, &mw);
      if (rc == kNvmlSuccess) {
        r->power_w[i] = mw / 1e3;
      } else if (!g.has_energy) {
        return Error(names_[i] + ": nvmlDeviceGetPowerUsage", rc);
      }
    }
    return Status::Ok();
  }

  static Result<std::unique_ptr<PowerSource>> Open(const std::string& path);

 private:
  struct Gpu {
    nvmlDevice_t handle = nullptr;
    bool has_energy = false;
    unsigned long long energy_origin_mj = 0;
  };
  Status Error(const std::string& what, nvmlReturn_t rc) const {
    const char* text = error_string_ != nullptr ? error_string_(rc) : nullptr;
    return Unavailable("nvml: " + what + " failed: " + (text != nullptr ? text : "error " + std::to_string(rc)));
  }

  void* lib_ = nullptr;
  ShutdownFn shutdown_ = nullptr;
  EnergyFn energy_ = nullptr;
  PowerFn power_ = nullptr;
  ErrorStringFn error_string_ = nullptr;
  std::vector<Gpu> gpus_;
  std::vector<std::string> names_;
};

template <typename Fn>
Fn Symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

Result<std::unique_ptr<PowerSource>> NvmlSource::Open(const std::string& path_arg) {
  std::string path = path_arg;
  if (path.empty()) {
    const char* env = std::getenv("FRONTIER_NVML_LIB");
    path = env != nullptr && *env != '\0' ? env : "libnvidia-ml.so.1";
  }
  auto s = std::make_unique<NvmlSource>();
  s->lib_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (s->lib_ == nullptr) {
    const char* why = dlerror();
    return Unavailable("nvml: cannot load " + path + " (" + (why != nullptr ? why : "unknown") +
                       "); install NVIDIA's driver or set FRONTIER_NVML_LIB to libnvidia-ml.so.1's path");
  }
  auto init = Symbol<InitFn>(s->lib_, "nvmlInit_v2");
  auto shutdown = Symbol<ShutdownFn>(s->lib_, "nvmlShutdown");
  auto count = Symbol<CountFn>(s->lib_, "nvmlDeviceGetCount_v2");
  auto handle = Symbol<HandleFn>(s->lib_, "nvmlDeviceGetHandleByIndex_v2");
  s->energy_ = Symbol<EnergyFn>(s->lib_, "nvmlDeviceGetTotalEnergyConsumption");
  s->power_ = Symbol<PowerFn>(s->lib_, "nvmlDeviceGetPowerUsage");
  auto name = Symbol<NameFn>(s->lib_, "nvmlDeviceGetName");
  s->error_string_ = Symbol<ErrorStringFn>(s->lib_, "nvmlErrorString");
  if (init == nullptr || shutdown == nullptr || count == nullptr || handle == nullptr || s->power_ == nullptr)
    return Unavailable("nvml: " + path + " lacks nvmlInit_v2, nvmlShutdown, nvmlDeviceGetCount_v2, "
                       "nvmlDeviceGetHandleByIndex_v2 or nvmlDeviceGetPowerUsage; is it NVIDIA's libnvidia-ml?");
  if (nvmlReturn_t rc = init(); rc != kNvmlSuccess) return s->Error("nvmlInit_v2", rc);
  s->shutdown_ = shutdown;
  unsigned int n = 0;
  if (nvmlReturn_t rc = count(&n); rc != kNvmlSuccess) return s->Error("nvmlDeviceGetCount_v2", rc);
  if (n == 0) return Unavailable("nvml: no GPU is listed by " + path);
  for (unsigned int i = 0; i < n; ++i) {
    Gpu g;
    if (nvmlReturn_t rc = handle(i, &g.handle); rc != kNvmlSuccess)
      return s->Error("nvmlDeviceGetHandleByIndex_v2(" + std::to_string(i) + ")", rc);
    char text[96] = {};
    std::string label = "gpu" + std::to_string(i);
    if (name != nullptr && name(g.handle, text, sizeof(text) - 1) == kNvmlSuccess && text[0] != '\0')
      label += std::string(" ") + text;
    unsigned long long mj = 0;
    if (s->energy_ != nullptr && s->energy_(g.handle, &mj) == kNvmlSuccess) {
      g.has_energy = true;
      g.energy_origin_mj = mj;
    }
    s->gpus_.push_back(g);
    s->names_.push_back(label);
  }
  return std::unique_ptr<PowerSource>(std::move(s));
}

}  // namespace

Result<std::unique_ptr<PowerSource>> OpenNvml(const std::string& path) { return NvmlSource::Open(path); }

}  // namespace frontier::power
