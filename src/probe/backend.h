// backend.h: what `frontier probe` asks of a GPU, and nothing else.
//
// A ProbeBackend runs one kind of microbenchmark at a time and returns raw
// timings; everything else (which shapes, which algorithm wins, FLOP/s,
// fractions of the catalogued peak, storing, calibration) is probe.h's and is
// the same for every backend. Backends:
//   fake   deterministic figures from known formulas (fake_backend.h), so the
//          whole pipeline is tested without a GPU;
//   cuda   cuBLASLt GEMMs, our own copy / triad / decode-attention kernels,
//          NCCL collectives (cuda/probe_cuda.cu), built into a module that is
//          loaded at run time (open.h) so the `frontier` binary never needs
//          CUDA's libraries to start.
// This header uses the standard library only: the CUDA module includes it.
//
// Thread safety: a backend is used from one thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace frontier::probe {

// Operand formats of a GEMM (the output is BF16 for every one).
enum class GemmPrecision { kBf16 = 0, kFp8 = 1, kFp4 = 2 };
const char* GemmPrecisionName(GemmPrecision p);  // "bf16", "fp8", "fp4"

struct DeviceInfo {
  std::string name;             // "NVIDIA H200", "fake"
  std::string backend;          // "cuda", "fake", ...
  std::string arch;             // "sm_90"
  int devices = 1;              // GPUs the backend sees
  int multiprocessors = 0;
  double memory_gib = 0;
  std::string library_versions; // "cuBLASLt 130000, CUDA runtime 13000"
  std::vector<GemmPrecision> gemm_precisions;  // what this GPU and library can run
};

// y[M, N] = x[M, K] . W[N, K]^T: M tokens through a linear layer of K inputs
// and N outputs (cuBLAS's "TN" layout, which FP8 needs).
struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  GemmPrecision precision = GemmPrecision::kBf16;
  int top_n = 8;        // candidate algorithms to time (the library's heuristic order)
  int iterations = 10;  // timed launches per algorithm (after warm-up)
};

// One candidate algorithm's time. `rank` is its place in the heuristic's
// order: rank 0 is what the library would run by default.
struct AlgoTiming {
  int rank = 0;
  std::string id;        // the library's description ("algo 23 tile 12 stages 8 ...")
  double seconds = 0;    // mean time of one GEMM
};

// HBM streaming kernels over `bytes_per_array`-sized float arrays.
enum class StreamKernel { kCopy, kTriad };  // a = b;  a = b + s c
struct StreamResult {
  double seconds = 0;          // one pass
  double bytes_moved = 0;      // read + written in one pass
};

// One decode step of attention: `batch` sequences each with `context` cached
// tokens, `heads` query heads sharing `kv_heads` key/value heads of
// `head_dim`, BF16 KV cache.
struct DecodeProblem {
  int batch = 0, context = 0, heads = 0, kv_heads = 0, head_dim = 0;
  int iterations = 10;
};
struct DecodeResult {
  double seconds = 0;          // one step
  double bytes_moved = 0;      // K and V read (queries and outputs are negligible, but counted)
  double max_abs_error = 0;    // against a reference computed on the host for one sequence
};

enum class Collective { kAllReduce, kAllToAll };
struct CollectiveResult {
  bool ran = false;
  std::string note;            // why it did not run ("1 GPU: needs 2 or more")
  int gpus = 0;
  double bytes = 0;            // message size per GPU
  double seconds = 0;
  double bus_gbps = 0;         // NCCL's bus bandwidth convention
};

class ProbeBackend {
 public:
  virtual ~ProbeBackend() = default;
  virtual DeviceInfo Info() = 0;
  // Times up to problem.top_n algorithms in the heuristic's order. Empty with
  // `*error` set when the library offers none or a launch fails.
  virtual std::vector<AlgoTiming> Gemm(const GemmProblem& problem, std::string* error) = 0;
  virtual StreamResult Stream(StreamKernel kernel, int64_t bytes_per_array, std::string* error) = 0;
  virtual DecodeResult Decode(const DecodeProblem& problem, std::string* error) = 0;
  virtual CollectiveResult RunCollective(Collective c, int64_t bytes, std::string* error) = 0;
};

}  // namespace frontier::probe

// The CUDA module's entry point (a C name for dlsym): a new backend, or
// nullptr with `error` filled (no device, driver too old, ...).
extern "C" frontier::probe::ProbeBackend* frontier_probe_cuda_create(char* error, int error_len);
