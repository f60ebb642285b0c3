// config.h: a simulated deployment, resolved from names into catalog entries
// and checked once (memory fit, parallelism), for `frontier simulate`,
// `frontier serve` and sweeps alike.
//
//   SimSpec spec{.model = "llama-3.1-70b", .hardware = "h200", .tp = 8};
//   spec.precision = "fp8";
//   Result<SimConfig> config = ResolveSimConfig(spec);
//
// Parallelism: gpus = tp x dp. Attention and dense layers are split tp ways
// and replicated dp ways (each DP rank serves its own share of the batch; the
// simulator assumes the ranks are evenly loaded). MoE experts are split tp
// ways inside each DP rank when ep = 1; with ep > 1 (ep must equal tp x dp,
// as in vLLM's expert parallelism) every GPU holds experts/ep whole experts
// and tokens travel to them by all-to-all. `attention_dp` is DeepSeek's
// layout: attention and dense layers data-parallel on every GPU (tp 1,
// dp = gpus), experts spread over all of them (ep = gpus).
//
// Tensor parallelism stays inside one scale-up domain (an 8-GPU node, or a
// GB200 NVL72 rack); expert parallelism and data parallelism may span
// domains, the all-to-all then crossing the RDMA NICs (hardware.h).
//
// Disaggregated serving (`disagg`): prefill workers and decode workers, each
// an engine with its own tp / dp / ep; a request's KV cache moves from its
// prefill worker to a decode worker over the scale-up fabric when the whole
// deployment fits in one domain, else over the NICs, at the catalog's
// bandwidth (engine.h describes the timing).
//
// Thread safety: values; ResolveSimConfig reads the catalog files.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/status.h"
#include "sim/engine/hardware.h"
#include "sim/engine/model.h"
#include "sim/engine/precision.h"
#include "sim/engine/stack.h"

namespace frontier::sim {

// What the user asked for, by name. Unset optionals take the documented default.
struct SimSpec {
  std::string model = "llama-3.1-8b";   // catalog name or path to a config.json
  std::string hardware = "h100-sxm";    // catalog name or alias
  int gpus = 0;                         // 0: tp x dp
  int tp = 1;
  int ep = 1;                           // 1: no expert parallelism
  int dp = 0;                           // 0: gpus / tp (1 when gpus is 0)
  std::optional<std::string> precision;     // every weight; default the model's native formats
  std::optional<std::string> kv_precision;  // default: fp8 if the non-FFN weights are fp8/fp4, else bf16
  std::optional<std::string> stack;         // default: the hardware vendor's default stack
  std::optional<int> max_num_seqs;          // per DP rank; default from the stack
  bool max_num_seqs_auto = false;           // raised to the offered concurrency where a driver
                                            // knows it (concurrency sweeps: WithMaxNumSeqs)
  std::optional<int> max_num_batched_tokens;  // per DP rank; default from the stack (a stack that runs
                                              // whole prompts apart: max(max_model_len, 2048), as vLLM V0)
  std::optional<int> max_model_len;     // longest request (prompt + output); default the model's context
  std::optional<PrefillMode> prefill;   // prompt scheduling as launched; default the stack's for the model
  bool prefix_caching = true;           // automatic prefix caching (--prefix-caching on|off)
  std::optional<double> gpu_memory_utilization;  // default from the stack
  int spec_tokens = 0;                  // MTP / speculative draft tokens per step (0 = off)
  std::optional<double> acceptance;     // mean tokens emitted per verify step, in [1, k+1]
  std::optional<double> acceptance_rate;  // chance that draft token i is accepted given i-1 were
                                          // (the mean is then 1 + r + r^2 + ... + r^k); default
                                          // the model's catalogued rate, else 0.7
  bool attention_dp = false;            // attention DP on every GPU + EP over all (needs gpus)
  // Disaggregated prefill / decode (both worker counts > 0 to turn it on).
  int prefill_workers = 0, prefill_tp = 1, prefill_dp = 1, prefill_ep = 1;
  int decode_workers = 0, decode_tp = 1, decode_dp = 1, decode_ep = 1;
  std::string data_dir;                 // empty: DefaultDataDir()

