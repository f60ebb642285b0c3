// fake_backend.cc: the formulas fake_backend.h states.
#include "probe/fake_backend.h"

namespace frontier::probe {
namespace {

class FakeBackend final : public ProbeBackend {
 public:
  explicit FakeBackend(const FakeFigures& f) : f_(f) {}

  DeviceInfo Info() override {
    DeviceInfo d;
    d.name = "fake";
    d.backend = "fake";
    d.arch = "none";
    d.devices = 1;
    d.library_versions = "fake backend (fake_backend.h formulas)";
    if (f_.bf16_tflops > 0) d.gemm_precisions.push_back(GemmPrecision::kBf16);
    if (f_.fp8_tflops > 0) d.gemm_precisions.push_back(GemmPrecision::kFp8);
    if (f_.fp4_tflops > 0) d.gemm_precisions.push_back(GemmPrecision::kFp4);
    return d;
  }

  std::vector<AlgoTiming> Gemm(const GemmProblem& p, std::string* error) override {
    const double peak = p.precision == GemmPrecision::kBf16  ? f_.bf16_tflops
                        : p.precision == GemmPrecision::kFp8 ? f_.fp8_tflops
                                                              : f_.fp4_tflops;
    const sim::Curve& c = p.precision == GemmPrecision::kBf16  ? f_.bf16
                          : p.precision == GemmPrecision::kFp8 ? f_.fp8
                                                                : f_.fp4;
    if (peak <= 0 || p.m < 1 || p.n < 1 || p.k < 1 || p.top_n < 1) {
      *error = "fake backend: no such GEMM";
      return {};
    }
    const double flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
    const double best = flops / (peak * 1e12 * c.At(static_cast<double>(p.m)));
    const int n = p.top_n;
    const int fastest = static_cast<int>((p.m / 16 + p.n / 1024 + p.k / 1024) % n);
    std::vector<AlgoTiming> out;
    for (int r = 0; r < n; ++r) {
      const int behind = ((r - fastest) % n + n) % n;
      out.push_back({r, "fake algo " + std::to_string(r), best * (1.0 + 0.05 * behind)});
    }
    return out;
  }

  StreamResult Stream(StreamKernel k, int64_t bytes, std::string*) override {
    const double moved = static_cast<double>(bytes) * (k == StreamKernel::kCopy ? 2 : 3);
    const double eff = k == StreamKernel::kCopy ? f_.copy : f_.triad;
    return {moved / (f_.hbm_gbps * 1e9 * eff), moved};
  }

  DecodeResult Decode(const DecodeProblem& p, std::string*) override {
    // K and V of every cached token, plus the queries read and outputs written.
    const double kv = 2.0 * p.batch * static_cast<double>(p.context) * p.kv_heads * p.head_dim * 2;
    const double qo = 2.0 * p.batch * static_cast<double>(p.heads) * p.head_dim * 2;
    return {(kv + qo) / (f_.hbm_gbps * 1e9 * f_.decode), kv + qo, 0.0};
  }

  CollectiveResult RunCollective(Collective, int64_t, std::string*) override {
    CollectiveResult r;
    r.gpus = 1;
    r.note = "1 GPU: collectives need 2 or more";
    return r;
  }

 private:
  FakeFigures f_;
};

}  // namespace

FakeFigures FakeFigures::For(const sim::Hardware& hw) {
  FakeFigures f;
  f.bf16_tflops = hw.bf16_tflops;
  f.fp8_tflops = hw.fp8_tflops;
  f.fp4_tflops = hw.fp4_tflops;
  f.hbm_gbps = hw.hbm_tbps * 1000;
  return f;
}

std::unique_ptr<ProbeBackend> MakeFakeBackend(const FakeFigures& figures) {
  return std::make_unique<FakeBackend>(figures);
}

}  // namespace frontier::probe
