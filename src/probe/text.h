// text.h: a probe's figures as text: the device against its catalog GPU, one
// row per GEMM (default and tuned TFLOP/s, fraction of peak, gain, the tuned
// algorithm), HBM bandwidth, decode attention, collectives and notes. Text
// only; `frontier probe` prints it. A pure function, safe from any thread.
#pragma once

#include <string>

#include "probe/probe.h"

namespace frontier::probe {

std::string ProbeResultText(const ProbeResult& result);

}  // namespace frontier::probe
