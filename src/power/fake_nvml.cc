// fake_nvml.cc: a stand-in for NVIDIA's libnvidia-ml.so.1 with the entry
// points frontier's NVML source uses (power/nvml.h), for tests.
//
// GPU i draws a constant power W_i from nvmlInit_v2 on, so over any window
// its energy is exactly W_i times the window's length:
//   FAKE_NVML_WATTS="100,250"   one GPU per value (default "100,250")
//   FAKE_NVML_NO_ENERGY=1       nvmlDeviceGetTotalEnergyConsumption answers
//                               NVML_ERROR_NOT_SUPPORTED (3), as on GPUs
//                               before Volta: power is integrated instead
//   FAKE_NVML_INIT_FAIL=1       nvmlInit_v2 answers NVML_ERROR_DRIVER_NOT_LOADED (9)
//   FAKE_NVML_TIME_FILE=path    time (seconds) is the number in that file,
//                               read at every call, instead of the clock
// The energy counter is in millijoules and the power in milliwatts, both
// integers as NVML gives them; time is CLOCK_MONOTONIC, the clock frontier
// stamps its readings with.
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Gpu {
  double watts = 0;
};
std::vector<Gpu> g_gpus;
double g_init_s = 0;

double NowS() {
  if (const char* path = std::getenv("FAKE_NVML_TIME_FILE")) {
    double t = 0;
    if (std::FILE* f = std::fopen(path, "r")) {
      if (std::fscanf(f, "%lf", &t) != 1) t = 0;
      std::fclose(f);
    }
    return t;
  }
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

bool Flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace

extern "C" {

struct nvmlDevice_st {
  int index;
};
nvmlDevice_st g_handles[16];

int nvmlInit_v2() {
  if (Flag("FAKE_NVML_INIT_FAIL")) return 9;
  g_gpus.clear();
  const char* env = std::getenv("FAKE_NVML_WATTS");
  std::string list = env != nullptr ? env : "100,250";
  size_t at = 0;
  while (at <= list.size() && g_gpus.size() < 16) {
    const size_t comma = list.find(',', at);
    const std::string item = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (!item.empty()) g_gpus.push_back({std::atof(item.c_str())});
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  g_init_s = NowS();
  return 0;
}

int nvmlShutdown() { return 0; }

int nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = static_cast<unsigned int>(g_gpus.size());
  return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_st** device) {
  if (index >= g_gpus.size()) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  g_handles[index].index = static_cast<int>(index);
  *device = &g_handles[index];
  return 0;
}

int nvmlDeviceGetName(nvmlDevice_st* device, char* name, unsigned int length) {
  std::snprintf(name, length, "Fake GPU %d", device->index);
  return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_st* device, unsigned long long* mj) {
  if (Flag("FAKE_NVML_NO_ENERGY")) return 3;  // NVML_ERROR_NOT_SUPPORTED
  // A large origin, as a driver loaded long ago gives.
  const double joules = 5e6 + g_gpus[static_cast<size_t>(device->index)].watts * (NowS() - g_init_s);
  *mj = static_cast<unsigned long long>(joules * 1e3);
  return 0;
}

int nvmlDeviceGetPowerUsage(nvmlDevice_st* device, unsigned int* mw) {
  *mw = static_cast<unsigned int>(g_gpus[static_cast<size_t>(device->index)].watts * 1e3);
  return 0;
}

const char* nvmlErrorString(int rc) {
  switch (rc) {
    case 3: return "Not Supported";
    case 9: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}

}  // extern "C"
