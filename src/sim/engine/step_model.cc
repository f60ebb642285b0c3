#include "sim/engine/step_model.h"

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

// Adds a sequence with `c` cached tokens processing `n` more to one phase's
// (decode's or prefill's) sums: its keys and query-key pairs on full and on
// sliding-window layers.
void AddAttention(double c, double n, int64_t window, double* keys_full, double* keys_swa, double* pairs_full,
                  double* pairs_swa) {
  *keys_full += c + n;
  *keys_swa += window > 0 ? std::min(c + n, static_cast<double>(window)) : c + n;
  *pairs_full += Pairs(c, n, 0);
  *pairs_swa += Pairs(c, n, static_cast<double>(window));
}

// Books `seconds` of one kind (`total` of the step, `part` of `op`) on the
// step's accumulator and, when the step is explained, on `op`'s cost, which
// it returns for the caller's own fields (null when not explained).
template <class Acc>
OpCost* AddSeconds(Acc& out, double Acc::*total, Op op, double OpCost::*part, double seconds) {
  out.*total += seconds;
  out.time_s += seconds;
  if (out.detail == nullptr) return nullptr;
  OpCost& o = out.detail->ops[op];
  o.*part += seconds;
  o.time_s += seconds;
  return &o;
}

}  // namespace

void BatchShape::AddDecode(int64_t cached, int64_t q, int64_t window) {
  const double c = static_cast<double>(cached), n = static_cast<double>(q);
  ++decode_seqs;
  decode_tokens += q;
  AddAttention(c, n, window, &decode_keys_full, &decode_keys_swa, &decode_pairs_full, &decode_pairs_swa);
  sampled += q;
}

void BatchShape::AddPrefill(int64_t cached, int64_t q, int64_t window, bool samples) {
  const double c = static_cast<double>(cached), n = static_cast<double>(q);
  ++prefill_seqs;
  prefill_tokens += q;
  AddAttention(c, n, window, &prefill_keys_full, &prefill_keys_swa, &prefill_pairs_full, &prefill_pairs_swa);
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
    case kOpKernels: return "kernel floors";
    case kOpScheduler: return "scheduler (CPU)";
    case kNumOps: break;
  }
  return "?";
}

namespace {

// Kernels one layer launches (see the header), and per step.
constexpr double kGqaKernels = 5, kMlaKernels = 11, kDenseMlpKernels = 4, kMoeKernels = 8, kSharedKernels = 3,
                 kStepKernels = 4;

}  // namespace

StepModel::Gemm StepModel::MakeGemm(Precision p, bool grouped) const {
  const Hardware& hw = config_.hardware;
  const StackParams& sp = config_.stack.params;
  Precision eff = p;
  Gemm g;
  g.peak = hw.PeakTflops(p, &eff) * 1e12;
  const Curve& dense = eff == Precision::kFp4 ? sp.gemm_fp4 : eff == Precision::kFp8 ? sp.gemm_fp8 : sp.gemm_bf16;
  g.curve = grouped ? sp.grouped_gemm : dense;
  g.name = grouped ? std::string("grouped_gemm (") + PrecisionName(eff) + ")" : std::string("gemm.") + PrecisionName(eff);
  if (p == Precision::kFp4) {
    g.factor = eff == Precision::kFp4 ? sp.fp4_scaled : sp.software_fp4;
    g.name += eff == Precision::kFp4 ? " x scaling.fp4" : " x scaling.software_fp4";
  } else if (p == Precision::kFp8 && config_.model.block_scaled_fp8 && config_.model.precision == Precision::kFp8) {
    g.factor = sp.block_fp8;
    g.name += " x scaling.block_fp8";
  }
  return g;
}

