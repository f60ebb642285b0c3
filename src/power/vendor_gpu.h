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

#include <initializer_list>
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

// One entry point of a vendor's library, as VendorGpuSource::Bind looks it
// up: its name, the typed function pointer it is stored in, and whether the
// source cannot work without it. Made by Required and Optional.
struct VendorSymbol {
  const char* name;
  bool required;
  void* slot;                                  // the Fn* given to Required or Optional
  void (*store)(void* slot, void* address);  // *slot = address, as Fn
};
template <typename Fn>
VendorSymbol Required(const char* name, Fn* slot) {
  return {name, true, slot, [](void* to, void* address) { *static_cast<Fn*>(to) = reinterpret_cast<Fn>(address); }};
}
template <typename Fn>
VendorSymbol Optional(const char* name, Fn* slot) {
  VendorSymbol s = Required(name, slot);
  s.required = false;
  return s;
}

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
  // REQUIRES: Load() succeeded. Stores every symbol's address in its slot
  // (null where the library lacks it). Unavailable where a required one is
  // missing: "<name>: <library> lacks A, B or C; is it <expected>?", naming
  // every required symbol in the order given.
  Status Bind(std::initializer_list<VendorSymbol> symbols, const std::string& library,
              const std::string& expected);
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
