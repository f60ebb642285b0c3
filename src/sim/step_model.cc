#include "sim/step_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace frontier::sim {
namespace {

// Sum over query positions i = c+1 .. c+q of the keys each attends to,
// min(i, window) (window 0 = unbounded): the query-key pairs of a causal chunk.
double Pairs(double c, double q, double window) {
  const double a = c + 1, b = c + q;
  if (window <= 0 || b <= window) return (a + b) * q / 2.0;
  if (a >= window) return q * window;
  return (a + window) * (window - a + 1) / 2.0 + (b - window) * window;
}

}  // namespace

void BatchShape::AddDecode(int64_t cached, int64_t q, int64_t window) {
  const double c = static_cast<double>(cached), n = static_cast<double>(q);
  ++decode_seqs;
  decode_tokens += q;
  decode_keys_full += c + n;
  decode_keys_swa += window > 0 ? std::min(c + n, static_cast<double>(window)) : c + n;
  decode_pairs_full += Pairs(c, n, 0);
  decode_pairs_swa += Pairs(c, n, static_cast<double>(window));
  sampled += q;
}

void BatchShape::AddPrefill(int64_t cached, int64_t q, int64_t window, bool samples) {
  const double c = static_cast<double>(cached), n = static_cast<double>(q);
  ++prefill_seqs;
  prefill_tokens += q;
  prefill_keys_full += c + n;
  prefill_keys_swa += window > 0 ? std::min(c + n, static_cast<double>(window)) : c + n;
  prefill_pairs_full += Pairs(c, n, 0);
  prefill_pairs_swa += Pairs(c, n, static_cast<double>(window));
  prefill_cached += c;
  if (samples) ++sampled;
}

const char* ResourceName(Resource r) {
  switch (r) {
    case Resource::kCompute: return "compute";
    case Resource::kMemory: return "memory";
    case Resource::kCommunication: return "communication";
    case Resource::kOverhead: return "overhead";
  }
  return "?";
}

const char* OpName(Op op) {
  switch (op) {
    case kOpAttnProj: return "attention projections";
    case kOpDenseMlp: return "dense MLP";
    case kOpMoe: return "MoE experts";
    case kOpAttnPrefill: return "attention (prefill)";
    case kOpAttnDecode: return "attention (decode)";
    case kOpLmHead: return "LM head + embeddings";
    case kOpElementwise: return "norms & activations";
    case kOpAllReduce: return "TP all-reduce";
    case kOpAllToAll: return "EP all-to-all";
    case kOpDraft: return "MTP / draft";
    case kOpOverhead: return "fixed overhead";
    case kNumOps: break;
  }
  return "?";
}

StepModel::StepModel(const SimConfig& config) : config_(config) {
  const Hardware& hw = config_.hardware;
  const Stack& st = config_.stack;
  gemm_flops_per_s_ = hw.PeakTflops(config_.precision) * 1e12 * st.gemm_flops_fraction;
  expert_flops_per_s_ = hw.PeakTflops(config_.expert_precision) * 1e12 * st.gemm_flops_fraction;
  head_flops_per_s_ = hw.bf16_tflops * 1e12 * st.gemm_flops_fraction;
  attn_flops_per_s_ = hw.bf16_tflops * 1e12 * st.attention_flops_fraction;
  hbm_bytes_per_s_ = hw.hbm_tbps * 1e12 * st.hbm_fraction;
  const ModelSpec& m = config_.model;
  const double kv_shard = m.mla() ? 1.0 : std::min(config_.tp, m.kv_heads);
  kv_bytes_token_layer_ = m.KvElementsPerTokenLayer() * BytesPerElement(config_.kv_precision) / kv_shard;
  weight_bytes_ = BytesPerElement(config_.precision);
  expert_bytes_ = BytesPerElement(config_.expert_precision);
}

void StepModel::AddOp(Acc& out, Op op, double flops, double flops_per_s, double bytes, double scale) const {
  const double c = flops > 0 ? flops / flops_per_s : 0.0;
  const double mem = bytes / hbm_bytes_per_s_;
  const double t = std::max(c, mem) * scale;
  (c >= mem ? out.compute_s : out.memory_s) += t;
  out.time_s += t;
  if (out.detail == nullptr) return;
  OpCost& o = out.detail->ops[op];
  o.flops += flops * scale;
  o.bytes += bytes * scale;
  o.compute_s += c * scale;
  o.memory_s += mem * scale;
  o.time_s += t;
}

