#include "sim/engine/config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "core/parse.h"
#include "sim/engine/gpu_override.h"
#include "sim/engine/spec_table.h"

namespace frontier::sim {
namespace {

std::string Gb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
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
                           c.hardware.name + "; tensor parallelism across nodes is not modelled (span nodes "
                           "with --dp or --ep)");
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
    if (c.ep > c.hardware.scale_up_gpus) {
      if (c.hardware.nic_gbps <= 0)
        return InvalidArgument("--ep " + std::to_string(c.ep) + " exceeds the " +
                               std::to_string(c.hardware.scale_up_gpus) + "-GPU scale-up domain of " +
                               c.hardware.name + ", and its catalog gives no scale_out_gbps_per_gpu to cross "
                               "domains with");
      if (c.ep % c.hardware.scale_up_gpus != 0)
        return InvalidArgument("--ep " + std::to_string(c.ep) + " spans scale-up domains of " +
                               std::to_string(c.hardware.scale_up_gpus) + " GPUs (" + c.hardware.name +
                               ") and must then fill whole domains: use a multiple of " +
                               std::to_string(c.hardware.scale_up_gpus));
    }
  }
  if (c.spec_tokens > 0 && !(c.acceptance >= 1.0 && c.acceptance <= c.spec_tokens + 1.0))
    return InvalidArgument("--acceptance must be in [1, spec tokens + 1] = [1, " + std::to_string(c.spec_tokens + 1) +
                           "], got " + FormatSignificant(c.acceptance));
  if (c.max_num_seqs < 1) return InvalidArgument("--max-num-seqs must be at least 1");
  if (c.max_num_batched_tokens < 1) return InvalidArgument("--max-num-batched-tokens must be at least 1");
  return Status::Ok();
}

// Sizes beyond any deployment (docs/limits.md), checked before any product of them is formed:
// each field's bounds are the table's (spec_table.h), the products' here.
Status CheckSizes(const SimSpec& spec) {
  constexpr int64_t kMaxGpus = 100'000;
  FRONTIER_RETURN_IF_ERROR(CheckSimSpecBounds(spec));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--tp x --dp", int64_t{spec.tp} * spec.dp, 0, kMaxGpus));
  for (const auto& [pool, workers, tp, dp, ep] :
       {std::tuple{std::string("--prefill"), spec.prefill_workers, spec.prefill_tp, spec.prefill_dp, spec.prefill_ep},
        std::tuple{std::string("--decode"), spec.decode_workers, spec.decode_tp, spec.decode_dp, spec.decode_ep}}) {
    FRONTIER_RETURN_IF_ERROR(
        CheckRange(pool + "-workers x " + pool + "-tp x " + pool + "-dp", int64_t{workers} * tp * dp, 0, kMaxGpus));
  }
  return Status::Ok();
}

// Parallelism of one engine from --gpus / --tp / --dp / --ep / --attention-dp.
Status ResolveParallelism(const SimSpec& spec, SimConfig& c) {
  if (spec.tp < 1) return InvalidArgument("--tp must be at least 1");
  if (spec.attention_dp) {
    if (!c.model.moe())
      return InvalidArgument("--attention-dp: " + c.model.name +
                             " has no experts; attention data parallelism with expert parallelism needs a "
                             "mixture-of-experts model (use --dp for replicas)");
    if (spec.gpus < 1) return InvalidArgument("--attention-dp needs --gpus (the GPUs attention and experts span)");
    if (spec.tp != 1 || (spec.dp != 0 && spec.dp != spec.gpus) || (spec.ep != 1 && spec.ep != spec.gpus))
      return InvalidArgument("--attention-dp sets --tp 1, --dp and --ep to --gpus (" + std::to_string(spec.gpus) +
                             "); leave those out");
    c.tp = 1;
    c.dp = c.ep = c.gpus = spec.gpus;
    c.attention_dp = true;
    return Status::Ok();
  }
  c.tp = spec.tp;
  c.ep = spec.ep;
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
  return Status::Ok();
}

