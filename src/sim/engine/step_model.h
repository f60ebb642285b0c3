// step_model.h: how long one engine iteration takes, from the FLOPs and bytes
// of every operator on one GPU and the stack's efficiency curves.
//
// A step runs a batch that mixes prefill chunks and decode tokens (the
// BatchShape). Each operator group is timed as a roofline on the busiest GPU:
//   time = max(FLOPs / (peak x efficiency), bytes / (HBM bandwidth x hbm))
// with peaks from the hardware catalog at the weights' precision and the
// efficiency from the stack version's curve for the operator's class and
// shape (efficiency.h): dense GEMMs by rows per GPU, grouped MoE GEMMs by
// tokens per expert (times the block-scaled FP8 / FP4 factors), attention by
// backend. Collectives cost their latency plus bytes over the bandwidth the
// topology gives the group (hardware.h) at the stack's link / NIC efficiency.
// Every kernel has a GPU-side floor (ramp, tail, gaps): overhead.kernel_us
// times the kernels each layer launches; kernels of MLA attention blocks and
// of MoE blocks add overhead.mla_kernel_us and overhead.moe_kernel_us each
// (their engines' early kernels: unfused MLA decode, MoE routing and
// permutation), so that what MoE and MLA models cost is not charged to dense ones. Steps not replayed from a graph
// (prefill-carrying steps, or stacks without graphs) must also be launched by
// the CPU at overhead.eager_kernel_us per kernel; that shows only where it
// exceeds the GPU's work. Operator times add (no overlap between kernels is
// assumed). The scheduler's CPU time per step
// (overhead.step_us + overhead.per_seq_us per sequence of the busiest rank)
// adds to the GPU time, or overlaps it (max) for stacks with an overlap
// scheduler.
//
// Operator groups (per GPU, all layers):
//   attention projections  2 x tokens x params / tp; weights read once a step
//   dense MLP              the same for the dense layers
//   MoE experts            FLOPs of the k routed experts per token plus shared
//                          experts; bytes of the distinct experts the batch
//                          touches: E (1 - (1 - k/E)^N) for N tokens routed
//   attention (prefill)    query-key pairs of causal (or windowed) attention,
//                          KV read once per chunk (MLA: its own curve)
//   attention (decode)     KV read per sequence grows with its context; MLA
//                          reads one latent per token shared by all heads
//   LM head + embeddings   only rows that sample a token run the LM head
//   norms & activations    elementwise traffic, ~4 hidden vectors per token-layer (fused kernels)
//   TP all-reduce          2 per layer when tp > 1 (1 with expert parallelism)
//   EP all-to-all          dispatch + combine per MoE layer when ep > 1; the
//                          share sent to peers outside the scale-up domain
//                          goes over the NICs
//   MTP draft              k sequential passes of the draft layer + LM head
//   kernel floors          kernels per layer x the per-kernel floor
//   scheduler (CPU)        per step + per sequence
// With dp > 1 the busiest rank holds ceil(sequences / dp) of the batch.
//
// Kernels per layer (read from the engines' layer implementations; fixed, not
// fitted): GQA attention block 5 (norm, QKV GEMM, RoPE + cache write,
// attention, output GEMM), MLA block 11 (norm, query down / norm / up, KV down
// / norm, RoPE + cache, the two absorbed projections, attention, output
// GEMM), dense MLP 4 (norm, gate-up GEMM, activation, down GEMM), MoE 8
// (norm, router GEMM, top-k, permute, two grouped GEMMs, activation, combine)
// plus 3 for shared experts; per step 4 (embedding, final norm, LM head,
// sampling).
//
// Thread safety: StepModel is immutable after construction; Cost() is const
// and may be called from several threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/clock.h"
#include "sim/engine/config.h"
#include "sim/engine/efficiency.h"

