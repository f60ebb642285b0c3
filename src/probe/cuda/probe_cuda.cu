// probe_cuda.cu: the CUDA probe backend (backend.h), built as a module that
// `frontier probe --probe-backend cuda` loads at run time (open.h).
//
//   GEMM         cuBLASLt, TN layout (y = x W^T), BF16 or FP8 E4M3 operands,
//                BF16 output, FP32 accumulation; the heuristic's first top_n
//                algorithms each timed with CUDA events over `iterations`
//                launches after two warm-ups, cycling through enough weight
//                copies (>= 256 MiB) that the weights come from HBM, not L2,
//                as a model's layers do.
//   HBM          our own copy (a = b) and triad (a = b + s c) kernels, 16-byte
//                accesses, grid-stride.
//   Decode       our own attention kernel for one decode step: a block per
//                (sequence, KV head) streams the K and V cache once for the
//                KV head's query heads, online softmax per half-warp, the
//                half-warps merged in shared memory; checked against a host
//                reference for the first sequence.
//   Collectives  NCCL all-reduce and all-to-all over every visible GPU, when
//                there are two or more (and NCCL was found at build time).
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#ifdef FRONTIER_HAVE_NCCL
#include <nccl.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "probe/backend.h"

namespace frontier::probe {
namespace {

// What a failed CUDA runtime or cuBLASLt call returned, for *error.
std::string Why(cudaError_t e) { return cudaGetErrorString(e); }
std::string Why(cublasStatus_t s) { return "cuBLAS status " + std::to_string(static_cast<int>(s)); }

// Sets *error to the call (`text`) and why it failed, and returns an empty
// value from the probe, when `expr` does not return `ok`.
#define PROBE_CHECK(expr, text, ok)                  \
  do {                                              \
    const auto r_ = (expr);                         \
    if (r_ != (ok)) {                               \
      *error = std::string(text) + ": " + Why(r_);  \
      return {};                                    \
    }                                               \
  } while (0)
#define PROBE_CUDA(expr) PROBE_CHECK(expr, #expr, cudaSuccess)
#define PROBE_LT(expr) PROBE_CHECK(expr, #expr, CUBLAS_STATUS_SUCCESS)

__device__ __forceinline__ float HashUnit(uint64_t i, uint32_t seed) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<float>(x & 0xFFFFFF) / 8388608.0f - 1.0f;  // [-1, 1)
}

__global__ void FillBf16(__nv_bfloat16* p, int64_t n, uint32_t seed, float scale) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x)
    p[i] = __float2bfloat16(scale * HashUnit(static_cast<uint64_t>(i), seed));
}
__global__ void FillFp8(__nv_fp8_e4m3* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x)
    p[i] = __nv_fp8_e4m3(HashUnit(static_cast<uint64_t>(i), seed));
}
__global__ void FillFloat(float4* p, int64_t n, float v) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x)
    p[i] = make_float4(v, v, v, v);
}

__global__ void CopyKernel(float4* __restrict__ a, const float4* __restrict__ b, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x)
    a[i] = b[i];
}
__global__ void TriadKernel(float4* __restrict__ a, const float4* __restrict__ b, const float4* __restrict__ c,
                            float s, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    const float4 x = b[i], y = c[i];
    a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
  }
}