Status CheckFits(const SimConfig& c, const char* pool) {
  const MemoryPlan& p = c.memory;
  const std::string where = std::string(pool).empty() ? "" : std::string(" (") + pool + " workers)";
  if (p.kv <= 0) {
    return FailedPrecondition(
        c.model.name + " does not fit on " + c.hardware.name + " at --tp " + std::to_string(c.tp) +
        (c.ep > 1 ? " --ep " + std::to_string(c.ep) : "") + " in " + PrecisionName(c.precision) + where +
        ": each GPU needs " + Gb(p.weights) + " of weights + " +
        (c.stack.memory_fraction_of == Stack::MemoryFractionOf::kStatic
             ? std::string("")  // activations live outside SGLang's static fraction
             : Gb(p.activations) + " of activations + ") +
        Gb(p.runtime_reserve) + " runtime reserve, but only " + Gb(p.budget) + " is usable (" +
        (c.stack.memory_fraction_of == Stack::MemoryFractionOf::kFree
             ? std::string("all")
             : FormatSignificant(c.stack.gpu_memory_utilization * 100) + "%") +
        " of " + FormatSignificant(c.hardware.hbm_gb) + " GiB, " + Gb(c.hardware.HbmBytes()) + "); short by " +
        Gb(-p.kv) + " per GPU. Use more GPUs (--tp), a narrower --precision, or larger-memory hardware");
  }
  const int64_t min_tokens = static_cast<int64_t>(c.block_size) * c.max_num_seqs / 16 + c.block_size;
  if (p.kv_capacity_tokens < min_tokens)
    return FailedPrecondition(c.model.name + " on " + c.hardware.name + where + " leaves only " + Gb(p.kv) +
                              " per GPU for the KV cache (" + std::to_string(p.kv_capacity_tokens) +
                              " tokens); use more GPUs or a narrower precision");
  return Status::Ok();
}

// One pool of a disaggregated deployment, checked and planned like an engine.
Result<PoolConfig> ResolvePool(const SimConfig& base, int workers, int tp, int dp, int ep, const char* pool) {
  const std::string flag = std::string("--") + pool;
  if (workers < 1) return InvalidArgument(flag + "-workers must be at least 1 with disaggregation");
  if (tp < 1 || dp < 1 || ep < 1)
    return InvalidArgument(flag + "-tp, " + flag + "-dp and " + flag + "-ep must be at least 1");
  SimConfig c = base;
  c.tp = tp;
  c.dp = dp;
  c.ep = ep;
  c.gpus = tp * dp;
  c.disagg.reset();
  if (Status st = CheckParallelism(c); !st.ok())
    return InvalidArgument(flag + " pool: " + st.message() + " (the pool's flags are " + flag + "-tp, " + flag +
                           "-dp and " + flag + "-ep)");
  c.memory = PlanMemory(c);
  FRONTIER_RETURN_IF_ERROR(CheckFits(c, pool));
  PoolConfig out;
  out.workers = workers;
  out.tp = tp;
  out.dp = dp;
  out.ep = ep;
  out.max_num_seqs = c.max_num_seqs;
  out.max_num_batched_tokens = c.max_num_batched_tokens;
  out.memory = c.memory;
  return out;
}