StepModel::StepModel(const SimConfig& config) : config_(config) {
  const Hardware& hw = config_.hardware;
  const ModelSpec& m = config_.model;
  dense_ = MakeGemm(config_.precision, false);
  mlp_ = MakeGemm(config_.ffn_precision, false);
  expert_ = MakeGemm(config_.ffn_precision, true);
  head_ = MakeGemm(Precision::kBf16, false);
  bf16_flops_ = hw.bf16_tflops * 1e12;
  hbm_bytes_per_s_ = hw.hbm_tbps * 1e12;
  const double kv_shard = m.mla() ? 1.0 : std::min(config_.tp, m.kv_heads);
  kv_bytes_token_layer_ = m.KvElementsPerTokenLayer() * BytesPerElement(config_.kv_precision) / kv_shard;
  weight_bytes_ = BytesPerElement(config_.precision);
  ffn_bytes_ = BytesPerElement(config_.ffn_precision);
  // Kernels per step: every layer's attention block and MLP (dense or MoE),
  // and the per-step ones; MLA and MoE blocks also pay their extra floors.
  const double attn_kernels = m.mla() ? kMlaKernels : kGqaKernels;
  const double moe_block = kMoeKernels + (m.shared_experts > 0 ? kSharedKernels : 0);
  const double dense_layers = m.layers - m.moe_layers(), moe_layers = m.moe_layers();
  main_kernels_.all = m.layers * attn_kernels + dense_layers * kDenseMlpKernels + moe_layers * moe_block + kStepKernels;
  main_kernels_.mla = m.mla() ? m.layers * kMlaKernels : 0;
  main_kernels_.moe = moe_layers * moe_block;
  // A draft pass: one decoder layer (MoE when the model is) and the per-step kernels.
  draft_kernels_.all = attn_kernels + (m.moe() ? moe_block : kDenseMlpKernels) + kStepKernels;
  draft_kernels_.mla = m.mla() ? kMlaKernels : 0;
  draft_kernels_.moe = m.moe() ? moe_block : 0;
  const double h = m.hidden, tp = config_.tp;
  double replicated = 0;
  if (m.mla()) replicated = h * m.q_lora_rank + h * (m.kv_lora_rank + m.qk_rope_dim);
  proj_params_ = (m.AttentionParams() - replicated) / tp + replicated;
  const double heads_gpu = m.heads / tp;
  mla_absorb_ = heads_gpu * (static_cast<double>(m.qk_nope_dim) * m.kv_lora_rank +
                             static_cast<double>(m.kv_lora_rank) * m.v_head_dim);
  mla_expand_ = static_cast<double>(m.kv_lora_rank) * heads_gpu * (m.qk_nope_dim + m.v_head_dim);
}

void StepModel::AddOp(Acc& out, Op op, double flops, double flops_per_s, double bytes, double bytes_per_s,
                      double scale, double eff, double x, const char* curve, double curve_max,
                      double curve_half) const {
  const double c = flops > 0 ? flops / flops_per_s : 0.0;
  const double mem = bytes / bytes_per_s;
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
  if (o.note.why.empty() || op != kOpDraft) {
    char line[200];
    if (c >= mem) {
      if (curve_half > 0) {
        std::snprintf(line, sizeof line, "%s: %.2f x %.0f / (%.0f + %.0f) = %.3f of peak", curve, curve_max, x, x,
                      curve_half, eff);
      } else {
        std::snprintf(line, sizeof line, "%s: %.3f of peak", curve, eff);
      }
      o.note.efficiency = eff;
      o.note.x = x;
    } else {
      const double hbm = bytes_per_s / hbm_bytes_per_s_;
      std::snprintf(line, sizeof line, "memory-bound: %.3f of HBM bandwidth (%s)", hbm,
                    op == kOpAttnDecode ? (config_.model.mla() ? "attention.mla_decode_bw" : "attention.decode_bw")
                                        : "hbm");
      o.note.efficiency = hbm;
      o.note.x = 0;
    }
    o.note.why = line;
  }
}

void StepModel::AddComm(Acc& out, Op op, double bytes, double seconds) const {
  if (OpCost* o = AddSeconds(out, &Acc::comm_s, op, &OpCost::comm_s, seconds)) o->bytes += bytes;
}