// One decode step. K, V: [batch][context][kv_heads][128]; Q, O: [batch][heads][128].
// Block: 128 threads = 8 half-warps; half-warp h takes tokens h, h+8, ...; lane
// l of a half-warp holds dimensions 8l..8l+7. G query heads share the KV head.
constexpr int kHeadDim = 128;
constexpr int kHalfWarps = 8;
template <int G>
__global__ void __launch_bounds__(128) DecodeKernel(const __nv_bfloat16* __restrict__ q,
                                                    const __nv_bfloat16* __restrict__ k,
                                                    const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o,
                                                    int context, int heads, int kv_heads, float scale) {
  const int kvh = blockIdx.x, b = blockIdx.y;
  const int hw = threadIdx.x / 16, lane = threadIdx.x % 16;
  const unsigned mask = 0xFFFFu << (16 * ((threadIdx.x / 16) % 2));
  float qr[G][8];
  for (int g = 0; g < G; ++g) {
    const uint4 raw = *reinterpret_cast<const uint4*>(q + ((int64_t{b} * heads + kvh * G + g) * kHeadDim + lane * 8));
    const __nv_bfloat16* e = reinterpret_cast<const __nv_bfloat16*>(&raw);
    for (int i = 0; i < 8; ++i) qr[g][i] = __bfloat162float(e[i]) * scale;
  }
  float m[G], l[G], acc[G][8];
  for (int g = 0; g < G; ++g) {
    m[g] = -INFINITY;
    l[g] = 0;
    for (int i = 0; i < 8; ++i) acc[g][i] = 0;
  }
  const int64_t token_stride = int64_t{kv_heads} * kHeadDim;
  const int64_t base = (int64_t{b} * context * kv_heads + kvh) * kHeadDim + lane * 8;
  for (int t = hw; t < context; t += kHalfWarps) {
    const uint4 kraw = *reinterpret_cast<const uint4*>(k + base + t * token_stride);
    const uint4 vraw = *reinterpret_cast<const uint4*>(v + base + t * token_stride);
    const __nv_bfloat16* ke = reinterpret_cast<const __nv_bfloat16*>(&kraw);
    const __nv_bfloat16* ve = reinterpret_cast<const __nv_bfloat16*>(&vraw);
    float kf[8], vf[8];
    for (int i = 0; i < 8; ++i) kf[i] = __bfloat162float(ke[i]), vf[i] = __bfloat162float(ve[i]);
    for (int g = 0; g < G; ++g) {
      float s = 0;
      for (int i = 0; i < 8; ++i) s += qr[g][i] * kf[i];
      for (int off = 8; off > 0; off /= 2) s += __shfl_xor_sync(mask, s, off, 16);
      const float nm = fmaxf(m[g], s);
      const float corr = __expf(m[g] - nm), p = __expf(s - nm);
      l[g] = l[g] * corr + p;
      for (int i = 0; i < 8; ++i) acc[g][i] = acc[g][i] * corr + p * vf[i];
      m[g] = nm;
    }
  }
  __shared__ float sm_m[kHalfWarps][G], sm_l[kHalfWarps][G];
  __shared__ float sm_acc[kHalfWarps][G][kHeadDim];
  for (int g = 0; g < G; ++g) {
    if (lane == 0) sm_m[hw][g] = m[g], sm_l[hw][g] = l[g];
    for (int i = 0; i < 8; ++i) sm_acc[hw][g][lane * 8 + i] = acc[g][i];
  }
  __syncthreads();
  const int d = threadIdx.x;
  for (int g = 0; g < G; ++g) {
    float mx = -INFINITY;
    for (int h = 0; h < kHalfWarps; ++h) mx = fmaxf(mx, sm_m[h][g]);
    float sum_l = 0, sum_o = 0;
    for (int h = 0; h < kHalfWarps; ++h) {
      if (sm_m[h][g] == -INFINITY) continue;  // a half-warp that saw no token
      const float w = __expf(sm_m[h][g] - mx);
      sum_l += sm_l[h][g] * w;
      sum_o += sm_acc[h][g][d] * w;
    }
    o[(int64_t{b} * heads + kvh * G + g) * kHeadDim + d] = __float2bfloat16(sum_o / sum_l);
  }
}

float Bf16ToFloat(uint16_t bits) {
  uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

int GridFor(int64_t n, int sms) {
  return static_cast<int>(std::min<int64_t>((n + 255) / 256, int64_t{sms} * 16));
}

// Frees what it holds when it goes out of scope.
struct DeviceBuffers {
  std::vector<void*> ptrs;
  ~DeviceBuffers() {
    for (void* p : ptrs) cudaFree(p);
  }
  // cudaMalloc, the memory freed with this object.
  template <class T>
  cudaError_t Malloc(T** p, size_t bytes) {
    const cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaSuccess) ptrs.push_back(*p);
    return e;
  }
};

class CudaBackend final : public ProbeBackend {
 public:
  CudaBackend(cudaDeviceProp prop, cublasLtHandle_t lt, int devices)
      : prop_(prop), lt_(lt), devices_(devices) {
    cudaStreamCreate(&stream_);
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
    cudaMalloc(&workspace_, kWorkspace);
  }
  ~CudaBackend() override {
    cudaFree(workspace_);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(stream_);
    cublasLtDestroy(lt_);
  }