// The rest of ResolveSimConfig for a disaggregated deployment: `c` resolved
// up to its parallelism, which each pool gives.
Result<SimConfig> ResolveDisaggregated(const SimSpec& spec, SimConfig c) {
  if (spec.attention_dp || spec.tp != 1 || spec.ep != 1 || spec.dp != 0)
    return InvalidArgument("with --prefill-workers / --decode-workers, give each pool's parallelism with "
                           "--prefill-tp/-dp/-ep and --decode-tp/-dp/-ep (not --tp, --dp, --ep or --attention-dp)");
  FRONTIER_RETURN_IF_ERROR(CheckParallelism(c));  // the engine limits and MTP, before the pools
  DisaggConfig d;
  FRONTIER_ASSIGN_OR_RETURN(d.prefill, ResolvePool(c, spec.prefill_workers, spec.prefill_tp, spec.prefill_dp,
                                                   spec.prefill_ep, "prefill"));
  FRONTIER_ASSIGN_OR_RETURN(d.decode, ResolvePool(c, spec.decode_workers, spec.decode_tp, spec.decode_dp,
                                                  spec.decode_ep, "decode"));
  const int total = d.prefill.workers * d.prefill.gpus() + d.decode.workers * d.decode.gpus();
  if (spec.gpus > 0 && spec.gpus != total)
    return InvalidArgument("--gpus " + std::to_string(spec.gpus) + " must equal the pools' GPUs: " +
                           std::to_string(d.prefill.workers) + " x " + std::to_string(d.prefill.gpus()) + " + " +
                           std::to_string(d.decode.workers) + " x " + std::to_string(d.decode.gpus()) + " = " +
                           std::to_string(total));
  // The hand-off: every GPU of the sender ships its shard in parallel, over
  // the scale-up fabric when the deployment fits in one domain, else the NICs.
  const Hardware& hw = c.hardware;
  const int lanes = std::min(d.prefill.gpus(), d.decode.gpus());
  d.over_nic = total > hw.scale_up_gpus;
  if (d.over_nic && hw.nic_gbps <= 0)
    return InvalidArgument("the pools need " + std::to_string(total) + " GPUs, more than the " +
                           std::to_string(hw.scale_up_gpus) + "-GPU scale-up domain of " + hw.name +
                           ", and its catalog gives no scale_out_gbps_per_gpu for the KV transfer");
  // (A switch gives each GPU its full link bandwidth; in a full mesh each
  // sender-receiver pair has one direct link.)
  const double per_lane = d.over_nic ? hw.nic_gbps * c.stack.params.nic : hw.link_gbps * c.stack.params.link;
  d.kv_gbps = lanes * per_lane;
  d.kv_bytes_per_token = c.model.KvElementsPerTokenLayer() * BytesPerElement(c.kv_precision) * c.model.layers;
  c.gpus = total;
  c.tp = d.decode.tp;
  c.dp = d.decode.dp;
  c.ep = d.decode.ep;
  c.max_num_seqs = d.decode.max_num_seqs;
  c.max_num_batched_tokens = d.decode.max_num_batched_tokens;
  c.memory = d.decode.memory;
  c.disagg = d;
  return c;
}

}  // namespace

SimConfig SimConfig::PoolView(Pool pool) const {
  SimConfig c = *this;
  if (!disagg) return c;
  const PoolConfig& p = pool == Pool::kPrefill ? disagg->prefill : disagg->decode;
  c.tp = p.tp;
  c.dp = p.dp;
  c.ep = p.ep;
  c.gpus = p.gpus();
  c.max_num_seqs = p.max_num_seqs;
  c.max_num_batched_tokens = p.max_num_batched_tokens;
  c.memory = p.memory;
  c.disagg.reset();
  return c;
}

