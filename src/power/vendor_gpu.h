// vendor_gpu.h: the skeleton the vendor GPU power readers share (nvml.h,
// rocm_smi.h): the vendor's library dlopen()ed at run time and its entry
// points looked up by name, one device per GPU with an energy counter where
// the counter answered at open, and the reading loop over those devices.
//
//   class NvmlSource final : public VendorGpuSource { ... };   // the three virtuals
//
// A reading takes, per GPU, the energy since open where the GPU has a counter
// (an error fails the reading) and the power now (an error fails the reading
// only where there is no counter to fall back on).
//
// Internal to power/. Thread safety: as PowerSource.
#pragma once

#include <dlfcn.h>

#include <string>
#include <vector>

#include "core/status.h"
#include "power/source.h"

namespace frontier::power {

// The library's candidate paths: `path` when given, else $`env` when set and
// non-empty, else `defaults` in order.
std::vector<std::string> LibraryCandidates(const std::string& path, const char* env,
                                           std::vector<std::string> defaults);

// "gpu<i>", then " <name>" where the vendor gave a non-empty name.
std::string GpuLabel(size_t i, const char* name);

class VendorGpuSource : public PowerSource {
 public:
  ~VendorGpuSource() override;  // the vendor's shutdown once its init succeeded, then dlclose
  std::string Name() const override { return name_; }
  const std::vector<std::string>& Devices() const override { return names_; }
  Status Read(PowerReading* r) final;

 protected:
  // `name`: the source's name and its messages' prefix ("nvml"); `energy_call`
  // and `power_call`: the two entry points' names, for messages.
  VendorGpuSource(std::string name, std::string energy_call, std::string power_call);

  // Loads the first of `paths` that dlopen() accepts. False when none does,
  // with every dlerror() "; "-joined in `why`.
  bool Load(const std::vector<std::string>& paths, std::string* why);
  // REQUIRES: Load() succeeded. Null when the library lacks `name`.
  template <typename Fn>
  Fn Symbol(const char* name) const {
    return reinterpret_cast<Fn>(dlsym(lib_, name));
  }
  // Called from the destructor: set once the vendor's init succeeded.
  void SetShutdown(int (*shutdown)()) { shutdown_ = shutdown; }
  // Devices in the order of the vendor's index.
  void AddDevice(std::string label, bool has_energy);
  // Unavailable: "<name>: <what> failed: <ErrorText(rc)>".
  Status Error(const std::string& what, int rc) const;

  // Device i's joules since open (asked only where it has a counter) and its
  // watts now; each returns the vendor's code, 0 on success.
  virtual int EnergyJoules(size_t i, double* joules) = 0;
  virtual int PowerWatts(size_t i, double* watts) = 0;
  // The vendor's text for a failure code.
  virtual std::string ErrorText(int rc) const = 0;

 private:
  std::string name_, energy_call_, power_call_;
  void* lib_ = nullptr;
  int (*shutdown_)() = nullptr;
  std::vector<bool> has_energy_;
  std::vector<std::string> names_;
};

}  // namespace frontier::power