  DeviceInfo Info() override {
    DeviceInfo d;
    d.name = prop_.name;
    d.backend = "cuda";
    d.arch = "sm_" + std::to_string(prop_.major) + std::to_string(prop_.minor);
    d.devices = devices_;
    d.multiprocessors = prop_.multiProcessorCount;
    d.memory_gib = static_cast<double>(prop_.totalGlobalMem) / (1024.0 * 1024 * 1024);
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    d.library_versions = "cuBLASLt " + std::to_string(cublasLtGetVersion()) + ", CUDA runtime " + std::to_string(rt);
    d.gemm_precisions.push_back(GemmPrecision::kBf16);
    if (prop_.major * 10 + prop_.minor >= 89) d.gemm_precisions.push_back(GemmPrecision::kFp8);
    // FP4 (block-scaled E2M1, sm_100+) is not written in this backend yet.
    return d;
  }

  std::vector<AlgoTiming> Gemm(const GemmProblem& p, std::string* error) override {
    if (p.precision == GemmPrecision::kFp4) {
      *error = "FP4 GEMMs are not implemented in the CUDA probe backend";
      return {};
    }
    const bool fp8 = p.precision == GemmPrecision::kFp8;
    const cudaDataType_t in_type = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    const size_t in_size = fp8 ? 1 : 2;
    const int64_t a_elems = p.n * p.k, b_elems = p.m * p.k, d_elems = p.m * p.n;
    const size_t a_bytes = static_cast<size_t>(a_elems) * in_size;
    // Enough weight copies that a pass over them does not fit in L2.
    const int copies = static_cast<int>(std::clamp<int64_t>((int64_t{256} << 20) / std::max<int64_t>(a_bytes, 1) + 1, 1, 64));
    DeviceBuffers buf;
    std::vector<void*> a(copies);
    void *b = nullptr, *dout = nullptr;
    for (int i = 0; i < copies; ++i) PROBE_CUDA(buf.Malloc(&a[i], a_bytes));
    PROBE_CUDA(buf.Malloc(&b, static_cast<size_t>(b_elems) * in_size));
    PROBE_CUDA(buf.Malloc(&dout, static_cast<size_t>(d_elems) * 2));
    const int sms = prop_.multiProcessorCount;
    for (int i = 0; i < copies; ++i) {
      if (fp8) FillFp8<<<GridFor(a_elems, sms), 256, 0, stream_>>>(static_cast<__nv_fp8_e4m3*>(a[i]), a_elems, 17 + i);
      else FillBf16<<<GridFor(a_elems, sms), 256, 0, stream_>>>(static_cast<__nv_bfloat16*>(a[i]), a_elems, 17 + i, 1.0f);
    }
    if (fp8) FillFp8<<<GridFor(b_elems, sms), 256, 0, stream_>>>(static_cast<__nv_fp8_e4m3*>(b), b_elems, 5);
    else FillBf16<<<GridFor(b_elems, sms), 256, 0, stream_>>>(static_cast<__nv_bfloat16*>(b), b_elems, 5, 1.0f);
    PROBE_CUDA(cudaGetLastError());

    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    struct Cleanup {
      cublasLtMatmulDesc_t& op;
      cublasLtMatrixLayout_t &la, &lb, &ld;
      cublasLtMatmulPreference_t& pref;
      ~Cleanup() {
        if (pref) cublasLtMatmulPreferenceDestroy(pref);
        if (ld) cublasLtMatrixLayoutDestroy(ld);
        if (lb) cublasLtMatrixLayoutDestroy(lb);
        if (la) cublasLtMatrixLayoutDestroy(la);
        if (op) cublasLtMatmulDescDestroy(op);
      }
    } cleanup{op, la, lb, ld, pref};
    PROBE_LT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    PROBE_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    PROBE_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    // Column-major: A is W stored K x N (op T gives N x K), B is x stored K x M, D is N x M.
    PROBE_LT(cublasLtMatrixLayoutCreate(&la, in_type, p.k, p.n, p.k));
    PROBE_LT(cublasLtMatrixLayoutCreate(&lb, in_type, p.k, p.m, p.k));
    PROBE_LT(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, p.n, p.m, p.n));
    PROBE_LT(cublasLtMatmulPreferenceCreate(&pref));
    const size_t ws = kWorkspace;
    PROBE_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    std::vector<cublasLtMatmulHeuristicResult_t> heur(std::max(p.top_n, 1));
    int returned = 0;
    PROBE_LT(cublasLtMatmulAlgoGetHeuristic(lt_, op, la, lb, ld, ld, pref, p.top_n, heur.data(), &returned));
    if (returned == 0) {
      *error = "cuBLASLt offered no algorithm";
      return {};
    }
    const float alpha = 1.0f, beta = 0.0f;
    std::vector<AlgoTiming> out;
    for (int r = 0; r < returned; ++r) {
      const cublasLtMatmulAlgo_t* algo = &heur[r].algo;
      auto launch = [&](int i) {
        return cublasLtMatmul(lt_, op, &alpha, a[i % copies], la, b, lb, &beta, dout, ld, dout, ld, algo, workspace_,
                              kWorkspace, stream_);
      };
      if (launch(0) != CUBLAS_STATUS_SUCCESS || launch(1) != CUBLAS_STATUS_SUCCESS) continue;  // not runnable
      const auto timed = [&](int i) -> bool {
        PROBE_LT(launch(i + 2));
        return true;
      };
      const std::optional<double> seconds = SecondsPerCall(p.iterations, timed, error);
      if (!seconds) return {};
      out.push_back({r, Describe(heur[r].algo), *seconds});
    }
    if (out.empty()) *error = "none of cuBLASLt's " + std::to_string(returned) + " algorithms ran";
    return out;
  }

  StreamResult Stream(StreamKernel kernel, int64_t bytes, std::string* error) override {
    const int64_t n = bytes / 16;
    DeviceBuffers buf;
    float4 *a = nullptr, *b = nullptr, *c = nullptr;
    PROBE_CUDA(buf.Malloc(&a, n * 16));
    PROBE_CUDA(buf.Malloc(&b, n * 16));
    PROBE_CUDA(buf.Malloc(&c, n * 16));
    const int sms = prop_.multiProcessorCount;
    const int grid = GridFor(n, sms);
    FillFloat<<<grid, 256, 0, stream_>>>(b, n, 1.0f);
    FillFloat<<<grid, 256, 0, stream_>>>(c, n, 2.0f);
    auto run = [&] {
      if (kernel == StreamKernel::kCopy) CopyKernel<<<grid, 256, 0, stream_>>>(a, b, n);
      else TriadKernel<<<grid, 256, 0, stream_>>>(a, b, c, 3.0f, n);
    };
    run();
    run();
    const int iters = 20;
    const auto timed = [&](int) {
      run();
      return true;
    };
    const std::optional<double> seconds = SecondsPerCall(iters, timed, error);
    if (!seconds) return {};
    PROBE_CUDA(cudaGetLastError());
    return {*seconds, static_cast<double>(n) * 16 * (kernel == StreamKernel::kCopy ? 2 : 3)};
  }

  DecodeResult Decode(const DecodeProblem& p, std::string* error) override {
    const int g = p.kv_heads > 0 ? p.heads / p.kv_heads : 0;
    if (p.head_dim != kHeadDim || p.kv_heads < 1 || p.heads % p.kv_heads != 0 || (g != 1 && g != 2 && g != 4 && g != 8)) {
      *error = "the probe's decode kernel takes head_dim 128 and 1, 2, 4 or 8 query heads per KV head";
      return {};
    }
    const int64_t kv_elems = int64_t{p.batch} * p.context * p.kv_heads * kHeadDim;
    const int64_t q_elems = int64_t{p.batch} * p.heads * kHeadDim;
    DeviceBuffers buf;
    __nv_bfloat16 *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr;
    PROBE_CUDA(buf.Malloc(&q, q_elems * 2));
    PROBE_CUDA(buf.Malloc(&o, q_elems * 2));
    PROBE_CUDA(buf.Malloc(&k, kv_elems * 2));
    PROBE_CUDA(buf.Malloc(&v, kv_elems * 2));
    const int sms = prop_.multiProcessorCount;
    FillBf16<<<GridFor(q_elems, sms), 256, 0, stream_>>>(q, q_elems, 101, 1.0f);
    FillBf16<<<GridFor(kv_elems, sms), 256, 0, stream_>>>(k, kv_elems, 202, 1.0f);
    FillBf16<<<GridFor(kv_elems, sms), 256, 0, stream_>>>(v, kv_elems, 303, 1.0f);
    const float scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim));
    const dim3 grid(p.kv_heads, p.batch);
    auto run = [&] {
      switch (g) {
        case 1: DecodeKernel<1><<<grid, 128, 0, stream_>>>(q, k, v, o, p.context, p.heads, p.kv_heads, scale); break;
        case 2: DecodeKernel<2><<<grid, 128, 0, stream_>>>(q, k, v, o, p.context, p.heads, p.kv_heads, scale); break;
        case 4: DecodeKernel<4><<<grid, 128, 0, stream_>>>(q, k, v, o, p.context, p.heads, p.kv_heads, scale); break;
        default: DecodeKernel<8><<<grid, 128, 0, stream_>>>(q, k, v, o, p.context, p.heads, p.kv_heads, scale); break;
      }
    };
    run();
    PROBE_CUDA(cudaStreamSynchronize(stream_));
    PROBE_CUDA(cudaGetLastError());
    // Host reference for sequence 0 (every head).
    const int64_t seq_kv = int64_t{p.context} * p.kv_heads * kHeadDim;
    std::vector<uint16_t> hq(p.heads * kHeadDim), hk(seq_kv), hv(seq_kv), ho(p.heads * kHeadDim);
    PROBE_CUDA(cudaMemcpy(hq.data(), q, hq.size() * 2, cudaMemcpyDeviceToHost));
    PROBE_CUDA(cudaMemcpy(hk.data(), k, hk.size() * 2, cudaMemcpyDeviceToHost));
    PROBE_CUDA(cudaMemcpy(hv.data(), v, hv.size() * 2, cudaMemcpyDeviceToHost));
    PROBE_CUDA(cudaMemcpy(ho.data(), o, ho.size() * 2, cudaMemcpyDeviceToHost));
    double max_err = 0;
    std::vector<double> s(p.context);
    for (int h = 0; h < p.heads; ++h) {
      const int kvh = h / g;
      double mx = -1e300;
      for (int t = 0; t < p.context; ++t) {
        double dot = 0;
        for (int d = 0; d < kHeadDim; ++d)
          dot += static_cast<double>(Bf16ToFloat(hq[h * kHeadDim + d]) * scale) *
                 Bf16ToFloat(hk[(int64_t{t} * p.kv_heads + kvh) * kHeadDim + d]);
        s[t] = dot;
        mx = std::max(mx, dot);
      }
      double sum = 0;
      for (int t = 0; t < p.context; ++t) sum += (s[t] = std::exp(s[t] - mx));
      for (int d = 0; d < kHeadDim; ++d) {
        double ref = 0;
        for (int t = 0; t < p.context; ++t) ref += s[t] * Bf16ToFloat(hv[(int64_t{t} * p.kv_heads + kvh) * kHeadDim + d]);
        ref /= sum;
        max_err = std::max(max_err, std::abs(ref - Bf16ToFloat(ho[h * kHeadDim + d])));
      }
    }
    run();
    const auto timed = [&](int) {
      run();
      return true;
    };
    const std::optional<double> seconds = SecondsPerCall(p.iterations, timed, error);
    if (!seconds) return {};
    const double bytes = 2.0 * static_cast<double>(kv_elems) * 2 + 2.0 * static_cast<double>(q_elems) * 2;
    return {*seconds, bytes, max_err};
  }

  CollectiveResult RunCollective(Collective c, int64_t bytes, std::string* error) override {
    CollectiveResult r;
    r.gpus = devices_;
#ifndef FRONTIER_HAVE_NCCL
    (void)c;
    (void)bytes;
    (void)error;
    r.note = "built without NCCL";
    return r;
#else
    if (devices_ < 2) {
      r.note = "1 GPU: collectives need 2 or more";
      return r;
    }
    const int n = devices_;
    std::vector<ncclComm_t> comms(n);
    if (ncclCommInitAll(comms.data(), n, nullptr) != ncclSuccess) {
      r.note = "ncclCommInitAll failed";
      return r;
    }
    std::vector<float*> send(n), recv(n);
    std::vector<cudaStream_t> streams(n);
    const size_t count = static_cast<size_t>(bytes) / sizeof(float);
    for (int d = 0; d < n; ++d) {
      cudaSetDevice(d);
      cudaMalloc(&send[d], count * sizeof(float));
      cudaMalloc(&recv[d], count * sizeof(float));
      cudaMemset(send[d], 0, count * sizeof(float));
      cudaStreamCreate(&streams[d]);
    }
    auto once = [&] {
      ncclGroupStart();
      for (int d = 0; d < n; ++d) {
        if (c == Collective::kAllReduce) {
          ncclAllReduce(send[d], recv[d], count, ncclFloat, ncclSum, comms[d], streams[d]);
        } else {
          const size_t chunk = count / n;
          for (int peer = 0; peer < n; ++peer) {
            ncclSend(send[d] + peer * chunk, chunk, ncclFloat, peer, comms[d], streams[d]);
            ncclRecv(recv[d] + peer * chunk, chunk, ncclFloat, peer, comms[d], streams[d]);
          }
        }
      }
      ncclGroupEnd();
      for (int d = 0; d < n; ++d) cudaStreamSynchronize(streams[d]);
    };
    once();
    const int iters = 10;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) once();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
    for (int d = 0; d < n; ++d) {
      cudaSetDevice(d);
      cudaFree(send[d]);
      cudaFree(recv[d]);
      cudaStreamDestroy(streams[d]);
      ncclCommDestroy(comms[d]);
    }
    cudaSetDevice(0);
    r.ran = true;
    r.bytes = static_cast<double>(bytes);
    r.seconds = s;
    const double factor = c == Collective::kAllReduce ? 2.0 * (n - 1) / n : static_cast<double>(n - 1) / n;
    r.bus_gbps = r.bytes / s / 1e9 * factor;
    (void)error;
    return r;