  bool disaggregated() const { return prefill_workers > 0 || decode_workers > 0; }
};

// Per-GPU memory, bytes, and what is left for the KV cache.
struct MemoryPlan {
  double budget = 0;            // HBM x gpu_memory_utilization
  double weights = 0;
  double activations = 0;       // peak activations of a max_num_batched_tokens step (estimate)
  double runtime_reserve = 0;   // from the stack
  double kv = 0;                // budget - the above
  double kv_bytes_per_token = 0;        // all layers, on one GPU of a DP rank
  int64_t kv_capacity_tokens = 0;       // whole deployment (all DP ranks), full-attention layers
};

// One pool of a disaggregated deployment: `workers` engines of tp x dp GPUs.
struct PoolConfig {
  int workers = 0;
  int tp = 1, dp = 1, ep = 1;
  int max_num_seqs = 256, max_num_batched_tokens = 8192;  // per DP rank
  MemoryPlan memory;
  int gpus() const { return tp * dp; }
};

struct DisaggConfig {
  PoolConfig prefill, decode;
  bool over_nic = true;      // KV moves over the NICs (else the scale-up fabric)
  double kv_gbps = 0;        // achieved GB/s of one hand-off (all of the sending worker's GPUs)
  double kv_bytes_per_token = 0;  // whole model, all layers (what one prompt token ships)
};

struct SimConfig {
  ModelSpec model;
  Hardware hardware;
  Stack stack;
  // The file of measured parameters applied to the stack for this GPU
  // (gpu_override.h); "" when there is none.
  std::string gpu_override;
  // gpus: the whole deployment (per-GPU figures divide by it). tp / dp / ep:
  // the engine's (with disaggregation, the decode pool's; PoolView() gives
  // each pool's worker as a config of its own, with gpus = tp x dp).
  int gpus = 1, tp = 1, ep = 1, dp = 1;
  bool attention_dp = false;
  // Weight formats (model.h): `ffn_precision` for every feed-forward weight
  // (MLPs and experts; `model.ffn_unquantized_layers` MLPs stay in
  // `precision`), `precision` for the other linear layers.
  Precision precision = Precision::kBf16;
  Precision ffn_precision = Precision::kBf16;
  Precision kv_precision = Precision::kBf16;
  int max_num_seqs = 256;             // per DP rank
  int max_num_batched_tokens = 8192;  // per DP rank
  int max_model_len = 0;              // longest request, tokens (prompt + output)
  // Prompt scheduling, from the stack for this model (stack.h, PrefillMode).
  bool chunked_prefill = true;        // prompts split over steps by the budget
  bool mixed_prefill = true;          // prompt chunks share steps with decodes
  int block_size = 16;                // KV-cache page, tokens (also the prefix cache's block)
  // Automatic prefix caching (sim/engine/prefix_cache.h), on as in vLLM and SGLang.
  // Models with sliding-window layers run without it (not modelled).
  bool prefix_caching = true;
  int spec_tokens = 0;
  double acceptance = 1.0;           // mean tokens emitted per decode step
  double acceptance_rate = 0;        // the per-draft-token rate it came from (0: given as a mean)
  MemoryPlan memory;
  std::optional<DisaggConfig> disagg;

  // This config with tp / dp / ep / limits / memory of one pool (and no disagg).
  enum class Pool { kPrefill, kDecode };
  SimConfig PoolView(Pool pool) const;

  // Dense layers whose MLP stays in `precision` (the model's
  // ffn_unquantized_layers, at most its dense layers); 0 when the feed-forward
  // format is `precision` anyway. The memory plan, the step model and the
  // effective settings all count these layers through this one rule.
  int UnquantizedMlpLayers() const;

  // Settings as resolved, for a result's effective_settings.
  std::map<std::string, std::string> EffectiveSettings() const;
};

// Resolves names and defaults, checks parallelism and memory fit.
// Errors: NotFound for an unknown model / hardware / stack (listing the known
// ones); InvalidArgument naming the flag for impossible parallelism (--tp not
// dividing the KV heads, --ep above the expert count, ...); FailedPrecondition
// when the weights do not fit, saying by how many GB.
Result<SimConfig> ResolveSimConfig(const SimSpec& spec);

// Memory plan of an already-resolved config (exposed for tests and --explain).
MemoryPlan PlanMemory(const SimConfig& config);

// Tokens vLLM's fused MoE kernel processes at a time (VLLM_FUSED_MOE_CHUNK_SIZE,
// default "32768" in vllm/envs.py); its intermediate caches are sized for one
// such chunk. The other engines' MoE kernels are assumed to chunk the same way.
inline constexpr double kMoeChunkTokens = 32'768;

// How an engine's buffers add to the activation peak (from its stack file).
struct ActivationTraits {
  bool allreduce_out_of_place = false;  // each tensor-parallel all-reduce writes a new hidden-size tensor
  bool mla_output_buffer = false;       // the MLA layer allocates its hidden-size output up front
};

// Peak activation bytes on one GPU of a step of `tokens` tokens of which
// `sampling_seqs` sample, for `model` at tensor parallelism `tp` and expert
// parallelism `ep` (experts whole on each GPU when ep > 1): the BF16 tensors
// live at the step's peak plus the FP32 logits (the terms: config.cc).
// REQUIRES: tp, ep >= 1; tokens, sampling_seqs >= 0.
double PeakActivationBytes(const ModelSpec& model, int tp, int ep, double tokens,
                           double sampling_seqs, ActivationTraits traits = {});

// Bytes per GPU of the absorbed MLA decode matrices an engine keeps beside the
// checkpoint's own (Stack::mla_absorbed_weights; 0 for other models): per
// layer W_UQ.W_UK (q_lora x local heads x kv_lora) and W_UV.W_O (local heads
// x kv_lora x hidden), requantized to FP8 when the attention weights are FP8,
// else BF16; the rope part of W_UQ copied out in BF16; and, for FP8 weights,
// the dequantized BF16 W_UK / W_UV (kv_lora x local heads x (nope + v)).
double AbsorbedMlaWeightBytes(const ModelSpec& model, int tp, Precision precision);

// Whether `config` lies in a parameter's scope (efficiency.h): runs the
// operators the parameter sets apart (for calibration and --explain).
bool InScope(ParamScope scope, const SimConfig& config);

// `config` with max_num_seqs (per DP rank, and per pool when disaggregated)
// raised to at least `n`, its memory re-planned. Fails like ResolveSimConfig
// when the larger activation estimate leaves no KV cache.
Result<SimConfig> WithMaxNumSeqs(const SimConfig& config, int n);

// `config` with the stack parameters `params`; its memory plan (every
// pool's) is made again when a schedule parameter (efficiency.h: the runtime
// reserve) differs. Fails like ResolveSimConfig when that leaves no KV cache.
Result<SimConfig> WithStackParams(const SimConfig& config, const StackParams& params);

}  // namespace frontier::sim
