// probe.cc: shapes from the model catalog, the top-N pick, fractions of peak.
#include "probe/probe.h"

#include <algorithm>

#include "core/name_table.h"
#include "core/parse.h"

namespace frontier::probe {

constexpr NameEntry<GemmPrecision> kGemmPrecisionNames[] = {
    {GemmPrecision::kBf16, "bf16"}, {GemmPrecision::kFp8, "fp8"}, {GemmPrecision::kFp4, "fp4"}};

const char* GemmPrecisionName(GemmPrecision p) { return NameOf(kGemmPrecisionNames, p); }

Result<GemmPrecision> ParseGemmPrecision(const std::string& text, const std::string& field) {
  if (std::optional<GemmPrecision> p = ValueOf(kGemmPrecisionNames, text)) return *p;
  return InvalidArgument(field + ": '" + text + "' is not a GEMM precision; use " + NamesList(kGemmPrecisionNames));
}

Result<std::vector<LayerGemm>> ModelGemms(const sim::ModelSpec& m, int tp) {
  if (tp < 1) return InvalidArgument("--tp must be at least 1, got " + std::to_string(tp));
  if (m.mla()) return InvalidArgument(m.name + ": MLA attention projections are not probed yet; pick a GQA model");
  if (m.intermediate <= 0)
    return InvalidArgument(m.name + ": has no dense MLP layers (every layer is MoE); pick a dense model");
  if (m.heads % tp != 0 || m.kv_heads % tp != 0)
    return InvalidArgument("--tp " + std::to_string(tp) + " must divide " + m.name + "'s " +
                           std::to_string(m.heads) + " query heads and " + std::to_string(m.kv_heads) + " KV heads");
  if (m.intermediate % tp != 0)
    return InvalidArgument("--tp " + std::to_string(tp) + " must divide " + m.name + "'s MLP width " +
                           std::to_string(m.intermediate));
  const int64_t hidden = m.hidden, head_dim = m.head_dim;
  const int64_t q_out = static_cast<int64_t>(m.heads) * head_dim, kv_out = static_cast<int64_t>(m.kv_heads) * head_dim;
  return std::vector<LayerGemm>{
      {"qkv", (q_out + 2 * kv_out) / tp, hidden},
      {"o", hidden, q_out / tp},
      {"gate_up", 2 * static_cast<int64_t>(m.intermediate) / tp, hidden},
      {"down", hidden, static_cast<int64_t>(m.intermediate) / tp},
  };
}

namespace {

double PeakTflops(const sim::Hardware& hw, GemmPrecision p) {
  switch (p) {
    case GemmPrecision::kBf16: return hw.bf16_tflops;
    case GemmPrecision::kFp8: return hw.fp8_tflops;
    case GemmPrecision::kFp4: return hw.fp4_tflops;
  }
  return 0;
}

Status CheckOptions(const ProbeOptions& o) {
  if (o.tokens.empty()) return InvalidArgument("--tokens: give at least one token count");
  for (int64_t t : o.tokens)
    if (t < 1 || t > (int64_t{1} << 20))
      return InvalidArgument("--tokens: each count must be in [1, 1048576], got " + std::to_string(t));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--top-n", int64_t{o.top_n}, 1, kMaxTopN));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--iterations", int64_t{o.iterations}, 1, kMaxIterations));
  if (o.stream_bytes < (int64_t{1} << 20))
    return InvalidArgument("--stream-bytes must be at least 1 MiB, got " + std::to_string(o.stream_bytes));
  if (o.decode_batch < 1 || o.decode_context < 1)
    return InvalidArgument("--decode-batch and --decode-context must be at least 1");
  return Status::Ok();
}

}  // namespace

