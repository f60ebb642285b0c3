#include "power/vendor_gpu.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <utility>

namespace frontier::power {

std::vector<std::string> LibraryCandidates(const std::string& path, const char* env,
                                           std::vector<std::string> defaults) {
  if (!path.empty()) return {path};
  if (const char* value = std::getenv(env); value != nullptr && *value != '\0') return {value};
  return defaults;
}

std::string GpuLabel(size_t i, const char* name) {
  std::string label = "gpu" + std::to_string(i);
  if (name != nullptr && name[0] != '\0') label += std::string(" ") + name;
  return label;
}

VendorGpuSource::VendorGpuSource(std::string name, std::string energy_call, std::string power_call)
    : name_(std::move(name)), energy_call_(std::move(energy_call)), power_call_(std::move(power_call)) {}

VendorGpuSource::~VendorGpuSource() {
  if (shutdown_ != nullptr) shutdown_();
  if (lib_ != nullptr) dlclose(lib_);
}

bool VendorGpuSource::Load(const std::vector<std::string>& paths, std::string* why) {
  for (const auto& p : paths) {
    lib_ = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib_ != nullptr) return true;
    const char* e = dlerror();
    *why += (why->empty() ? "" : "; ") + std::string(e != nullptr ? e : p);
  }
  return false;
}

Status VendorGpuSource::Bind(std::initializer_list<VendorSymbol> symbols, const std::string& library,
                             const std::string& expected) {
  std::vector<const char*> required;
  bool missing = false;
  for (const VendorSymbol& s : symbols) {
    void* address = dlsym(lib_, s.name);
    s.store(s.slot, address);
    if (!s.required) continue;
    required.push_back(s.name);
    missing = missing || address == nullptr;
  }
  if (!missing) return Status::Ok();
  std::string names;
  for (size_t i = 0; i < required.size(); ++i)
    names += (i == 0 ? "" : i + 1 == required.size() ? " or " : ", ") + std::string(required[i]);
  return Unavailable(name_ + ": " + library + " lacks " + names + "; is it " + expected + "?");
}

void VendorGpuSource::AddDevice(std::string label, bool has_energy) {
  names_.push_back(std::move(label));
  has_energy_.push_back(has_energy);
}

Status VendorGpuSource::Error(const std::string& what, int rc) const {
  return Unavailable(name_ + ": " + what + " failed: " + ErrorText(rc));
}

Status VendorGpuSource::Read(PowerReading* r) {
  r->Reset(names_.size());
  for (size_t i = 0; i < names_.size(); ++i) {
    if (has_energy_[i]) {
      double joules = 0;
      if (int rc = EnergyJoules(i, &joules); rc != 0) return Error(names_[i] + ": " + energy_call_, rc);
      r->energy_j[i] = joules;
    }
    double watts = 0;
    if (int rc = PowerWatts(i, &watts); rc == 0) {
      r->power_w[i] = watts;
    } else if (!has_energy_[i]) {
      return Error(names_[i] + ": " + power_call_, rc);
    }
  }
  return Status::Ok();
}

}  // namespace frontier::power
