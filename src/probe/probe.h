// probe.h: `frontier probe`, the logic every backend shares.
//
// From the model catalog's layer shapes, RunProbe builds the GEMMs one
// transformer layer runs (QKV, O, gate+up, down projections, split `tp` ways
// as tensor parallelism splits them) at several token counts M, and times
// each through the backend per precision, TunableOp-style: the library's
// top-N algorithms in its heuristic's order, keeping the fastest. It reports
// TFLOP/s and the fraction of the hardware catalog's dense peak for the
// default algorithm (rank 0) and the tuned one; HBM copy and triad bandwidth;
// a decode-attention step at the model's head shapes against HBM peak; and
// collectives where the backend sees two or more GPUs.
//
//   std::unique_ptr<ProbeBackend> b = MakeFakeBackend(FakeFigures::For(hw));
//   Result<ProbeResult> r = RunProbe(*b, hw, {model}, ProbeOptions{});
//
// Thread safety: RunProbe uses its backend from the calling thread only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "probe/backend.h"
#include "sim/engine/hardware.h"
#include "sim/engine/model.h"

namespace frontier::probe {

// One linear layer of a transformer block, as a GEMM's N (outputs) and K (inputs).
struct LayerGemm {
  std::string layer;  // "qkv", "o", "gate_up", "down"
  int64_t n = 0, k = 0;
};
// The dense layers of `model` on one of `tp` GPUs: QKV and gate+up split
// their outputs, O and down their inputs. InvalidArgument when tp does not
// divide the heads, the KV heads or the MLP width (naming which), or for a
// model without dense MLP layers or with MLA (not modelled here).
Result<std::vector<LayerGemm>> ModelGemms(const sim::ModelSpec& model, int tp);

// The bounds of ProbeOptions' top_n and iterations (RunProbe's and the flags' check).
inline constexpr int kMaxTopN = 64, kMaxIterations = 10000;

// MiB per array of the HBM copy and triad kernels, unless --stream-mib says.
inline constexpr int64_t kDefaultStreamMib = 1024;

// A probe's counts with their defaults: ProbeOptions' and, as given, the
// flags' (setup.h's ProbeFlags), so the defaults are written once.
struct ProbeCounts {
  int tp = 1;
  int top_n = 8;        // algorithms timed per GEMM
  int iterations = 10;  // timed launches per algorithm
  int decode_batch = 64;
  int decode_context = 4096;
};

struct ProbeOptions : ProbeCounts {
  std::vector<int64_t> tokens = {16, 64, 256, 1024, 4096};  // GEMM rows M
  std::vector<GemmPrecision> precisions;  // empty: every one the GPU runs and the catalog has a peak for
  int64_t stream_bytes = kDefaultStreamMib << 20;  // per array of the copy / triad kernels
  int64_t collective_bytes = int64_t{256} << 20;
};

struct GemmPoint {
  std::string model, layer;
  GemmPrecision precision = GemmPrecision::kBf16;
  int64_t m = 0, n = 0, k = 0;
  double peak_tflops = 0;        // the catalog's dense peak for this precision
  double default_seconds = 0;    // rank 0: what the library runs untuned
  double tuned_seconds = 0;      // the fastest candidate
  int tuned_rank = 0;
  std::string tuned_algo;
  int candidates = 0;            // algorithms timed
  double Flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
  double DefaultTflops() const { return default_seconds > 0 ? Flops() / default_seconds / 1e12 : 0; }
  double TunedTflops() const { return tuned_seconds > 0 ? Flops() / tuned_seconds / 1e12 : 0; }
  double TunedFraction() const { return peak_tflops > 0 ? TunedTflops() / peak_tflops : 0; }
  double DefaultFraction() const { return peak_tflops > 0 ? DefaultTflops() / peak_tflops : 0; }
};

struct StreamPoint {
  std::string kernel;            // "copy", "triad"
  int64_t bytes_per_array = 0;
  double seconds = 0, bytes_moved = 0;
  double peak_gbps = 0;          // catalog HBM peak, GB/s (1e9)
  double Gbps() const { return seconds > 0 ? bytes_moved / seconds / 1e9 : 0; }
  double Fraction() const { return peak_gbps > 0 ? Gbps() / peak_gbps : 0; }
};

struct DecodePoint {
  std::string model;
  DecodeProblem problem;
  double seconds = 0, bytes_moved = 0, max_abs_error = 0;
  double peak_gbps = 0;
  double Gbps() const { return seconds > 0 ? bytes_moved / seconds / 1e9 : 0; }
  double Fraction() const { return peak_gbps > 0 ? Gbps() / peak_gbps : 0; }
};

struct CollectivePoint {
  std::string op;                // "all_reduce", "all_to_all"
  CollectiveResult result;
};

struct ProbeResult {
  std::string hardware;          // catalog name the fractions are of
  DeviceInfo device;
  std::vector<std::string> models;
  ProbeOptions options;
  std::vector<GemmPoint> gemm;
  std::vector<StreamPoint> stream;
  std::vector<DecodePoint> decode;
  std::vector<CollectivePoint> collectives;
  std::vector<std::string> notes;  // what was skipped and why
};

// Runs the probe. InvalidArgument for a precision the GPU or the catalog
// lacks (naming it), bad shapes (ModelGemms) or options out of range;
// Internal when the backend fails (its message). A failed stream, decode or
// collective stage is a note, not an error: the GEMMs still count.
Result<ProbeResult> RunProbe(ProbeBackend& backend, const sim::Hardware& hardware,
                             const std::vector<sim::ModelSpec>& models, const ProbeOptions& options);

// Parses "bf16", "fp8", "fp4"; InvalidArgument naming `field` otherwise.
Result<GemmPrecision> ParseGemmPrecision(const std::string& text, const std::string& field);

}  // namespace frontier::probe
