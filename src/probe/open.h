// open.h: choosing a probe backend by name.
//
//   "fake"  fake_backend.h, with the peaks of the hardware probed
//   "cuda"  the CUDA module (libfrontier_probe_cuda.so), loaded at run time
//           from $FRONTIER_PROBE_CUDA_LIB, else beside the `frontier`
//           binary, else where the build put it, else the loader's path
//   "auto"  $FRONTIER_PROBE_BACKEND if set, else "cuda"
// A GPU run never falls back to the fake: its figures would read as measured.
//
// Thread safety: not thread-safe (dlopen, environment).
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "probe/backend.h"
#include "sim/engine/hardware.h"

namespace frontier::probe {

// The backend `name` names. Errors: InvalidArgument for an unknown name;
// Unavailable when the CUDA module is not built or cannot start (no GPU, no
// driver, missing cuBLASLt), with what was tried and the fix.
Result<std::unique_ptr<ProbeBackend>> OpenBackend(const std::string& name, const sim::Hardware& hardware);

}  // namespace frontier::probe