Result<SimConfig> ResolveSimConfig(const SimSpec& spec) {
  FRONTIER_RETURN_IF_ERROR(CheckSizes(spec));
  const std::string dir = spec.data_dir.empty() ? DefaultDataDir() : spec.data_dir;
  SimConfig c;
  FRONTIER_ASSIGN_OR_RETURN(c.model, LoadModel(spec.model, dir));
  FRONTIER_ASSIGN_OR_RETURN(c.hardware, LoadHardware(spec.hardware, dir));
  if (spec.stack && *spec.stack == kBestStack) {
    FRONTIER_ASSIGN_OR_RETURN(c.stack, BestStack(c.hardware.vendor, ModelClass(c.model), dir));
  } else if (spec.stack) {
    FRONTIER_ASSIGN_OR_RETURN(c.stack, LoadStack(*spec.stack, dir));
    if (c.stack.vendor != c.hardware.vendor)
      return InvalidArgument("--stack " + c.stack.id() + " runs on " + c.stack.vendor + " GPUs, not on " +
                             c.hardware.name + " (" + c.hardware.vendor + ")");
  } else {
    FRONTIER_ASSIGN_OR_RETURN(c.stack, DefaultStack(c.hardware.vendor, ModelClass(c.model), dir));
  }
  // The user's own measurements of this GPU (frontier calibrate --probe)
  // take precedence over the stack's fleet-wide values.
  FRONTIER_ASSIGN_OR_RETURN(std::optional<GpuOverride> gpu_override, LoadGpuOverride(dir, c.hardware.name));
  if (gpu_override) {
    ApplyGpuOverride(*gpu_override, &c.stack);
    c.gpu_override = gpu_override->file;
  }

  c.precision = c.model.precision;
  c.ffn_precision = c.model.ffn_precision;
  if (spec.precision) {
    FRONTIER_ASSIGN_OR_RETURN(c.precision, ParsePrecision(*spec.precision, "--precision"));
    c.ffn_precision = c.precision;
  }
  if (spec.kv_precision) {
    FRONTIER_ASSIGN_OR_RETURN(c.kv_precision, ParsePrecision(*spec.kv_precision, "--kv-precision"));
    if (c.kv_precision == Precision::kFp4)
      return InvalidArgument("--kv-precision: fp4 KV cache is not modelled; use bf16 or fp8");
  } else {
    // From the attention's weights, not the FFN's: a model with FP8 FFNs only
    // (Meta's Llama 3.1 405B FP8) runs BF16 activations, and vLLM's
    // --kv-cache-dtype auto follows them.
    c.kv_precision = c.precision == Precision::kBf16 ? Precision::kBf16 : Precision::kFp8;
  }
  if (spec.gpu_memory_utilization) {
    c.stack.gpu_memory_utilization = *spec.gpu_memory_utilization;
  }
  c.max_num_seqs = spec.max_num_seqs.value_or(c.stack.max_num_seqs);
  c.prefix_caching = spec.prefix_caching;
  c.max_model_len = spec.max_model_len.value_or(c.model.max_context > 0 ? c.model.max_context : 1 << 20);
  if (c.max_model_len < 1) return InvalidArgument("--max-model-len must be at least 1");
  if (c.model.max_context > 0 && c.max_model_len > c.model.max_context)
    return InvalidArgument("--max-model-len " + std::to_string(c.max_model_len) + " exceeds the " +
                           std::to_string(c.model.max_context) + "-token context of " + c.model.name);
  const PrefillMode mode = spec.prefill.value_or(c.stack.PrefillFor(c.model.mla()));
  c.chunked_prefill = mode == PrefillMode::kChunkedMixed || mode == PrefillMode::kChunkedSeparate;
  c.mixed_prefill = mode == PrefillMode::kChunkedMixed || mode == PrefillMode::kWholeMixed;
  // vLLM V0 without chunked prefill budgets a step for the longest request.
  const int default_budget =
      mode == PrefillMode::kWholeSeparate ? std::max(c.max_model_len, 2048) : c.stack.max_num_batched_tokens;
  c.max_num_batched_tokens = spec.max_num_batched_tokens.value_or(default_budget);

  // MTP: the mean tokens per verify step, given or from the acceptance model.
  c.spec_tokens = spec.spec_tokens;
  if (spec.acceptance && spec.acceptance_rate)
    return InvalidArgument("--acceptance and --acceptance-rate both set the MTP acceptance; give one");
  if (spec.acceptance) {
    c.acceptance = *spec.acceptance;
  } else {
    const double r = spec.acceptance_rate.value_or(c.model.mtp_acceptance_rate > 0 ? c.model.mtp_acceptance_rate : 0.7);
    if (!(r >= 0 && r < 1)) return InvalidArgument("--acceptance-rate must be in [0, 1), got " + FormatSignificant(r));
    c.acceptance_rate = r;
    double mean = 1, term = 1;
    for (int i = 0; i < spec.spec_tokens; ++i) mean += (term *= r);
    c.acceptance = mean;
  }

  if (!spec.disaggregated()) {
    FRONTIER_RETURN_IF_ERROR(ResolveParallelism(spec, c));
    FRONTIER_RETURN_IF_ERROR(CheckParallelism(c));
    c.memory = PlanMemory(c);
    FRONTIER_RETURN_IF_ERROR(CheckFits(c, ""));
    return c;
  }

  return ResolveDisaggregated(spec, std::move(c));
}

