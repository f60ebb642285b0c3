// fake_rocm_smi.cc: a stand-in for ROCm's librocm_smi64.so with the entry
// points frontier's AMD source uses (power/rocm_smi.h), for tests.
//
// Device i's energy counter and average power follow a script read from the
// file FAKE_RSMI_SCRIPT at every call: one line "<counter> <power_uw>" per
// device, the counter in units of 15.3 µJ (MI300X's counter resolution), so a
// test sets the file, reads, and knows the joules exactly.
//   FAKE_RSMI_NO_ENERGY=1   rsmi_dev_energy_count_get answers
//                           RSMI_STATUS_NOT_SUPPORTED (2)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Device {
  unsigned long long counter = 0, power_uw = 0;
};

std::vector<Device> Script() {
  std::vector<Device> out;
  const char* path = std::getenv("FAKE_RSMI_SCRIPT");
  if (path == nullptr) return out;
  if (std::FILE* f = std::fopen(path, "r")) {
    Device d;
    while (std::fscanf(f, "%llu %llu", &d.counter, &d.power_uw) == 2) out.push_back(d);
    std::fclose(f);
  }
  return out;
}

}  // namespace

extern "C" {

int rsmi_init(uint64_t) { return 0; }
int rsmi_shut_down() { return 0; }

int rsmi_num_monitor_devices(uint32_t* n) {
  *n = static_cast<uint32_t>(Script().size());
  return 0;
}

int rsmi_dev_energy_count_get(uint32_t i, uint64_t* counter, float* resolution, uint64_t* timestamp) {
  const char* no = std::getenv("FAKE_RSMI_NO_ENERGY");
  if (no != nullptr && std::strcmp(no, "1") == 0) return 2;
  const auto s = Script();
  if (i >= s.size()) return 1;
  *counter = s[i].counter;
  *resolution = 15.3f;
  *timestamp = 0;
  return 0;
}

int rsmi_dev_power_ave_get(uint32_t i, uint32_t, uint64_t* uw) {
  const auto s = Script();
  if (i >= s.size()) return 1;
  *uw = s[i].power_uw;
  return 0;
}

int rsmi_dev_name_get(uint32_t i, char* name, size_t len) {
  std::snprintf(name, len, "Fake MI300X %u", i);
  return 0;
}

int rsmi_status_string(int rc, const char** text) {
  *text = rc == 2 ? "RSMI_STATUS_NOT_SUPPORTED" : "RSMI_STATUS_UNKNOWN_ERROR";
  return 0;
}

}  // extern "C"