namespace frontier::sim {

// What one step runs, summed over the whole deployment (all DP ranks).
struct BatchShape {
  int64_t decode_seqs = 0;        // sequences generating this step
  int64_t decode_tokens = 0;      // tokens they process (1 + draft tokens each)
  double decode_keys_full = 0;    // keys each full-attention layer reads, summed over sequences
  double decode_keys_swa = 0;     // keys each sliding-window layer reads
  double decode_pairs_full = 0;   // query-key pairs on a full-attention layer
  double decode_pairs_swa = 0;
  int64_t prefill_seqs = 0;       // sequences with a prompt chunk this step
  int64_t prefill_tokens = 0;
  double prefill_keys_full = 0, prefill_keys_swa = 0;
  double prefill_pairs_full = 0, prefill_pairs_swa = 0;
  double prefill_cached = 0;      // tokens already cached before the chunks (MLA up-projects them)
  int64_t sampled = 0;            // rows through the LM head

  // A sequence with `cached` tokens in its KV cache processing `q` more.
  // `window` is the sliding window (0 = none).
  void AddDecode(int64_t cached, int64_t q, int64_t window);
  // `samples`: whether the chunk ends the prompt (and so samples a token).
  void AddPrefill(int64_t cached, int64_t q, int64_t window, bool samples);
  int64_t tokens() const { return decode_tokens + prefill_tokens; }
  int64_t seqs() const { return decode_seqs + prefill_seqs; }
};

// The fields a decode-only step without draft tokens fills: its counts
// (sequences, tokens and sampled rows, all equal) and its attention sums
// (keys and query-key pairs, all equal at one token a sequence). Steps that
// differ only in these are built, summed and averaged field by field.
inline constexpr int64_t BatchShape::*kDecodeCounts[] = {&BatchShape::decode_seqs, &BatchShape::decode_tokens,
                                                        &BatchShape::sampled};
inline constexpr double BatchShape::*kDecodeKeys[] = {&BatchShape::decode_keys_full, &BatchShape::decode_keys_swa,
                                                     &BatchShape::decode_pairs_full, &BatchShape::decode_pairs_swa};

enum class Resource { kCompute, kMemory, kCommunication, kOverhead };
const char* ResourceName(Resource r);

enum Op {
  kOpAttnProj = 0,
  kOpDenseMlp,
  kOpMoe,
  kOpAttnPrefill,
  kOpAttnDecode,
  kOpLmHead,
  kOpElementwise,
  kOpAllReduce,
  kOpAllToAll,
  kOpDraft,
  kOpKernels,
  kOpScheduler,
  kNumOps
};
const char* OpName(Op op);

struct OpCost {
  double flops = 0;      // per GPU
  double bytes = 0;      // HBM bytes per GPU (or bytes sent, for collectives)
  double compute_s = 0;
  double memory_s = 0;
  double comm_s = 0;
  double overhead_s = 0;
  double time_s = 0;     // what this operator adds to the step
  Resource bound = Resource::kOverhead;
  EfficiencyNote note;   // the efficiency its bound ran at, and why
};

struct StepCost {
  std::array<OpCost, kNumOps> ops{};
  double time_s = 0;
  double gpu_s = 0, cpu_s = 0;   // GPU work and scheduler CPU time (time = sum, or max when overlapped)
  // Time attributed to each resource (each operator's time goes to its bound).
  double compute_s = 0, memory_s = 0, comm_s = 0, overhead_s = 0;
  Resource bound = Resource::kOverhead;
  Nanos ns() const { return static_cast<Nanos>(time_s * 1e9 + 0.5); }
};

// The cost of a decode-only step of one batch (fixed sequence count, one
// token each, no MTP) as a function of the keys its attention reads: every
// other operator is the same from step to step while the batch keeps its
// members, so the engine evaluates this instead of the whole model.
// At(keys_full, keys_swa) equals StepNanos() of such a step (to rounding).
struct DecodeStepCost {
  int64_t seqs = -1;                // the batch it describes (-1: none)
  double fixed_s = 0;               // GPU time of every operator but decode attention
  double attn_flops_full = 0, attn_flops_swa = 0, attn_flop_rate = 1;   // per key
  double attn_bytes_full = 0, attn_bytes_swa = 0, attn_bytes_const = 0, attn_byte_rate = 1;
  double launch_s = 0;              // CPU launches to hide (0 when graph-captured)
  double cpu_s = 0;                 // scheduler CPU time
  bool overlap = false;
  Nanos At(double keys_full, double keys_swa) const;
};

class StepModel {
 public:
  explicit StepModel(const SimConfig& config);