void StepModel::AddOverhead(Acc& out, Op op, double seconds, const std::string& why) const {
  if (OpCost* o = AddSeconds(out, &Acc::overhead_s, op, &OpCost::overhead_s, seconds)) o->note.why = why;
}

void StepModel::AddLayers(const BatchShape& s, const Layers& L, double scale, bool draft, Acc& out) const {
  const ModelSpec& m = config_.model;
  const StackParams& sp = config_.stack.params;
  const double tp = config_.tp, dp = config_.dp, ep = config_.ep, gpus = config_.tp * config_.dp;
  // EP within one TP group (--tp 8 --ep 8, no attention DP) finds every token
  // already on every rank: each rank runs its own experts and the TP
  // all-reduce sums their outputs, as SGLang and vLLM do without an
  // all-to-all backend. Only EP that spans DP ranks (attention DP) moves
  // tokens with a dispatch/combine all-to-all.
  const bool ep_across_dp = ep > tp;
  const double h = m.hidden;
  const double tokens = static_cast<double>(s.tokens());
  // The busiest DP rank sets the step's time: with sequences spread evenly it
  // holds ceil(seqs / dp) of them, so `share` of the batch (1/dp for large batches).
  const double seqs = static_cast<double>(s.seqs());
  const double share = (dp > 1 && seqs > 0) ? std::ceil(seqs / dp) / seqs : 1.0 / dp;
  const double tr = tokens * share;  // tokens (GEMM rows) on the busiest DP rank
  const double attn_layers = L.attn_full + L.attn_swa;
  const double weight_bw = hbm_bytes_per_s_ * sp.hbm;
  auto gemm = [&](Op op, const Gemm& g, double rows, double flops, double bytes) {
    const double eff = g.curve.At(rows) * g.factor;
    AddOp(out, !draft ? op : kOpDraft, flops, g.peak * eff, bytes, weight_bw, scale, eff, rows, g.name.c_str(),
          g.curve.max * g.factor, g.curve.half);
  };

  // Attention projections (MLA keeps its down-projections whole on every TP rank).
  const double proj_params = proj_params_;
  double flops = 2.0 * tr * proj_params * attn_layers;
  if (m.mla()) {
    flops += 2.0 * (s.decode_tokens * share) * mla_absorb_ * attn_layers;
    flops += 2.0 * (s.prefill_cached * share) * mla_expand_ * attn_layers;
  }
  double bytes = proj_params * weight_bytes_ * attn_layers + tr * attn_layers * 2.0 * h * act_bytes_;
  gemm(kOpAttnProj, dense_, tr, flops, bytes);

  // Dense MLPs in the feed-forward format; any left unquantized in `precision`
  // (booked first, so that --explain's note is the quantized layers').
  auto mlp = [&](const Gemm& g, double wbytes, double layers) {
    const double p = m.DenseMlpParams() / tp;
    const double f = 2.0 * tr * p * layers;
    const double b = (p * wbytes + tr * (2.0 * h + 3.0 * m.intermediate / tp) * act_bytes_) * layers;
    gemm(kOpDenseMlp, g, tr, f, b);
  };
  if (L.unquantized_mlp > 0) mlp(dense_, weight_bytes_, L.unquantized_mlp);
  if (L.dense_mlp > L.unquantized_mlp) mlp(mlp_, ffn_bytes_, L.dense_mlp - L.unquantized_mlp);

  if (L.moe > 0 && m.moe()) {
    const double e = m.experts, k = m.experts_per_token, ep_params = m.ExpertParams();
    // Expected distinct experts touched by n tokens each routing to k of e.
    auto touched = [&](double n) { return e * (1.0 - std::pow(1.0 - k / e, n)); };
    // EP across DP ranks: every GPU serves the tokens of all ranks for its
    // experts. Otherwise the experts of a DP rank see that rank's tokens, and
    // each GPU holds 1/tp of them (whole experts when EP splits the TP group).
    const double routed = ep_across_dp ? tokens : tr;
    const double touched_all = touched(routed);
    const double touched_gpu = touched_all / std::max(tp, ep);
    const double per_expert = touched_all > 0 ? routed * k / touched_all : 0;
    flops = 2.0 * tokens * k * ep_params / gpus + 2.0 * tr * m.shared_experts * ep_params / tp + 2.0 * tr * h * e;
    bytes = touched_gpu * ep_params * ffn_bytes_ + m.shared_experts * ep_params / tp * ffn_bytes_ +
            h * e * 2.0 + tokens * k * (2.0 * h + 3.0 * m.moe_intermediate) * act_bytes_ / gpus;
    gemm(kOpMoe, expert_, per_expert, flops * L.moe, bytes * L.moe);
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
    const double per_seq = s.prefill_seqs > 0 ? static_cast<double>(s.prefill_tokens) / s.prefill_seqs : 0;
    const Curve& curve = m.mla() ? sp.mla_prefill : sp.attn_prefill;
    const double eff = curve.At(per_seq);
    flops = 2.0 * pairs * heads_gpu * pre_dims;
    bytes = keys * kv_bytes_token_layer_ +
            (s.prefill_tokens * share) * attn_layers * heads_gpu * pre_dims * act_bytes_;
    AddOp(out, !draft ? kOpAttnPrefill : kOpDraft, flops, bf16_flops_ * eff, bytes, weight_bw, scale, eff, per_seq,
          m.mla() ? "attention.mla_prefill" : "attention.prefill", curve.max, curve.half);
  }
  if (s.decode_tokens > 0) {
    const double pairs = (s.decode_pairs_full * L.attn_full + s.decode_pairs_swa * L.attn_swa) * share;
    const double keys = (s.decode_keys_full * L.attn_full + s.decode_keys_swa * L.attn_swa) * share;
    const double bw = m.mla() ? sp.mla_decode_bw : sp.attn_decode_bw;
    const double eff = m.mla() ? sp.mla_decode_bw : sp.attn_prefill.max;
    flops = 2.0 * pairs * heads_gpu * dec_dims;
    bytes = keys * kv_bytes_token_layer_ + (s.decode_tokens * share) * attn_layers * heads_gpu * dec_dims * act_bytes_;
    AddOp(out, !draft ? kOpAttnDecode : kOpDraft, flops, bf16_flops_ * eff, bytes, hbm_bytes_per_s_ * bw, scale, eff,
          0, m.mla() ? "attention.mla_decode_bw" : "attention.prefill.max", eff, 0);
  }

  if (L.head) {
    const double rows = s.sampled * share, v = m.vocab;
    flops = 2.0 * rows * h * v / tp;
    bytes = v * h * 2.0 / tp + rows * v / tp * 4.0 + tr * h * 2.0;
    gemm(kOpLmHead, head_, rows, flops, bytes);
  }

  bytes = tr * attn_layers * 4.0 * h * act_bytes_;
  AddOp(out, !draft ? kOpElementwise : kOpDraft, 0, 1, bytes, weight_bw, scale, 0, 0, "hbm", 0, 0);

  AddCollectives(L, scale, draft, tokens, tr, out);
}