void StepModel::AddComm(Acc& out, Op op, double bytes, double seconds) const {
  out.comm_s += seconds;
  out.time_s += seconds;
  if (out.detail == nullptr) return;
  OpCost& o = out.detail->ops[op];
  o.bytes += bytes;
  o.comm_s += seconds;
  o.time_s += seconds;
}

void StepModel::AddLayers(const BatchShape& s, const Layers& L, double scale, bool draft, Acc& out) const {
  const ModelSpec& m = config_.model;
  const double tp = config_.tp, dp = config_.dp, ep = config_.ep, gpus = config_.gpus;
  const double h = m.hidden;
  const double tokens = static_cast<double>(s.tokens());
  // The busiest DP rank sets the step's time: with sequences spread evenly it
  // holds ceil(seqs / dp) of them, so `share` of the batch (1/dp for large batches).
  const double seqs = static_cast<double>(s.decode_seqs + s.prefill_seqs);
  const double share = (dp > 1 && seqs > 0) ? std::ceil(seqs / dp) / seqs : 1.0 / dp;
  const double tr = tokens * share;  // tokens on the busiest DP rank
  const double attn_layers = L.attn_full + L.attn_swa;

  // Attention projections (MLA keeps its down-projections whole on every TP rank).
  double replicated = 0;
  if (m.mla()) replicated = h * m.q_lora_rank + h * (m.kv_lora_rank + m.qk_rope_dim);
  const double proj_params = (m.AttentionParams() - replicated) / tp + replicated;
  double flops = 2.0 * tr * proj_params * attn_layers;
  if (m.mla()) {
    const double heads_gpu = m.heads / tp;
    flops += 2.0 * (s.decode_tokens * share) * heads_gpu *
             (1.0 * m.qk_nope_dim * m.kv_lora_rank + 1.0 * m.kv_lora_rank * m.v_head_dim) * attn_layers;
    flops += 2.0 * (s.prefill_cached * share) * m.kv_lora_rank * heads_gpu *
             (m.qk_nope_dim + m.v_head_dim) * attn_layers;
  }
  double bytes = proj_params * weight_bytes_ * attn_layers + tr * attn_layers * 2.0 * h * act_bytes_;
  AddOp(out, !draft ? kOpAttnProj : kOpDraft, flops, gemm_flops_per_s_, bytes, scale);

  if (L.dense_mlp > 0) {
    const double p = m.DenseMlpParams() / tp;
    flops = 2.0 * tr * p * L.dense_mlp;
    bytes = (p * weight_bytes_ + tr * (2.0 * h + 3.0 * m.intermediate / tp) * act_bytes_) * L.dense_mlp;
    AddOp(out, !draft ? kOpDenseMlp : kOpDraft, flops, gemm_flops_per_s_, bytes, scale);
  }

  if (L.moe > 0 && m.moe()) {
    const double e = m.experts, k = m.experts_per_token, ep_params = m.ExpertParams();
    // Expected distinct experts touched by n tokens each routing to k of e.
    auto touched = [&](double n) { return e * (1.0 - std::pow(1.0 - k / e, n)); };
    const double touched_gpu = ep > 1 ? touched(tokens) / ep : touched(tr) / tp;
    flops = 2.0 * tokens * k * ep_params / gpus + 2.0 * tr * m.shared_experts * ep_params / tp +
            2.0 * tr * h * e;
    bytes = touched_gpu * ep_params * expert_bytes_ + m.shared_experts * ep_params / tp * expert_bytes_ +
            h * e * 2.0 + tokens * k * (2.0 * h + 3.0 * m.moe_intermediate) * act_bytes_ / gpus;
    AddOp(out, !draft ? kOpMoe : kOpDraft, flops * L.moe, expert_flops_per_s_, bytes * L.moe, scale);
  }

  // Attention itself. GQA: QK and PV over head_dim. MLA: prefill in the
  // expanded form (qk_nope + rope, v); decode in the absorbed form over the
  // latent (kv_lora + rope, kv_lora), which reads one latent per key for all heads.
  const double heads_gpu = m.heads / tp;
  const double pre_dims = m.mla() ? (m.qk_nope_dim + m.qk_rope_dim + m.v_head_dim) : 2.0 * m.head_dim;
  const double dec_dims = m.mla() ? (2.0 * m.kv_lora_rank + m.qk_rope_dim) : 2.0 * m.head_dim;
  if (s.prefill_tokens > 0) {
    const double pairs = (s.prefill_pairs_full * L.attn_full + s.prefill_pairs_swa * L.attn_swa) * share;
    const double keys = (s.prefill_keys_full * L.attn_full + s.prefill_keys_swa * L.attn_swa) * share;
    flops = 2.0 * pairs * heads_gpu * pre_dims;
    bytes = keys * kv_bytes_token_layer_ + (s.prefill_tokens * share) * attn_layers * heads_gpu * pre_dims * act_bytes_;
    AddOp(out, !draft ? kOpAttnPrefill : kOpDraft, flops, attn_flops_per_s_, bytes, scale);
  }
  if (s.decode_tokens > 0) {
    const double pairs = (s.decode_pairs_full * L.attn_full + s.decode_pairs_swa * L.attn_swa) * share;
    const double keys = (s.decode_keys_full * L.attn_full + s.decode_keys_swa * L.attn_swa) * share;
    flops = 2.0 * pairs * heads_gpu * dec_dims;
    bytes = keys * kv_bytes_token_layer_ + (s.decode_tokens * share) * attn_layers * heads_gpu * dec_dims * act_bytes_;
    AddOp(out, !draft ? kOpAttnDecode : kOpDraft, flops, attn_flops_per_s_, bytes, scale);
  }

  if (L.head) {
    const double rows = s.sampled * share, v = m.vocab;
    flops = 2.0 * rows * h * v / tp;
    bytes = v * h * 2.0 / tp + rows * v / tp * 4.0 + tr * h * 2.0;
    AddOp(out, !draft ? kOpLmHead : kOpDraft, flops, head_flops_per_s_, bytes, scale);
  }

  bytes = tr * attn_layers * 4.0 * h * act_bytes_;
  AddOp(out, !draft ? kOpElementwise : kOpDraft, 0, 1, bytes, scale);

  // Collectives on the scale-up fabric.
  const Stack& st = config_.stack;
  if (tp > 1) {
    const double count = attn_layers + L.dense_mlp + (ep > 1 ? 0 : L.moe);
    const double size = tr * h * act_bytes_;
    const double bw = config_.hardware.CollectiveGBps(config_.tp) * 1e9 * st.link_fraction;
    const double t = count * (2.0 * (tp - 1) / tp * size / bw + st.allreduce_latency_us * 1e-6);
    AddComm(out, !draft ? kOpAllReduce : kOpDraft, count * 2.0 * (tp - 1) / tp * size * scale, t * scale);
  }
  if (ep > 1 && L.moe > 0 && m.moe()) {
    const double dispatch_bytes = config_.expert_precision == Precision::kBf16 ? 2.0 : 1.0;
    const double sent = (tokens / gpus) * m.experts_per_token * h * (ep - 1) / ep * (dispatch_bytes + 2.0);
    const double bw = config_.hardware.CollectiveGBps(config_.ep) * 1e9 * st.link_fraction;
    const double t = L.moe * (sent / bw + 2.0 * st.alltoall_latency_us * 1e-6);
    AddComm(out, !draft ? kOpAllToAll : kOpDraft, L.moe * sent * scale, t * scale);
  }
}

