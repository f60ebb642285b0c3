// fake_backend.h: a ProbeBackend whose figures follow known formulas, so
// that shapes, the top-N pick, fractions of peak, storing and calibration are
// tested without a GPU (`frontier probe --probe-backend fake`).
//
// A GEMM of M rows at precision p takes
//   best = 2 M N K / (peak_p x max_p M / (M + half_p))
// for its fastest candidate, which sits at rank f = (M/16 + N/1024 + K/1024) mod
// top_n of the heuristic's order; rank r takes best x (1 + 0.05 x ((r - f)
// mod top_n)). So the default (rank 0) is slower than the tuned pick by
// 5 % x ((-f) mod top_n), and the tuned fraction of peak is exactly
// max_p M / (M + half_p). Copy and triad move their bytes at copy / triad x
// the HBM peak, a decode step at decode x the HBM peak (error 0); one GPU, so
// collectives do not run.
//
// Thread safety: as ProbeBackend.
#pragma once

#include <memory>

#include "probe/backend.h"
#include "sim/engine/efficiency.h"
#include "sim/engine/hardware.h"

namespace frontier::probe {

struct FakeFigures {
  double bf16_tflops = 0, fp8_tflops = 0, fp4_tflops = 0;  // 0: the precision is not offered
  sim::Curve bf16{0.75, 96}, fp8{0.65, 192}, fp4{0.6, 256};
  double hbm_gbps = 0;
  double copy = 0.90, triad = 0.88, decode = 0.75;
  // Peaks and bandwidth of `hw` (so fractions of its catalogued peak are the curves).
  static FakeFigures For(const sim::Hardware& hw);
};

std::unique_ptr<ProbeBackend> MakeFakeBackend(const FakeFigures& figures);

}  // namespace frontier::probe