void StepModel::AddCollectives(const Layers& L, double scale, bool draft, double tokens, double tr,
                               Acc& out) const {
  const ModelSpec& m = config_.model;
  const StackParams& sp = config_.stack.params;
  const double tp = config_.tp, ep = config_.ep, gpus = config_.tp * config_.dp;
  const bool ep_across_dp = ep > tp;  // as in AddLayers
  const double h = m.hidden;
  const double attn_layers = L.attn_full + L.attn_swa;
  const Hardware& hw = config_.hardware;
  if (tp > 1) {
    const double count = attn_layers + L.dense_mlp + (ep_across_dp ? 0 : L.moe);
    const double size = tr * h * act_bytes_;
    const double bw = hw.CollectiveGBps(config_.tp) * 1e9 * sp.link;
    const double t = count * (2.0 * (tp - 1) / tp * size / bw + sp.allreduce_us * 1e-6);
    AddComm(out, !draft ? kOpAllReduce : kOpDraft, count * 2.0 * (tp - 1) / tp * size * scale, t * scale);
    if (out.detail != nullptr && !draft) {
      char line[200];
      std::snprintf(line, sizeof line,
                    "%.0f x (ring 2(n-1)/n x %.0f KB at %.0f GB/s = %.3f of %.0f GB/s (collectives.link) + %.1f us "
                    "(collectives.allreduce_us))",
                    count, size / 1e3, bw / 1e9, sp.link, hw.CollectiveGBps(config_.tp), sp.allreduce_us);
      out.detail->ops[kOpAllReduce].note = {sp.link, size, line};
    }
  }
  if (ep_across_dp && L.moe > 0 && m.moe()) {
    // Dispatch (FP8 for FP8/FP4 experts, else BF16) and combine (BF16) of each
    // token's k expert copies; the share bound for peers outside the
    // scale-up domain crosses the NICs while the rest uses the fabric.
    const double dispatch_bytes = config_.ffn_precision == Precision::kBf16 ? 2.0 : 1.0;
    const double sent = (tokens / gpus) * m.experts_per_token * h * (ep - 1) / ep * (dispatch_bytes + 2.0);
    const int group = config_.ep;
    const double in = hw.PeersInDomain(group), outside = hw.PeersOutsideDomain(group);
    const double peers = std::max(1.0, in + outside);
    double t = 2.0 * sp.alltoall_us * 1e-6;
    double transfer = 0;
    if (in > 0) transfer = std::max(transfer, sent * in / peers / (hw.CollectiveGBps(static_cast<int>(in) + 1) * 1e9 * sp.link));
    if (outside > 0) {
      transfer = std::max(transfer, sent * outside / peers / (hw.nic_gbps * 1e9 * sp.nic));
      t += 2.0 * sp.nic_latency_us * 1e-6;
    }
    t = L.moe * (t + transfer);
    AddComm(out, !draft ? kOpAllToAll : kOpDraft, L.moe * sent * scale, t * scale);
    if (out.detail != nullptr && !draft) {
      char line[240];
      std::snprintf(line, sizeof line,
                    "%.0f layers x (dispatch + combine: 2 x %.1f us (collectives.alltoall_us)%s + %.0f KB: %.0f of %.0f "
                    "peers in the domain at %.3f of the link (collectives.link)%s)",
                    L.moe, sp.alltoall_us, outside > 0 ? " + 2 x collectives.nic_latency_us" : "", sent / 1e3, in,
                    peers, sp.link, outside > 0 ? ", the rest over the NICs at collectives.nic" : "");
      out.detail->ops[kOpAllToAll].note = {sp.link, sent, line};
    }
  }
}