Result<ProbeResult> RunProbe(ProbeBackend& backend, const sim::Hardware& hw, const std::vector<sim::ModelSpec>& models,
                             const ProbeOptions& options) {
  FRONTIER_RETURN_IF_ERROR(CheckOptions(options));
  if (models.empty()) return InvalidArgument("--model: name at least one model of the catalog");
  ProbeResult r;
  r.hardware = hw.name;
  r.device = backend.Info();
  r.options = options;
  const auto runs = [&](GemmPrecision p) {
    return std::find(r.device.gemm_precisions.begin(), r.device.gemm_precisions.end(), p) !=
           r.device.gemm_precisions.end();
  };
  std::vector<GemmPrecision> precisions = options.precisions;
  if (precisions.empty()) {
    for (GemmPrecision p : {GemmPrecision::kBf16, GemmPrecision::kFp8, GemmPrecision::kFp4}) {
      if (!runs(p))
        r.notes.push_back(std::string(GemmPrecisionName(p)) + " GEMM skipped: " + r.device.name +
                          " (with this library) does not run it");
      else if (PeakTflops(hw, p) <= 0)
        r.notes.push_back(std::string(GemmPrecisionName(p)) + " GEMM skipped: the catalog gives " + hw.name +
                          " no " + GemmPrecisionName(p) + " peak");
      else
        precisions.push_back(p);
    }
  } else {
    for (GemmPrecision p : precisions) {
      if (!runs(p))
        return InvalidArgument(std::string("--precision ") + GemmPrecisionName(p) + ": " + r.device.name +
                               " does not run " + GemmPrecisionName(p) + " GEMMs with this library");
      if (PeakTflops(hw, p) <= 0)
        return InvalidArgument(std::string("--precision ") + GemmPrecisionName(p) + ": the catalog gives " +
                               hw.name + " no " + GemmPrecisionName(p) + " peak (data/hardware/" + hw.name + ".json)");
    }
  }

  for (const auto& model : models) {
    r.models.push_back(model.name);
    FRONTIER_ASSIGN_OR_RETURN(std::vector<LayerGemm> layers, ModelGemms(model, options.tp));
    for (GemmPrecision p : precisions) {
      for (const auto& layer : layers) {
        for (int64_t m : options.tokens) {
          GemmProblem problem{m, layer.n, layer.k, p, options.top_n, options.iterations};
          std::string error;
          std::vector<AlgoTiming> timings = backend.Gemm(problem, &error);
          if (timings.empty())
            return Internal(model.name + " " + layer.layer + " " + GemmPrecisionName(p) + " M=" + std::to_string(m) +
                            ": " + (error.empty() ? "the library offered no algorithm" : error));
          GemmPoint g;
          g.model = model.name;
          g.layer = layer.layer;
          g.precision = p;
          g.m = m;
          g.n = layer.n;
          g.k = layer.k;
          g.peak_tflops = PeakTflops(hw, p);
          g.candidates = static_cast<int>(timings.size());
          const AlgoTiming* best = &timings.front();
          for (const auto& t : timings) {
            if (t.rank == 0) g.default_seconds = t.seconds;
            if (t.seconds < best->seconds) best = &t;
          }
          g.tuned_seconds = best->seconds;
          g.tuned_rank = best->rank;
          g.tuned_algo = best->id;
          r.gemm.push_back(g);
        }
      }
    }
  }

  const double peak_gbps = hw.hbm_tbps * 1000;
  for (StreamKernel k : {StreamKernel::kCopy, StreamKernel::kTriad}) {
    const char* name = k == StreamKernel::kCopy ? "copy" : "triad";
    std::string error;
    StreamResult s = backend.Stream(k, options.stream_bytes, &error);
    if (s.seconds <= 0) {
      r.notes.push_back(std::string("HBM ") + name + " failed: " + error);
      continue;
    }
    r.stream.push_back({name, options.stream_bytes, s.seconds, s.bytes_moved, peak_gbps});
  }

  for (const auto& model : models) {
    if (model.heads % options.tp != 0 || model.kv_heads % options.tp != 0) continue;  // ModelGemms refused it
    DecodeProblem d{options.decode_batch, options.decode_context, model.heads / options.tp,
                    model.kv_heads / options.tp, model.head_dim, options.iterations};
    std::string error;
    DecodeResult res = backend.Decode(d, &error);
    if (res.seconds <= 0) {
      r.notes.push_back("decode attention for " + model.name + " failed: " + error);
      continue;
    }
    r.decode.push_back({model.name, d, res.seconds, res.bytes_moved, res.max_abs_error, peak_gbps});
  }

  for (Collective c : {Collective::kAllReduce, Collective::kAllToAll}) {
    const char* name = c == Collective::kAllReduce ? "all_reduce" : "all_to_all";
    std::string error;
    CollectiveResult res = backend.RunCollective(c, options.collective_bytes, &error);
    if (!res.ran) {
      r.notes.push_back(std::string(name) + " skipped: " + (res.note.empty() ? error : res.note));
      continue;
    }
    r.collectives.push_back({name, res});
  }
  return r;
}

}  // namespace frontier::probe
