#include "analysis/cost.h"

namespace frontier::analysis {

std::optional<double> CostPerMillionTokens(double price_per_gpu_hour, double tokens_per_s_per_gpu) {
  if (!(price_per_gpu_hour > 0) || !(tokens_per_s_per_gpu > 0)) return std::nullopt;
  return price_per_gpu_hour / (tokens_per_s_per_gpu * 3600.0) * 1e6;
}

std::optional<double> TokensPerDollar(double price_per_gpu_hour, double tokens_per_s_per_gpu) {
  const auto cost = CostPerMillionTokens(price_per_gpu_hour, tokens_per_s_per_gpu);
  if (!cost) return std::nullopt;
  return 1e6 / *cost;
}

std::optional<double> TokensPerJoule(double tokens_per_s_per_gpu, double watts_per_gpu) {
  if (!(watts_per_gpu > 0) || !(tokens_per_s_per_gpu > 0)) return std::nullopt;
  return tokens_per_s_per_gpu / watts_per_gpu;
}

}  // namespace frontier::analysis
