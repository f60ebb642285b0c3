// rapl.h: the host's CPU package and DRAM energy from Linux's powercap tree
// (Intel RAPL; AMD's CPUs appear under the same names).
//
//   Result<std::unique_ptr<PowerSource>> s = OpenRapl("");   // /sys/class/powercap
//
// The root is `root`, else $FRONTIER_POWERCAP_ROOT, else /sys/class/powercap.
// Devices: each top-level zone `intel-rapl:<n>` (a CPU package) and each of
// its sub-zones named "dram" (DRAM is outside the package's count on the
// servers that have it; the cores' and uncore's sub-zones are inside it, so
// they are left out to count nothing twice). A device is named by its zone's
// `name` file ("package-0", "dram").
//
// energy_uj is a counter in microjoules that wraps to 0 after
// max_energy_range_uj; every reading adds the step since the previous one
// (integrate.h's UnwrapStep), so a wrap between two readings is counted
// right as long as the counter wraps at most once between them (a package
// at 300 W wraps a 2^32 µJ range in about 4 hours; the sampler reads every
// 100 ms by default).
//
// Fails: NotFound when the root has no intel-rapl zone; Unavailable when an
// energy_uj cannot be read (since Linux 5.10 only root may read it; the
// message says so).
//
// Thread safety: as PowerSource.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "power/source.h"

namespace frontier::power {

Result<std::unique_ptr<PowerSource>> OpenRapl(const std::string& root);

}  // namespace frontier::power
