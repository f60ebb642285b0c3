#include "sim/config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/parse.h"

namespace frontier::sim {
namespace {

std::string Gb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Divisors of n, for error messages that offer the valid choices.
std::string Divisors(int n) {
  std::string out;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return out;
}

Status CheckParallelism(const SimConfig& c) {
  const ModelSpec& m = c.model;
  if (c.tp < 1) return InvalidArgument("--tp must be at least 1");
  if (c.dp < 1) return InvalidArgument("--dp must be at least 1");
  if (c.ep < 1) return InvalidArgument("--ep must be at least 1");
  if (m.heads % c.tp != 0)
    return InvalidArgument("--tp " + std::to_string(c.tp) + " does not divide the " +
                           std::to_string(m.heads) + " attention heads of " + m.name +
                           "; use one of " + Divisors(m.heads));
  if (!m.mla() && m.kv_heads % c.tp != 0 && c.tp % m.kv_heads != 0)
    return InvalidArgument("--tp " + std::to_string(c.tp) + " does not divide the " +
                           std::to_string(m.kv_heads) + " KV heads of " + m.name +
                           " (nor is it a multiple of them); use one of " + Divisors(m.kv_heads) +
                           " or a multiple of " + std::to_string(m.kv_heads));
  if (c.tp > c.hardware.scale_up_gpus)
    return InvalidArgument("--tp " + std::to_string(c.tp) + " exceeds the " +
                           std::to_string(c.hardware.scale_up_gpus) + "-GPU scale-up domain of " +
                           c.hardware.name + "; tensor parallelism across nodes is not modelled");
  if (c.ep > 1) {
    if (!m.moe())
      return InvalidArgument("--ep " + std::to_string(c.ep) + ": " + m.name +
                             " has no experts; expert parallelism needs a mixture-of-experts model");
    if (c.ep > m.experts)
      return InvalidArgument("--ep " + std::to_string(c.ep) + " exceeds the " +
                             std::to_string(m.experts) + " experts of " + m.name);
    if (c.ep != c.tp * c.dp)
      return InvalidArgument("--ep " + std::to_string(c.ep) + " must equal --tp x --dp (" +
                             std::to_string(c.tp * c.dp) +
                             "): expert parallelism spans every GPU of the deployment");
    if (m.experts % c.ep != 0)
      return InvalidArgument("--ep " + std::to_string(c.ep) + " does not divide the " +
                             std::to_string(m.experts) + " experts of " + m.name);
    if (c.ep > c.hardware.scale_up_gpus)
      return InvalidArgument("--ep " + std::to_string(c.ep) + " exceeds the " +
                             std::to_string(c.hardware.scale_up_gpus) + "-GPU scale-up domain of " +
                             c.hardware.name + "; all-to-all across nodes is not modelled");
  }
  if (c.spec_tokens < 0) return InvalidArgument("--spec-tokens must be 0 or more");
  if (c.spec_tokens > 0 && !(c.acceptance >= 1.0 && c.acceptance <= c.spec_tokens + 1.0))
    return InvalidArgument("--acceptance must be in [1, spec tokens + 1] = [1, " +
                           std::to_string(c.spec_tokens + 1) + "], got " + Num(c.acceptance));
  if (c.max_num_seqs < 1) return InvalidArgument("--max-num-seqs must be at least 1");
  if (c.max_num_batched_tokens < 1) return InvalidArgument("--max-num-batched-tokens must be at least 1");
  return Status::Ok();
}

}  // namespace

MemoryPlan PlanMemory(const SimConfig& c) {
  const ModelSpec& m = c.model;
  const double tp = c.tp, h = m.hidden;
  const double wb = BytesPerElement(c.precision), eb = BytesPerElement(c.expert_precision);
  MemoryPlan p;
  p.budget = c.hardware.HbmBytes() * c.stack.gpu_memory_utilization;
  double replicated = 0;
  if (m.mla()) replicated = h * m.q_lora_rank + h * (m.kv_lora_rank + m.qk_rope_dim);
  const double attn = (m.AttentionParams() - replicated) / tp + replicated;
  double w = m.layers * attn * wb;
  const int dense = m.moe() ? m.dense_layers : m.layers;
  w += dense * m.DenseMlpParams() / tp * wb;
  if (m.moe()) {
    const double routed = c.ep > 1 ? m.experts * m.ExpertParams() / c.ep : m.experts * m.ExpertParams() / tp;
    w += m.moe_layers() * (routed * eb + m.shared_experts * m.ExpertParams() / tp * eb + m.RouterParams() * 2.0);
  }
  w += m.EmbeddingParams() * 2.0 / tp * (m.tied_embeddings ? 1 : 2);  // BF16, vocab-parallel
  if (c.spec_tokens > 0 && m.mtp_layers > 0) w += m.MtpParams() / tp * eb;
  p.weights = w;

  // Peak activations of the largest step on one DP rank: the residual stream
  // and a few hidden-sized temporaries per token, the MLP's widest
  // intermediate, and FP32 logits for every sequence that samples.
  const double tokens = c.max_num_batched_tokens;
  const double mlp_width = std::max<double>(m.intermediate / tp, m.moe() ? 1.0 * m.experts_per_token * m.moe_intermediate : 0.0);
  p.activations = tokens * (16.0 * h * 2.0 + 3.0 * mlp_width * 2.0) +
                  static_cast<double>(c.max_num_seqs) * m.vocab / tp * 4.0;
  p.runtime_reserve = c.stack.runtime_reserve_gb * 1e9;
  p.kv = p.budget - p.weights - p.activations - p.runtime_reserve;

  const double kv_shard = m.mla() ? 1.0 : std::min(c.tp, m.kv_heads);
  const double per_layer = m.KvElementsPerTokenLayer() * BytesPerElement(c.kv_precision) / kv_shard;
  p.kv_bytes_per_token = per_layer * m.layers;
  // Capacity in tokens of the full-attention layers; sliding-window layers keep
  // at most a window per sequence (charged per sequence by the engine).
  const double full_bytes = per_layer * m.full_attention_layers();
  if (p.kv > 0 && full_bytes > 0)
    p.kv_capacity_tokens = static_cast<int64_t>(p.kv / full_bytes) * c.dp;
  return p;
}

// Sizes beyond any deployment (docs/limits.md), checked before any product of them is formed.
Status CheckSizes(const SimSpec& spec) {
  constexpr int64_t kMaxGpus = 100'000;
  FRONTIER_RETURN_IF_ERROR(CheckRange("--tp", int64_t{spec.tp}, 1, kMaxGpus));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--ep", int64_t{spec.ep}, 1, kMaxGpus));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--dp", int64_t{spec.dp}, 0, kMaxGpus));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--gpus", int64_t{spec.gpus}, 0, kMaxGpus));
  if (spec.max_num_seqs) FRONTIER_RETURN_IF_ERROR(CheckRange("--max-num-seqs", int64_t{*spec.max_num_seqs}, 1, 1'000'000));
  if (spec.max_num_batched_tokens)
    FRONTIER_RETURN_IF_ERROR(CheckRange("--max-num-batched-tokens", int64_t{*spec.max_num_batched_tokens}, 1, 1'000'000'000));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--spec-tokens", int64_t{spec.spec_tokens}, 0, 64));
  if (spec.acceptance) FRONTIER_RETURN_IF_ERROR(CheckRange("--acceptance", *spec.acceptance, 1, 65));
  return Status::Ok();
}

Result<SimConfig> ResolveSimConfig(const SimSpec& spec) {
  FRONTIER_RETURN_IF_ERROR(CheckSizes(spec));
  const std::string dir = spec.data_dir.empty() ? DefaultDataDir() : spec.data_dir;
  SimConfig c;
  FRONTIER_ASSIGN_OR_RETURN(c.model, LoadModel(spec.model, dir));
  FRONTIER_ASSIGN_OR_RETURN(c.hardware, LoadHardware(spec.hardware, dir));
  if (spec.stack) {
    FRONTIER_ASSIGN_OR_RETURN(c.stack, LoadStack(*spec.stack, dir));
    if (c.stack.vendor != c.hardware.vendor)
      return InvalidArgument("--stack " + c.stack.name + " runs on " + c.stack.vendor + " GPUs, not on " +
                             c.hardware.name + " (" + c.hardware.vendor + ")");
  } else {
    FRONTIER_ASSIGN_OR_RETURN(c.stack, DefaultStack(c.hardware.vendor, dir));
  }
  c.tp = spec.tp;
  c.ep = spec.ep;
  if (spec.tp < 1) return InvalidArgument("--tp must be at least 1");
  if (spec.dp > 0) {
    c.dp = spec.dp;
  } else if (spec.gpus > 0) {
    if (spec.gpus % spec.tp != 0)
      return InvalidArgument("--gpus " + std::to_string(spec.gpus) + " is not a multiple of --tp " +
                             std::to_string(spec.tp));
    c.dp = spec.gpus / spec.tp;
  } else {
    c.dp = 1;
  }
  c.gpus = c.tp * c.dp;
  if (spec.gpus > 0 && spec.gpus != c.gpus)
    return InvalidArgument("--gpus " + std::to_string(spec.gpus) + " must equal --tp x --dp = " +
                           std::to_string(c.gpus));

  c.precision = c.model.precision;
  c.expert_precision = c.model.expert_precision;
  if (spec.precision) {
    FRONTIER_ASSIGN_OR_RETURN(c.precision, ParsePrecision(*spec.precision, "--precision"));
    c.expert_precision = c.precision;
  }
  if (spec.kv_precision) {
    FRONTIER_ASSIGN_OR_RETURN(c.kv_precision, ParsePrecision(*spec.kv_precision, "--kv-precision"));
    if (c.kv_precision == Precision::kFp4)
      return InvalidArgument("--kv-precision: fp4 KV cache is not modelled; use bf16 or fp8");
  } else {
    c.kv_precision = c.precision == Precision::kBf16 ? Precision::kBf16 : Precision::kFp8;
  }
  if (spec.gpu_memory_utilization) {
    if (!(*spec.gpu_memory_utilization > 0 && *spec.gpu_memory_utilization <= 1))
      return InvalidArgument("--gpu-memory-utilization must be a number in (0, 1], got " +
                             Num(*spec.gpu_memory_utilization));
    c.stack.gpu_memory_utilization = *spec.gpu_memory_utilization;
  }
  c.max_num_seqs = spec.max_num_seqs.value_or(c.stack.max_num_seqs);
  c.max_num_batched_tokens = spec.max_num_batched_tokens.value_or(c.stack.max_num_batched_tokens);
  c.spec_tokens = spec.spec_tokens;
  c.acceptance = spec.acceptance.value_or(1.0 + 0.7 * spec.spec_tokens);
  FRONTIER_RETURN_IF_ERROR(CheckParallelism(c));

  c.memory = PlanMemory(c);
  const MemoryPlan& p = c.memory;
  if (p.kv <= 0) {
    return FailedPrecondition(
        c.model.name + " does not fit on " + c.hardware.name + " at --tp " + std::to_string(c.tp) +
        (c.ep > 1 ? " --ep " + std::to_string(c.ep) : "") + " in " + PrecisionName(c.precision) +
        ": each GPU needs " + Gb(p.weights) + " of weights + " + Gb(p.activations) + " of activations + " +
        Gb(p.runtime_reserve) + " runtime reserve, but only " + Gb(p.budget) + " is usable (" +
        Num(c.stack.gpu_memory_utilization * 100) + "% of " + Num(c.hardware.hbm_gb) + " GB); short by " +
        Gb(-p.kv) + " per GPU. Use more GPUs (--tp), a narrower --precision, or larger-memory hardware");
  }
  const int64_t min_tokens = static_cast<int64_t>(c.block_size) * c.max_num_seqs / 16 + c.block_size;
  if (p.kv_capacity_tokens < min_tokens)
    return FailedPrecondition(c.model.name + " on " + c.hardware.name + " leaves only " + Gb(p.kv) +
                              " per GPU for the KV cache (" + std::to_string(p.kv_capacity_tokens) +
                              " tokens); use more GPUs or a narrower precision");
  return c;
}

std::map<std::string, std::string> SimConfig::EffectiveSettings() const {
  std::map<std::string, std::string> s;
  s["model"] = model.name;
  s["hardware"] = hardware.name;
  s["stack"] = stack.name;
  s["gpus"] = std::to_string(gpus);
  s["tp"] = std::to_string(tp);
  s["ep"] = std::to_string(ep);
  s["dp"] = std::to_string(dp);
  s["precision"] = PrecisionName(precision);
  s["expert_precision"] = PrecisionName(expert_precision);
  Precision eff = precision;
  hardware.PeakTflops(precision, &eff);
  s["compute_precision"] = PrecisionName(eff);
  s["kv_precision"] = PrecisionName(kv_precision);
  s["max_num_seqs"] = std::to_string(max_num_seqs);
  s["max_num_batched_tokens"] = std::to_string(max_num_batched_tokens);
  s["block_size"] = std::to_string(block_size);
  s["spec_tokens"] = std::to_string(spec_tokens);
  if (spec_tokens > 0) s["acceptance"] = Num(acceptance);
  s["gpu_memory_utilization"] = Num(stack.gpu_memory_utilization);
  s["weights_gb_per_gpu"] = Num(memory.weights / 1e9);
  s["kv_cache_gb_per_gpu"] = Num(memory.kv / 1e9);
  s["kv_capacity_tokens"] = std::to_string(memory.kv_capacity_tokens);
  return s;
}

}  // namespace frontier::sim