namespace {

// Plans `c`'s memory again (every pool's, when disaggregated) after a change
// to what the plan reads; `raise_seqs` also raises each pool's sequence cap
// to at least that.
Status Replan(SimConfig& c, int raise_seqs) {
  if (!c.disagg) {
    c.memory = PlanMemory(c);
    return CheckFits(c, "");
  }
  const SimConfig before = c;
  for (auto [pool, which] : {std::pair{&c.disagg->prefill, SimConfig::Pool::kPrefill},
                             std::pair{&c.disagg->decode, SimConfig::Pool::kDecode}}) {
    SimConfig view = before.PoolView(which);
    view.max_num_seqs = std::max(view.max_num_seqs, raise_seqs);
    view.memory = PlanMemory(view);
    FRONTIER_RETURN_IF_ERROR(CheckFits(view, which == SimConfig::Pool::kPrefill ? "prefill" : "decode"));
    pool->max_num_seqs = view.max_num_seqs;
    pool->memory = view.memory;
  }
  c.memory = c.disagg->decode.memory;
  return Status::Ok();
}

}  // namespace

Result<SimConfig> WithMaxNumSeqs(const SimConfig& config, int n) {
  SimConfig c = config;
  bool raise = c.max_num_seqs < n;
  if (c.disagg) raise = raise || c.disagg->prefill.max_num_seqs < n || c.disagg->decode.max_num_seqs < n;
  if (!raise) return c;
  c.max_num_seqs = std::max(c.max_num_seqs, n);
  FRONTIER_RETURN_IF_ERROR(Replan(c, n));
  return c;
}

Result<SimConfig> WithStackParams(const SimConfig& config, const StackParams& params) {
  SimConfig c = config;
  c.stack.params = params;
  bool replan = false;
  for (const auto& info : StackParamInfo())
    replan = replan || (info.schedule && GetParam(params, info.name) != GetParam(config.stack.params, info.name));
  if (replan) FRONTIER_RETURN_IF_ERROR(Replan(c, 0));
  return c;
}

bool InScope(ParamScope scope, const SimConfig& c) {
  const ModelSpec& m = c.model;
  const bool dense = !m.moe() && !m.mla();
  Precision eff = c.precision, ffn_eff = c.ffn_precision;
  c.hardware.PeakTflops(c.precision, &eff);
  c.hardware.PeakTflops(c.ffn_precision, &ffn_eff);
  // The dense GEMM curves run the attention projections and any dense MLP
  // (MoE experts run the grouped curve).
  const bool dense_mlp = !m.moe() || m.dense_layers > 0;
  auto dense_gemm = [&](Precision p) { return eff == p || (dense_mlp && ffn_eff == p); };
  const bool fp4_units = c.hardware.fp4_tflops > 0;
  const bool fp4 = c.precision == Precision::kFp4 || c.ffn_precision == Precision::kFp4;
  switch (scope) {
    case ParamScope::kDense: return dense;
    case ParamScope::kDenseTp: return dense && c.tp > 1;
    case ParamScope::kBf16Gemm: return dense_gemm(Precision::kBf16);
    case ParamScope::kFp8Gemm:
      return dense_gemm(Precision::kFp8) && !(m.block_scaled_fp8 && m.precision == Precision::kFp8);
    case ParamScope::kFp4Gemm:
      return (c.precision == Precision::kFp4 || (dense_mlp && c.ffn_precision == Precision::kFp4)) && fp4_units;
    case ParamScope::kBlockFp8:
      return m.block_scaled_fp8 && m.precision == Precision::kFp8 &&
             (c.precision == Precision::kFp8 || c.ffn_precision == Precision::kFp8);
    case ParamScope::kFp4Scaled: return fp4 && fp4_units;
    case ParamScope::kSoftwareFp4: return fp4 && !fp4_units;
    case ParamScope::kGqa: return !m.mla();
    case ParamScope::kMla: return m.mla();
    case ParamScope::kMoe: return m.moe();
    case ParamScope::kExpertParallel: return m.moe() && c.ep > c.tp;  // an all-to-all runs (see StepModel)
    case ParamScope::kScaleOut:
      return (c.ep > c.hardware.scale_up_gpus) || (c.disagg && c.disagg->over_nic);
    case ParamScope::kDisaggregated: return c.disagg.has_value();
    case ParamScope::kMemory: return true;
  }
  return false;
}

