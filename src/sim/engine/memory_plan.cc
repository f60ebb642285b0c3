// The memory plan of a resolved config (config.h: PlanMemory,
// PeakActivationBytes, AbsorbedMlaWeightBytes): weights, activations, runtime
// reserve and the KV cache they leave on each GPU.
#include "sim/engine/config.h"

#include <algorithm>
#include <cmath>

namespace frontier::sim {

// What one decoder layer keeps live at the peak of a step, in BF16 (2 bytes)
// unless said otherwise; per token unless said otherwise. Throughout a block
// two hidden-size vectors are live: the residual stream and the block's
// (normed) input, which its caller holds until the block returns. Inside a
// block the largest temporaries come first and are freed before the block's
// output (hidden values) is written by its last GEMM, so each block peaks at
// the larger of its two phases:
//   attention (at this TP): q, k, v and the attention output, heads/tp x
//     head_dim for q and the output and max(1, kv_heads/tp) x head_dim for k
//     and v (KV heads replicate when tp exceeds them); then the attention
//     output and the projection's output.
//   MLA prefill runs in expanded form, and every intermediate stays live
//     until the output projection has run (vLLM's MLA forward holds them in
//     one scope): the q latent (q_a output and its normed copy, q_lora each),
//     the KV latent (kv_a output, kv_lora + qk_rope, and the normed kv_lora),
//     q at qk_nope + qk_rope per local head, the kv_b expansion (qk_nope +
//     v_head_dim per local head), k (q's width), v padded to q's width (one
//     head size for the FlashAttention kernel), the attention output
//     (v_head_dim per local head) and the projection's output (hidden).
//   With an out-of-place all-reduce (ActivationTraits) each block's last GEMM
//     output gets a second hidden-size copy when tp > 1; with an MLA output
//     buffer the attention block holds one more hidden-size tensor.
//   dense MLP: the gate+up output, 2 x intermediate/tp, and the activation's
//     output, intermediate/tp; then the activation's output and the down
//     projection's output.
//   fused MoE: vLLM's fused_moe works on at most kMoeChunkTokens tokens at a
//     time (VLLM_FUSED_MOE_CHUNK_SIZE; the other engines' MoE kernels are
//     assumed to chunk the same way), and its caches hold, per chunk token,
//     top_k x (2N + N + hidden) values, N = moe_intermediate / tp (or whole
//     under EP), while its output (hidden values per token) is filled; the
//     shared experts run as a dense MLP of shared x moe_intermediate on every
//     token of the step. (The router's logits, `experts` FP32 values per
//     token, are left out.)
// The peak takes the largest block. Each sequence that samples adds its FP32
// logits over the local vocabulary shard.
double PeakActivationBytes(const ModelSpec& m, int tp_size, int ep, double tokens,
                           double sampling_seqs, ActivationTraits traits) {
  constexpr double kBf16 = 2.0, kFp32 = 4.0;
  const double tp = tp_size, h = m.hidden;
  const double local_heads = m.heads / tp;
  // The all-reduce's own output, when it does not reduce in place.
  const double reduced = traits.allreduce_out_of_place && tp_size > 1 ? h : 0.0;

  const double residual_per_token = 2.0 * h * kBf16;

  double attention_per_token = 0;
  if (m.mla()) {
    const double qk = static_cast<double>(m.qk_nope_dim) + m.qk_rope_dim;
    const double latents = 2.0 * m.q_lora_rank + (m.kv_lora_rank + m.qk_rope_dim) + m.kv_lora_rank;
    const double expanded = local_heads * (3.0 * qk + (m.qk_nope_dim + m.v_head_dim) + m.v_head_dim);
    const double buffer = traits.mla_output_buffer ? h : 0.0;
    attention_per_token = (latents + expanded + h + reduced + buffer) * kBf16;
  } else {
    const double local_kv_heads = std::max(1.0, m.kv_heads / tp);
    const double out = local_heads * m.head_dim;
    attention_per_token =
        std::max((local_heads + 2.0 * local_kv_heads) * m.head_dim + out, out + h + reduced) * kBf16;
  }

  const int dense_layers = m.moe() ? m.dense_layers : m.layers;
  const double local_intermediate = m.intermediate / tp;
  const double dense_mlp_per_token =
      dense_layers > 0 ? std::max(3.0 * local_intermediate, local_intermediate + h + reduced) * kBf16 : 0.0;
  double moe_per_chunk_token = 0, moe_per_token = 0;
  if (m.moe_layers() > 0) {
    const double n = ep > 1 ? static_cast<double>(m.moe_intermediate) : m.moe_intermediate / tp;
    moe_per_chunk_token = static_cast<double>(m.experts_per_token) * (3.0 * n + h) * kBf16;
    moe_per_token = (h + reduced + 3.0 * m.shared_experts * m.moe_intermediate / tp) * kBf16;
  }

  const double attention = tokens * attention_per_token;
  const double dense_mlp = tokens * dense_mlp_per_token;
  const double moe = std::min(tokens, kMoeChunkTokens) * moe_per_chunk_token + tokens * moe_per_token;
  const double logits = sampling_seqs * m.vocab / tp * kFp32;
  return tokens * residual_per_token + std::max({attention, dense_mlp, moe}) + logits;
}

double AbsorbedMlaWeightBytes(const ModelSpec& m, int tp, Precision precision) {
  if (!m.mla()) return 0;
  constexpr double kBf16 = 2.0;
  const double heads = static_cast<double>(m.heads) / tp;
  const double q_in = m.q_lora_rank > 0 ? m.q_lora_rank : m.hidden;  // what W_UQ (or W_Q) projects from
  const bool fp8 = precision == Precision::kFp8;
  const double absorbed = fp8 ? 1.0 : kBf16;
  double per_layer = (q_in * heads * m.kv_lora_rank + heads * m.kv_lora_rank * m.hidden) * absorbed;
  per_layer += q_in * heads * m.qk_rope_dim * kBf16;
  if (fp8) per_layer += static_cast<double>(m.kv_lora_rank) * heads * (m.qk_nope_dim + m.v_head_dim) * kBf16;
  return per_layer * m.layers;
}

MemoryPlan PlanMemory(const SimConfig& c) {
  const ModelSpec& m = c.model;
  const double tp = c.tp, h = m.hidden;
  const double wb = BytesPerElement(c.precision), fb = BytesPerElement(c.ffn_precision);
  MemoryPlan p;
  // The memory the engine may plan in: a fraction of the device, or (the
  // fraction being of what is free after loading) the whole device.
  p.budget = c.stack.memory_fraction_of == Stack::MemoryFractionOf::kFree
                 ? c.hardware.HbmBytes()
                 : c.hardware.HbmBytes() * c.stack.gpu_memory_utilization;
  double replicated = 0;
  if (m.mla()) replicated = h * m.q_lora_rank + h * (m.kv_lora_rank + m.qk_rope_dim);
  const double attn = (m.AttentionParams() - replicated) / tp + replicated;
  double w = m.layers * attn * wb;
  const int dense = m.moe() ? m.dense_layers : m.layers;
  const int unquantized = c.UnquantizedMlpLayers();  // MLPs left in `precision`
  w += (dense - unquantized) * m.DenseMlpParams() / tp * fb;
  if (unquantized > 0) w += unquantized * m.DenseMlpParams() / tp * wb;
  if (m.moe()) {
    // Under EP each GPU holds ceil(E / ep) whole experts (when ep does not
    // divide E the spare slots hold redundant copies, as EPLB places them).
    const double routed = c.ep > 1 ? std::ceil(static_cast<double>(m.experts) / c.ep) * m.ExpertParams()
                                   : m.experts * m.ExpertParams() / tp;
    w += m.moe_layers() * (routed * fb + m.shared_experts * m.ExpertParams() / tp * fb + m.RouterParams() * 2.0);
  }
  w += m.EmbeddingParams() * 2.0 / tp * (m.tied_embeddings ? 1 : 2);  // BF16, vocab-parallel
  if (c.spec_tokens > 0 && m.mtp_layers > 0) w += m.MtpParams() / tp * fb;
  if (c.stack.mla_absorbed_weights) w += AbsorbedMlaWeightBytes(m, c.tp, c.precision);
  p.weights = w;

  // Peak activations of the largest step on one DP rank (max_num_batched_tokens
  // tokens, every sequence sampling), as the engines' profiling step sees them.
  p.activations =
      PeakActivationBytes(m, c.tp, c.ep, c.max_num_batched_tokens, c.max_num_seqs,
                          {c.stack.allreduce_out_of_place, c.stack.mla_output_buffer});
  p.runtime_reserve = c.stack.params.runtime_reserve_gb * 1e9;
  switch (c.stack.memory_fraction_of) {
    case Stack::MemoryFractionOf::kDevice:
      p.kv = p.budget - p.weights - p.activations - p.runtime_reserve;
      break;
    case Stack::MemoryFractionOf::kStatic:
      // SGLang: the static pool (weights + KV) is the fraction of the device;
      // activations and graphs live in the rest. What the runtime already
      // holds when the pool is sized (context, communication buffers) is
      // taken from the pool, as SGLang measures free memory then.
      p.kv = p.budget - p.weights - p.runtime_reserve;
      break;
    case Stack::MemoryFractionOf::kFree: {
      // TensorRT-LLM: the fraction of the memory free after loading the
      // weights and running the profiling pass.
      const double free = c.hardware.HbmBytes() - p.weights - p.activations - p.runtime_reserve;
      p.kv = free > 0 ? free * c.stack.gpu_memory_utilization : free;
      break;
    }
  }

  const double kv_shard = m.mla() ? 1.0 : std::min(c.tp, m.kv_heads);
  double per_layer = m.KvElementsPerTokenLayer() * BytesPerElement(c.kv_precision) / kv_shard;
  // An engine that pads each MLA cache entry (one token of one layer) to an
  // aligned size stores the padding too.
  if (m.mla() && c.stack.mla_kv_align_bytes > 0) {
    const double align = c.stack.mla_kv_align_bytes;
    per_layer = std::ceil(per_layer / align) * align;
  }
  p.kv_bytes_per_token = per_layer * m.layers;
  // Capacity in tokens of the full-attention layers; sliding-window layers keep
  // at most a window per sequence (charged per sequence by the engine).
  const double full_bytes = per_layer * m.full_attention_layers();
  if (p.kv > 0 && full_bytes > 0)
    p.kv_capacity_tokens = static_cast<int64_t>(p.kv / full_bytes) * c.dp;
  return p;
}

}  // namespace frontier::sim