  // The cost of one step. An empty shape costs nothing.
  StepCost Cost(const BatchShape& shape) const;
  // Cost(shape).ns() without the per-operator breakdown (the engine's hot path).
  Nanos StepNanos(const BatchShape& shape) const;
  // The decode step cost of `seqs` one-token sequences as a function of keys.
  // Empty (seqs -1) when the model uses MTP (its steps are not of this form).
  DecodeStepCost DecodeStep(int64_t seqs) const;

  const SimConfig& config() const { return config_; }

 private:
  struct Layers {
    double attn_full = 0, attn_swa = 0, dense_mlp = 0, moe = 0;
    double unquantized_mlp = 0;  // of the dense_mlp layers, those whose MLP stays in `precision`
    bool head = true;
  };
  // A GEMM class: achieved peak and the curve and factor that scale it.
  struct Gemm {
    double peak = 0;       // FLOP/s at the effective precision
    Curve curve;
    double factor = 1;     // block-scaled / FP4 factors
    std::string name;      // for --explain
  };
  // Running totals of a step; the per-operator breakdown only when `detail` is set.
  struct Acc {
    double time_s = 0, compute_s = 0, memory_s = 0, comm_s = 0, overhead_s = 0;
    StepCost* detail = nullptr;
  };
  Gemm MakeGemm(Precision p, bool grouped) const;
  void Accumulate(const BatchShape& s, Acc& out) const;
  // Adds `scale` times the cost of `layers`; draft passes are booked under kOpDraft.
  void AddLayers(const BatchShape& s, const Layers& layers, double scale, bool draft, Acc& out) const;
  // AddLayers' collectives (tensor-parallel all-reduce, expert-parallel
  // all-to-all) for a step of `tokens` tokens, `tr` of them on the busiest DP rank.
  void AddCollectives(const Layers& layers, double scale, bool draft, double tokens, double tr, Acc& out) const;
  // A roofline operator: `flops` at `flops_per_s` (achieved), `bytes` at `bytes_per_s`.
  void AddOp(Acc& out, Op op, double flops, double flops_per_s, double bytes, double bytes_per_s, double scale,
             double eff, double x, const char* curve, double curve_max, double curve_half) const;
  void AddComm(Acc& out, Op op, double bytes, double seconds) const;
  void AddOverhead(Acc& out, Op op, double seconds, const std::string& why) const;

  SimConfig config_;
  Gemm dense_, mlp_, expert_, head_;  // attention projections, dense MLPs, experts, LM head
  double bf16_flops_ = 0;          // peak BF16 FLOP/s (attention)
  double hbm_bytes_per_s_ = 0;     // peak HBM bytes/s
  double kv_bytes_token_layer_ = 0;  // per GPU of a DP rank
  double weight_bytes_ = 0, ffn_bytes_ = 0, act_bytes_ = 2;  // per weight: non-FFN, FFN
  // Kernels a step (or a draft pass) launches: all of them, and those of MLA
  // attention blocks and of MoE blocks (which also pay their extra floors).
  struct Kernels {
    double all = 0, mla = 0, moe = 0;
  };
  double FloorSeconds(const Kernels& k) const;
  Kernels main_kernels_, draft_kernels_;
  double proj_params_ = 0;                 // attention projection parameters per layer per GPU
  double mla_absorb_ = 0, mla_expand_ = 0;  // MLA FLOPs per token per layer (/2): absorbed / expanded
};

// A multi-line, human-readable account of a step's cost: per-operator time,
// FLOPs, bytes, bound and the efficiency it ran at with why, and the step's
// bound (for --explain).
std::string ExplainStep(const StepCost& cost, const BatchShape& shape);

}  // namespace frontier::sim