void StepModel::Accumulate(const BatchShape& s, Acc& out) const {
  const ModelSpec& m = config_.model;
  const Stack& st = config_.stack;
  const StackParams& sp = st.params;
  Layers main;
  main.attn_full = m.full_attention_layers();
  main.attn_swa = m.sliding_layers;
  main.dense_mlp = m.moe() ? m.dense_layers : m.layers;
  main.unquantized_mlp = config_.UnquantizedMlpLayers();
  main.moe = m.moe_layers();
  AddLayers(s, main, 1.0, /*draft=*/false, out);

  // Kernel floors: every kernel pays a GPU-side floor (ramp, tail, gaps);
  // without graphs the CPU must also launch each one, which shows only when
  // the kernels finish faster than it launches them.
  const bool graphed = s.prefill_tokens == 0 && st.graphs;
  Kernels kernels = main_kernels_;
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
    kernels.all += k * draft_kernels_.all;
    kernels.mla += k * draft_kernels_.mla;
    kernels.moe += k * draft_kernels_.moe;
  }
  const double floors = FloorSeconds(kernels);
  const double launch =
      graphed ? 0.0 : std::max(0.0, kernels.all * sp.eager_kernel_us * 1e-6 - (out.time_s + floors));
  std::string why;
  if (out.detail != nullptr) {
    char line[320];
    char extra[160] = "";
    if (kernels.mla > 0 || kernels.moe > 0)
      std::snprintf(extra, sizeof extra, " + %.0f MLA-block kernels x %.2f us (overhead.mla_kernel_us) + %.0f "
                    "MoE-block kernels x %.2f us (overhead.moe_kernel_us)", kernels.mla, sp.mla_kernel_us,
                    kernels.moe, sp.moe_kernel_us);
    if (graphed) {
      std::snprintf(line, sizeof line, "%.0f kernels x %.2f us (overhead.kernel_us)%s; graph-captured", kernels.all,
                    sp.kernel_us, extra);
    } else {
      std::snprintf(line, sizeof line,
                    "%.0f kernels x %.2f us (overhead.kernel_us)%s + %.3f ms of launches (%.2f us each, "
                    "overhead.eager_kernel_us) the GPU work did not hide",
                    kernels.all, sp.kernel_us, extra, launch * 1e3, sp.eager_kernel_us);
    }
    why = line;
  }
  AddOverhead(out, kOpKernels, floors + launch, why);

  // The scheduler's CPU time, per step and per sequence of the busiest rank.
  const double dp = config_.dp, seqs = static_cast<double>(s.seqs());
  const double rank_seqs = dp > 1 ? std::ceil(seqs / dp) : seqs;
  const double cpu = (sp.step_us + sp.per_seq_us * rank_seqs) * 1e-6;
  const double gpu = out.time_s;
  if (out.detail != nullptr) {
    out.detail->gpu_s = gpu;
    out.detail->cpu_s = cpu;
  }
  if (st.overlap_scheduler) {
    // The CPU prepares the next step while the GPU runs this one: only the
    // part the GPU cannot hide shows.
    const double visible = std::max(0.0, cpu - gpu);
    if (out.detail != nullptr) {
      char line[160];
      std::snprintf(line, sizeof line, "%.0f + %.2f x %.0f seqs us, overlapped with the GPU (%.0f us hidden)",
                    sp.step_us, sp.per_seq_us, rank_seqs, (cpu - visible) * 1e6);
      why = line;
    }
    AddOverhead(out, kOpScheduler, visible, why);
  } else {
    if (out.detail != nullptr) {
      char line[160];
      std::snprintf(line, sizeof line, "overhead.step_us %.0f + overhead.per_seq_us %.2f x %.0f seqs", sp.step_us,
                    sp.per_seq_us, rank_seqs);
      why = line;
    }
    AddOverhead(out, kOpScheduler, cpu, why);
  }
}

