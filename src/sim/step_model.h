// step_model.h: how long one engine iteration takes, from the FLOPs and bytes
// of every operator on one GPU.
//
// A step runs a batch that mixes prefill chunks and decode tokens (the
// BatchShape). Each operator group is timed as a roofline on one GPU:
//   time = max(FLOPs / (peak x gemm or attention fraction),
//              bytes / (HBM bandwidth x HBM fraction))
// with peaks from the hardware catalog at the weights' precision and
// fractions from the stack. Collectives cost bytes over the bandwidth the
// topology gives the group (hardware.h) plus a fixed latency; fixed per-step
// and per-layer overheads come from the stack. Times add (no overlap between
// operators is assumed). The step's bound is the resource with the most time.
//
// Operator groups (per GPU, all layers):
//   attention projections  2 x tokens x params / tp; weights read once a step
//   dense MLP              the same for the dense layers
//   MoE experts            FLOPs of the k routed experts per token plus shared
//                          experts; bytes of the distinct experts the batch
//                          touches: E (1 - (1 - k/E)^N) for N tokens routed
//   attention (prefill)    query-key pairs of causal (or windowed) attention,
//                          KV read once per chunk
//   attention (decode)     KV read per sequence grows with its context; MLA
//                          reads one latent per token shared by all heads
//   LM head + embeddings   only rows that sample a token run the LM head
//   norms & activations    elementwise traffic, ~4 hidden vectors per token-layer (fused kernels)
//   TP all-reduce          2 per layer when tp > 1 (1 with expert parallelism)
//   EP all-to-all          dispatch + combine per MoE layer when ep > 1
//   MTP draft              k sequential passes of the draft layer + LM head
//   overhead               per step + per layer (smaller under CUDA graphs; an
//                          MoE layer counts twice)
// With dp > 1 the busiest rank holds ceil(sequences / dp) of the batch.
//
// Thread safety: StepModel is immutable after construction; Cost() is const
// and may be called from several threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/clock.h"
#include "sim/config.h"

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
};

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
  kOpOverhead,
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
};

struct StepCost {
  std::array<OpCost, kNumOps> ops{};
  double time_s = 0;
  // Time attributed to each resource (each operator's time goes to its bound).
  double compute_s = 0, memory_s = 0, comm_s = 0, overhead_s = 0;
  Resource bound = Resource::kOverhead;
  Nanos ns() const { return static_cast<Nanos>(time_s * 1e9 + 0.5); }
};

class StepModel {
 public:
  explicit StepModel(const SimConfig& config);

  // The cost of one step. An empty shape costs nothing.
  StepCost Cost(const BatchShape& shape) const;
  // Cost(shape).ns() without the per-operator breakdown (the engine's hot path).
  Nanos StepNanos(const BatchShape& shape) const;

  const SimConfig& config() const { return config_; }

 private:
  struct Layers {
    double attn_full = 0, attn_swa = 0, dense_mlp = 0, moe = 0;
    bool head = true;
  };
  // Running totals of a step; the per-operator breakdown only when `detail` is set.
  struct Acc {
    double time_s = 0, compute_s = 0, memory_s = 0, comm_s = 0, overhead_s = 0;
    StepCost* detail = nullptr;
  };
  void Accumulate(const BatchShape& s, Acc& out) const;
  // Adds `scale` times the cost of `layers`; draft passes are booked under kOpDraft.
  void AddLayers(const BatchShape& s, const Layers& layers, double scale, bool draft, Acc& out) const;
  void AddOp(Acc& out, Op op, double flops, double flops_per_s, double bytes, double scale) const;
  void AddComm(Acc& out, Op op, double bytes, double seconds) const;

  SimConfig config_;
  double gemm_flops_per_s_ = 0;    // achieved, non-expert layers
  double expert_flops_per_s_ = 0;  // achieved, expert layers
  double attn_flops_per_s_ = 0;
  double head_flops_per_s_ = 0;    // LM head, BF16
  double hbm_bytes_per_s_ = 0;
  double kv_bytes_token_layer_ = 0;  // per GPU of a DP rank
  double weight_bytes_ = 0, expert_bytes_ = 0, act_bytes_ = 2;
};

// A multi-line, human-readable account of a step's cost: per-operator time,
// FLOPs, bytes and bound, and the step's bound (for --explain).
std::string ExplainStep(const StepCost& cost, const BatchShape& shape);

}  // namespace frontier::sim