int SimConfig::UnquantizedMlpLayers() const {
  if (ffn_precision == precision) return 0;
  const int dense = model.moe() ? model.dense_layers : model.layers;
  return std::min(model.ffn_unquantized_layers, dense);
}

std::map<std::string, std::string> SimConfig::EffectiveSettings() const {
  std::map<std::string, std::string> s;
  s["model"] = model.name;
  s["hardware"] = hardware.name;
  s["stack"] = stack.id();
  if (!gpu_override.empty()) s["gpu_override"] = gpu_override;
  s["gpus"] = std::to_string(gpus);
  s["tp"] = std::to_string(tp);
  s["ep"] = std::to_string(ep);
  s["dp"] = std::to_string(dp);
  if (attention_dp) s["attention_dp"] = "true";
  if (disagg) {
    auto pool = [&](const char* name, const PoolConfig& p) {
      const std::string k = name;
      s[k + "_workers"] = std::to_string(p.workers);
      s[k + "_tp"] = std::to_string(p.tp);
      s[k + "_dp"] = std::to_string(p.dp);
      s[k + "_ep"] = std::to_string(p.ep);
    };
    pool("prefill", disagg->prefill);
    pool("decode", disagg->decode);
    s["kv_transfer"] = disagg->over_nic ? "nic" : "scale-up";
    s["kv_transfer_gbps"] = FormatSignificant(disagg->kv_gbps);
  }
  s["precision"] = PrecisionName(precision);
  s["ffn_precision"] = PrecisionName(ffn_precision);
  if (const int n = UnquantizedMlpLayers(); n > 0) s["ffn_unquantized_layers"] = std::to_string(n);
  Precision eff = precision;
  hardware.PeakTflops(precision, &eff);
  s["compute_precision"] = PrecisionName(eff);
  s["kv_precision"] = PrecisionName(kv_precision);
  s["max_num_seqs"] = std::to_string(max_num_seqs);
  s["max_num_batched_tokens"] = std::to_string(max_num_batched_tokens);
  s["max_model_len"] = std::to_string(max_model_len);
  s["prefill"] = PrefillModeName(stack.PrefillFor(model.mla()));
  s["block_size"] = std::to_string(block_size);
  s["prefix_caching"] = !prefix_caching                  ? "off"
                        : model.sliding_layers > 0 ? "off (sliding-window layers are not modelled)"
                                                   : "on";
  s["spec_tokens"] = std::to_string(spec_tokens);
  if (spec_tokens > 0) {
    s["acceptance"] = FormatSignificant(acceptance);
    if (acceptance_rate > 0) s["acceptance_rate"] = FormatSignificant(acceptance_rate);
  }
  s["gpu_memory_utilization"] = FormatSignificant(stack.gpu_memory_utilization);
  s["weights_gb_per_gpu"] = FormatSignificant(memory.weights / 1e9);
  s["kv_cache_gb_per_gpu"] = FormatSignificant(memory.kv / 1e9);
  s["kv_capacity_tokens"] = std::to_string(memory.kv_capacity_tokens);
  return s;
}

}  // namespace frontier::sim