void StepModel::Accumulate(const BatchShape& s, Acc& out) const {
  const ModelSpec& m = config_.model;
  Layers main;
  main.attn_full = m.full_attention_layers();
  main.attn_swa = m.sliding_layers;
  main.dense_mlp = m.moe() ? m.dense_layers : m.layers;
  main.moe = m.moe_layers();
  AddLayers(s, main, 1.0, /*draft=*/false, out);

  const Stack& st = config_.stack;
  const bool decode_only = s.prefill_tokens == 0;
  const double per_layer_us = (decode_only && st.graphs) ? st.graph_layer_overhead_us : st.layer_overhead_us;
  // MoE layers launch about twice the kernels of a dense one (router, top-k,
  // permute, grouped GEMMs, un-permute), so they count twice.
  double overhead_s = (st.step_overhead_us + per_layer_us * (m.layers + m.moe_layers())) * 1e-6;

  if (config_.spec_tokens > 0 && s.decode_seqs > 0) {
    // Each draft pass runs one decoder layer (the MTP module) and the LM head
    // on one token per generating sequence, against that sequence's context.
    BatchShape d;
    d.decode_seqs = s.decode_seqs;
    d.decode_tokens = s.decode_seqs;
    d.decode_keys_full = d.decode_pairs_full = s.decode_keys_full;
    d.decode_keys_swa = d.decode_pairs_swa = s.decode_keys_swa;
    d.sampled = s.decode_seqs;
    Layers draft;
    draft.attn_full = 1;
    draft.moe = m.moe() ? 1 : 0;
    draft.dense_mlp = m.moe() ? 0 : 1;
    const double k = config_.spec_tokens;
    AddLayers(d, draft, k, /*draft=*/true, out);
    overhead_s += k * per_layer_us * (m.moe() ? 2 : 1) * 1e-6;
  }
  out.overhead_s += overhead_s;
  out.time_s += overhead_s;
  if (out.detail != nullptr) {
    OpCost& o = out.detail->ops[kOpOverhead];
    o.overhead_s = o.time_s = overhead_s;
  }
}

