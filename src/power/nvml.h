// nvml.h: NVIDIA GPUs' energy and power through NVML, loaded at run time.
//
//   Result<std::unique_ptr<PowerSource>> s = OpenNvml("");   // libnvidia-ml.so.1
//
// The library is dlopen()ed (`path`, else $FRONTIER_NVML_LIB, else
// "libnvidia-ml.so.1"), so frontier builds and runs without NVIDIA's
// headers or driver; the few entry points used are declared here by hand.
// Every GPU NVML lists is a device ("gpu<i> <name>"). Per GPU:
//   - nvmlDeviceGetTotalEnergyConsumption (millijoules since the driver
//     loaded; Volta and later) when it answers at open, as the energy counter;
//   - nvmlDeviceGetPowerUsage (milliwatts) on every reading, for the peak,
//     and to integrate where the GPU has no energy counter.
// nvmlShutdown and dlclose when the source is destroyed.
//
// Fails: Unavailable when the library cannot be loaded or lacks an entry
// point, nvmlInit fails, or no GPU is listed (the message says which and
// names $FRONTIER_NVML_LIB).
//
// Thread safety: as PowerSource.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "power/source.h"

namespace frontier::power {

Result<std::unique_ptr<PowerSource>> OpenNvml(const std::string& path);

}  // namespace frontier::power
