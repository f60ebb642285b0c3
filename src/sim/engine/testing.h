// testing.h: hand-built configurations for the simulator's tests (no files).
//
// Thread safety: pure functions.
#pragma once

#include "sim/engine/config.h"

namespace frontier::sim::testing {

// Every efficiency 1 (constant curves), every latency and overhead 0.
StackParams IdealParams();

// A tiny dense model (2 layers, hidden 1024, 8 heads of 128, 8 KV heads,
// MLP 4096, vocab 1000) on a made-up GPU (100 dense BF16 TFLOPS, 200 FP8,
// 10 GB of HBM at 1 TB/s, NVLink-like switch at 100 GB/s) with every
// efficiency 1 and no overheads (IdealParams): numbers a test can work out by hand.
SimConfig TinyConfig(int tp = 1, int dp = 1);

}  // namespace frontier::sim::testing
