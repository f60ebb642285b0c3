#include "power/rocm_smi.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>

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

class RocmSmiSource final : public PowerSource {
 public:
  ~RocmSmiSource() override {
    if (shut_down_ != nullptr) shut_down_();
    if (lib_ != nullptr) dlclose(lib_);
  }
  std::string Name() const override { return "amdsmi"; }
  const std::vector<std::string>& Devices() const override { return names_; }

  Status Read(PowerReading* r) override {
    r->energy_j.assign(gpus_.size(), std::nan(""));
    r->power_w.assign(gpus_.size(), std::nan(""));
    for (size_t i = 0; i < gpus_.size(); ++i) {
      Gpu& g = gpus_[i];
      const auto index = static_cast<uint32_t>(i);
      if (g.has_energy) {
        uint64_t count = 0, timestamp = 0;
        float resolution_uj = 0;
        if (rsmi_status_t rc = energy_(index, &count, &resolution_uj, &timestamp); rc != kRsmiSuccess)
          return Error(names_[i] + ": rsmi_dev_energy_count_get", rc);
        r->energy_j[i] = static_cast<double>(count - g.origin) * static_cast<double>(resolution_uj) / 1e6;
      }
      uint64_t uw = 0;
      if (rsmi_status_t rc = power_(index, 0, &uw); rc == kRsmiSuccess) {
        r->power_w[i] = static_cast<double>(uw) / 1e6;
      } else if (!g.has_energy) {
        return Error(names_[i] + ": rsmi_dev_power_ave_get", rc);
      }
    }
    return Status::Ok();
  }

  static Result<std::unique_ptr<PowerSource>> Open(const std::string& path);

 private:
  struct Gpu {
    bool has_energy = false;
    uint64_t origin = 0;
  };
  Status Error(const std::string& what, rsmi_status_t rc) const {
    const char* text = nullptr;
    if (status_string_ != nullptr) status_string_(rc, &text);
    return Unavailable("amdsmi: " + what + " failed: " + (text != nullptr ? text : "status " + std::to_string(rc)));
  }

  void* lib_ = nullptr;
  ShutDownFn shut_down_ = nullptr;
  EnergyFn energy_ = nullptr;
  PowerFn power_ = nullptr;
  StatusStringFn status_string_ = nullptr;
  std::vector<Gpu> gpus_;
  std::vector<std::string> names_;
};

template <typename Fn>
Fn Symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

Result<std::unique_ptr<PowerSource>> RocmSmiSource::Open(const std::string& path_arg) {
  std::vector<std::string> paths;
  if (!path_arg.empty()) {
    paths = {path_arg};
  } else if (const char* env = std::getenv("FRONTIER_ROCM_SMI_LIB"); env != nullptr && *env != '\0') {
    paths = {env};
  } else {
    paths = {"librocm_smi64.so.1", "librocm_smi64.so"};
  }
  auto s = std::make_unique<RocmSmiSource>();
  std::string why;
  for (const auto& p : paths) {
    s->lib_ = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (s->lib_ != nullptr) break;
    const char* e = dlerror();
    why += (why.empty() ? "" : "; ") + std::string(e != nullptr ? e : p);
  }
  if (s->lib_ == nullptr)
    return Unavailable("amdsmi: cannot load ROCm SMI (" + why +
                       "); install ROCm or set FRONTIER_ROCM_SMI_LIB to librocm_smi64.so's path");
  auto init = Symbol<InitFn>(s->lib_, "rsmi_init");
  auto shut_down = Symbol<ShutDownFn>(s->lib_, "rsmi_shut_down");
  auto count = Symbol<CountFn>(s->lib_, "rsmi_num_monitor_devices");
  s->energy_ = Symbol<EnergyFn>(s->lib_, "rsmi_dev_energy_count_get");
  s->power_ = Symbol<PowerFn>(s->lib_, "rsmi_dev_power_ave_get");
  auto name = Symbol<NameFn>(s->lib_, "rsmi_dev_name_get");
  s->status_string_ = Symbol<StatusStringFn>(s->lib_, "rsmi_status_string");
  if (init == nullptr || shut_down == nullptr || count == nullptr || s->power_ == nullptr)
    return Unavailable("amdsmi: the library lacks rsmi_init, rsmi_shut_down, rsmi_num_monitor_devices or "
                       "rsmi_dev_power_ave_get; is it ROCm's librocm_smi64?");
  if (rsmi_status_t rc = init(0); rc != kRsmiSuccess) return s->Error("rsmi_init", rc);
  s->shut_down_ = shut_down;
  uint32_t n = 0;
  if (rsmi_status_t rc = count(&n); rc != kRsmiSuccess) return s->Error("rsmi_num_monitor_devices", rc);
  if (n == 0) return Unavailable("amdsmi: ROCm SMI lists no GPU");
  for (uint32_t i = 0; i < n; ++i) {
    Gpu g;
    uint64_t c = 0, timestamp = 0;
    float resolution = 0;
    if (s->energy_ != nullptr && s->energy_(i, &c, &resolution, &timestamp) == kRsmiSuccess && resolution > 0) {
      g.has_energy = true;
      g.origin = c;
    }
    char text[128] = {};
    std::string label = "gpu" + std::to_string(i);
    if (name != nullptr && name(i, text, sizeof(text) - 1) == kRsmiSuccess && text[0] != '\0')
      label += std::string(" ") + text;
    s->gpus_.push_back(g);
    s->names_.push_back(label);
  }
  return std::unique_ptr<PowerSource>(std::move(s));
}

}  // namespace

Result<std::unique_ptr<PowerSource>> OpenRocmSmi(const std::string& path) { return RocmSmiSource::Open(path); }

}  // namespace frontier::power
