// open.cc: the fake in process, the CUDA module through dlopen (so that the
// `frontier` binary starts on machines without CUDA's libraries).
#include "probe/open.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "probe/fake_backend.h"

namespace frontier::probe {
namespace {

constexpr const char* kModule = "libfrontier_probe_cuda.so";

std::string SelfDir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "" : exe.parent_path().string();
}

Result<std::unique_ptr<ProbeBackend>> OpenCuda() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("FRONTIER_PROBE_CUDA_LIB"); env && *env) {
    candidates.push_back(env);
  } else {
    if (const std::string dir = SelfDir(); !dir.empty()) candidates.push_back(dir + "/" + kModule);
#ifdef FRONTIER_PROBE_CUDA_MODULE
    candidates.push_back(FRONTIER_PROBE_CUDA_MODULE);
#endif
    candidates.push_back(kModule);
  }
  std::string tried;
  for (const auto& path : candidates) {
    std::error_code ec;
    if (path.find('/') != std::string::npos && !std::filesystem::exists(path, ec)) {
      tried += "\n  " + path + ": not there";
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* e = dlerror();
      tried += "\n  " + path + ": " + (e ? e : "dlopen failed");
      continue;
    }
    using Create = ProbeBackend* (*)(char*, int);
    auto create = reinterpret_cast<Create>(dlsym(handle, "frontier_probe_cuda_create"));
    if (create == nullptr) {
      tried += "\n  " + path + ": no frontier_probe_cuda_create";
      continue;
    }
    char error[512] = "";
    ProbeBackend* backend = create(error, sizeof error);
    if (backend == nullptr) return Unavailable(std::string("the CUDA probe backend (") + path + ") cannot start: " + error);
    // The module stays loaded for the process's life: the backend's code lives there.
    return std::unique_ptr<ProbeBackend>(backend);
  }
  return Unavailable(std::string("no CUDA probe backend could be loaded; tried:") + tried +
                     "\n  build with CUDA (cmake -DFRONTIER_CUDA=ON, nvcc on the PATH or in /usr/local/cuda) or point "
                     "FRONTIER_PROBE_CUDA_LIB at " + kModule + "; --probe-backend fake runs the pipeline without a GPU");
}

}  // namespace

Result<std::unique_ptr<ProbeBackend>> OpenBackend(const std::string& name, const sim::Hardware& hardware) {
  std::string n = name;
  if (n == "auto") {
    const char* env = std::getenv("FRONTIER_PROBE_BACKEND");
    n = env && *env ? env : "cuda";
  }
  if (n == "fake") return MakeFakeBackend(FakeFigures::For(hardware));
  if (n == "cuda") return OpenCuda();
  return InvalidArgument("--probe-backend: '" + n + "' is not a backend; use auto, cuda or fake");
}

}  // namespace frontier::probe