#endif
  }

 private:
  // Seconds per call of `run(i)`, i = 0 .. iterations-1, timed by CUDA events
  // on stream_ (warm-ups are the caller's). Nothing, with *error set, when a
  // CUDA call fails or `run` returns false (having set *error itself).
  template <class Run>
  std::optional<double> SecondsPerCall(int iterations, const Run& run, std::string* error) {
    PROBE_CUDA(cudaEventRecord(start_, stream_));
    for (int i = 0; i < iterations; ++i)
      if (!run(i)) return {};
    PROBE_CUDA(cudaEventRecord(stop_, stream_));
    PROBE_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    PROBE_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return ms / 1e3 / iterations;
  }

  static constexpr size_t kWorkspace = size_t{64} << 20;

  static std::string Describe(const cublasLtMatmulAlgo_t& algo) {
    int id = 0, tile = 0, stages = 0, splitk = 0;
    size_t w = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &w);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &w);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &w);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &w);
    return "algo " + std::to_string(id) + " tile " + std::to_string(tile) + " stages " + std::to_string(stages) +
           " splitk " + std::to_string(splitk);
  }

  cudaDeviceProp prop_;
  cublasLtHandle_t lt_;
  int devices_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* workspace_ = nullptr;
};

}  // namespace
}  // namespace frontier::probe

extern "C" __attribute__((visibility("default"))) frontier::probe::ProbeBackend* frontier_probe_cuda_create(
    char* error, int error_len) {
  auto fail = [&](const std::string& why) -> frontier::probe::ProbeBackend* {
    std::snprintf(error, static_cast<size_t>(error_len), "%s", why.c_str());
    return nullptr;
  };
  int devices = 0;
  if (cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0)
    return fail(std::string("no CUDA device: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "none visible"));
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, 0); e != cudaSuccess)
    return fail(std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(e));
  if (prop.major < 8) return fail(std::string(prop.name) + " is older than sm_80 (no BF16 tensor cores)");
  cudaSetDevice(0);
  cublasLtHandle_t lt = nullptr;
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) return fail("cublasLtCreate failed");
  return new frontier::probe::CudaBackend(prop, lt, devices);
}
