// rocm_smi.h: AMD GPUs' energy and power through ROCm SMI, loaded at run time
// (`--power amdsmi`).
//
//   Result<std::unique_ptr<PowerSource>> s = OpenRocmSmi("");   // librocm_smi64.so.1
//
// The library is dlopen()ed (`path`, else $FRONTIER_ROCM_SMI_LIB, else
// "librocm_smi64.so.1", then "librocm_smi64.so"); the few entry points used
// are declared here by hand, as ROCm SMI's C API documents them. AMD's newer
// libamd_smi is not read: ROCm still ships librocm_smi64 beside it. Every
// device rsmi_num_monitor_devices lists is a device ("gpu<i> <name>"). Per GPU:
//   - rsmi_dev_energy_count_get (a counter whose unit is its
//     counter_resolution, in microjoules) when it answers at open;
//   - rsmi_dev_power_ave_get (microwatts, sensor 0) on every reading, for
//     the peak, and to integrate where there is no counter.
//
// Fails: Unavailable when the library cannot be loaded or lacks an entry
// point, rsmi_init fails, or no device is listed (naming the library and
// $FRONTIER_ROCM_SMI_LIB).
//
// Thread safety: as PowerSource.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "power/source.h"

namespace frontier::power {

Result<std::unique_ptr<PowerSource>> OpenRocmSmi(const std::string& path);

}  // namespace frontier::power