double StepModel::FloorSeconds(const Kernels& k) const {
  const StackParams& sp = config_.stack.params;
  return (k.all * sp.kernel_us + k.mla * sp.mla_kernel_us + k.moe * sp.moe_kernel_us) * 1e-6;
}

Nanos DecodeStepCost::At(double keys_full, double keys_swa) const {
  const double c = (attn_flops_full * keys_full + attn_flops_swa * keys_swa) / attn_flop_rate;
  const double m = (attn_bytes_full * keys_full + attn_bytes_swa * keys_swa + attn_bytes_const) / attn_byte_rate;
  double gpu = fixed_s + std::max(c, m);
  gpu += std::max(0.0, launch_s - gpu);
  const double t = overlap ? gpu + std::max(0.0, cpu_s - gpu) : gpu + cpu_s;
  return static_cast<Nanos>(t * 1e9 + 0.5);
}

DecodeStepCost StepModel::DecodeStep(int64_t seqs) const {
  DecodeStepCost d;
  if (config_.spec_tokens > 0 || seqs < 1) return d;
  const ModelSpec& m = config_.model;
  const StackParams& sp = config_.stack.params;
  // The whole step with no keys read, less its decode attention, is the fixed part.
  BatchShape shape;
  shape.decode_seqs = shape.decode_tokens = shape.sampled = seqs;
  shape.decode_keys_full = shape.decode_keys_swa = shape.decode_pairs_full = shape.decode_pairs_swa = 1;
  const StepCost cost = Cost(shape);
  const double dp = config_.dp, n = static_cast<double>(seqs);
  const double share = dp > 1 ? std::ceil(n / dp) / n : 1.0 / dp;
  const double heads_gpu = m.heads / static_cast<double>(config_.tp);
  const double dec_dims = m.mla() ? (2.0 * m.kv_lora_rank + m.qk_rope_dim) : 2.0 * m.head_dim;
  const double attn_layers = m.full_attention_layers() + m.sliding_layers;
  d.seqs = seqs;
  d.fixed_s = 0;
  for (int i = 0; i < kNumOps; ++i)
    if (i != kOpAttnDecode && i != kOpScheduler) d.fixed_s += cost.ops[i].time_s;
  const bool graphed = config_.stack.graphs;
  if (!graphed) {
    // The kernel-floor op above holds floors + unhidden launches: keep the floors, re-derive the launches per step.
    d.fixed_s -= cost.ops[kOpKernels].time_s;
    d.fixed_s += FloorSeconds(main_kernels_);
    d.launch_s = main_kernels_.all * sp.eager_kernel_us * 1e-6;
  }
  d.attn_flops_full = 2.0 * share * m.full_attention_layers() * heads_gpu * dec_dims;
  d.attn_flops_swa = 2.0 * share * m.sliding_layers * heads_gpu * dec_dims;
  d.attn_flop_rate = bf16_flops_ * (m.mla() ? sp.mla_decode_bw : sp.attn_prefill.max);
  d.attn_bytes_full = share * m.full_attention_layers() * kv_bytes_token_layer_;
  d.attn_bytes_swa = share * m.sliding_layers * kv_bytes_token_layer_;
  d.attn_bytes_const = (n * share) * attn_layers * heads_gpu * dec_dims * act_bytes_;
  d.attn_byte_rate = hbm_bytes_per_s_ * (m.mla() ? sp.mla_decode_bw : sp.attn_decode_bw);
  const double rank_seqs = dp > 1 ? std::ceil(n / dp) : n;
  d.cpu_s = (sp.step_us + sp.per_seq_us * rank_seqs) * 1e-6;
  d.overlap = config_.stack.overlap_scheduler;
  return d;
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
  char line[512];
  std::snprintf(line, sizeof line,
                "step: %lld decode seqs (%lld tokens), %lld prefill seqs (%lld tokens); %.3f ms, %s-bound\n",
                static_cast<long long>(s.decode_seqs), static_cast<long long>(s.decode_tokens),
                static_cast<long long>(s.prefill_seqs), static_cast<long long>(s.prefill_tokens),
                cost.time_s * 1e3, ResourceName(cost.bound));
  out += line;
  std::snprintf(line, sizeof line, "  %-24s %10s %6s %12s %10s  %-13s %s\n", "operator", "ms", "%", "TFLOP/GPU",
                "GB/GPU", "bound", "efficiency and why");
  out += line;
  for (int i = 0; i < kNumOps; ++i) {
    const OpCost& o = cost.ops[i];
    if (o.time_s <= 0) continue;
    std::snprintf(line, sizeof line, "  %-24s %10.4f %5.1f%% %12.4f %10.4f  %-13s %s\n", OpName(static_cast<Op>(i)),
                  o.time_s * 1e3, 100.0 * o.time_s / cost.time_s, o.flops / 1e12, o.bytes / 1e9,
                  ResourceName(o.bound), o.note.why.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line,
                "  by resource: compute %.4f ms, memory %.4f ms, communication %.4f ms, overhead %.4f ms "
                "(GPU %.4f ms, scheduler CPU %.4f ms)\n",
                cost.compute_s * 1e3, cost.memory_s * 1e3, cost.comm_s * 1e3, cost.overhead_s * 1e3,
                cost.gpu_s * 1e3, cost.cpu_s * 1e3);
  out += line;
  return out;
}

}  // namespace frontier::sim
