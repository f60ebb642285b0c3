// cost.h: dollars and joules per token from throughput per GPU.
//
//   cost per million tokens = price per GPU-hour / (tokens/s/GPU * 3600) * 1e6
//   tokens per joule        = tokens/s/GPU / watts per GPU
// Prices and power are inputs (a price table, a flag, a hardware catalog's
// TDP); this file knows no hardware. Power at TDP is an upper bound on what a
// GPU draws, so tokens per joule from TDP is a lower bound: say so when shown.
//
// Thread safety: pure functions.
#pragma once

#include <optional>

namespace frontier::analysis {

// nullopt when the price or the throughput is not positive.
std::optional<double> CostPerMillionTokens(double price_per_gpu_hour, double tokens_per_s_per_gpu);

// Tokens bought by one dollar: 1e6 / CostPerMillionTokens (same nullopt rule).
std::optional<double> TokensPerDollar(double price_per_gpu_hour, double tokens_per_s_per_gpu);

// nullopt when the power or the throughput is not positive.
std::optional<double> TokensPerJoule(double tokens_per_s_per_gpu, double watts_per_gpu);

}  // namespace frontier::analysis