Nanos StepModel::StepNanos(const BatchShape& s) const {
  if (s.tokens() <= 0) return 0;
  Acc acc;
  Accumulate(s, acc);
  return static_cast<Nanos>(acc.time_s * 1e9 + 0.5);
}

StepCost StepModel::Cost(const BatchShape& s) const {
  StepCost out;
  if (s.tokens() <= 0) return out;
  Acc acc;
  acc.detail = &out;
  Accumulate(s, acc);
  out.time_s = acc.time_s;
  out.compute_s = acc.compute_s;
  out.memory_s = acc.memory_s;
  out.comm_s = acc.comm_s;
  out.overhead_s = acc.overhead_s;
  for (auto& op : out.ops) {
    if (op.comm_s > 0) {
      op.bound = Resource::kCommunication;
    } else if (op.overhead_s > 0) {
      op.bound = Resource::kOverhead;
    } else {
      op.bound = op.compute_s >= op.memory_s ? Resource::kCompute : Resource::kMemory;
    }
  }
  const double parts[] = {out.compute_s, out.memory_s, out.comm_s, out.overhead_s};
  const Resource names[] = {Resource::kCompute, Resource::kMemory, Resource::kCommunication, Resource::kOverhead};
  int best = 0;
  for (int i = 1; i < 4; ++i)
    if (parts[i] > parts[best]) best = i;
  out.bound = names[best];
  return out;
}

std::string ExplainStep(const StepCost& cost, const BatchShape& s) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line,
                "step: %lld decode seqs (%lld tokens), %lld prefill seqs (%lld tokens); %.3f ms, %s-bound\n",
                static_cast<long long>(s.decode_seqs), static_cast<long long>(s.decode_tokens),
                static_cast<long long>(s.prefill_seqs), static_cast<long long>(s.prefill_tokens),
                cost.time_s * 1e3, ResourceName(cost.bound));
  out += line;
  std::snprintf(line, sizeof line, "  %-24s %10s %6s %12s %10s  %s\n", "operator", "ms", "%", "TFLOP/GPU",
                "GB/GPU", "bound");
  out += line;
  for (int i = 0; i < kNumOps; ++i) {
    const OpCost& o = cost.ops[i];
    if (o.time_s <= 0) continue;
    std::snprintf(line, sizeof line, "  %-24s %10.4f %5.1f%% %12.4f %10.4f  %s\n", OpName(static_cast<Op>(i)),
                  o.time_s * 1e3, 100.0 * o.time_s / cost.time_s, o.flops / 1e12, o.bytes / 1e9,
                  ResourceName(o.bound));
    out += line;
  }
  std::snprintf(line, sizeof line,
                "  by resource: compute %.4f ms, memory %.4f ms, communication %.4f ms, overhead %.4f ms\n",
                cost.compute_s * 1e3, cost.memory_s * 1e3, cost.comm_s * 1e3, cost.overhead_s * 1e3);
  out += line;
  return out;
}

}  // namespace frontier::sim
