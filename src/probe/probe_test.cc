// probe_test.cc: `frontier probe`'s logic against the fake backend, whose
// figures follow known formulas (fake_backend.h): shapes from the catalog,
// the top-N pick, fractions of peak, JSON and store round trips, and the fit
// that `calibrate --probe` writes changing the simulator's GEMM efficiency.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "probe/fake_backend.h"
#include "probe/fit.h"
#include "probe/probe.h"
#include "probe/record.h"
#include "probe/setup.h"
#include "sim/engine/config.h"
#include "sim/engine/data_dir.h"
#include "sim/engine/gpu_override.h"
#include "sim/engine/step_model.h"
#include "store/store.h"

namespace frontier::probe {
namespace {

namespace fs = std::filesystem;

sim::ModelSpec Model(const std::string& name) {
  Result<sim::ModelSpec> m = sim::LoadModel(name);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return *m;
}

sim::Hardware H200() {
  Result<sim::Hardware> h = sim::LoadHardware("h200");
  EXPECT_TRUE(h.ok()) << h.status().ToString();
  return *h;
}

fs::path TempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("frontier_probe_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Llama 3.1 8B: hidden 4096, 32 query heads and 8 KV heads of 128, MLP 14336.
TEST(ProbeShapes, Llama8bLayersAndTheirTensorParallelSplit) {
  Result<std::vector<LayerGemm>> one = ModelGemms(Model("llama-3.1-8b"), 1);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_EQ(one->size(), 4u);
  EXPECT_EQ((*one)[0].layer, "qkv");
  EXPECT_EQ((*one)[0].n, (32 + 2 * 8) * 128);
  EXPECT_EQ((*one)[0].k, 4096);
  EXPECT_EQ((*one)[1].n, 4096);
  EXPECT_EQ((*one)[1].k, 4096);
  EXPECT_EQ((*one)[2].n, 2 * 14336);
  EXPECT_EQ((*one)[2].k, 4096);
  EXPECT_EQ((*one)[3].n, 4096);
  EXPECT_EQ((*one)[3].k, 14336);
  Result<std::vector<LayerGemm>> two = ModelGemms(Model("llama-3.1-8b"), 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ((*two)[0].n, 3072);   // column-parallel: outputs split
  EXPECT_EQ((*two)[1].k, 2048);   // row-parallel: inputs split
  EXPECT_EQ((*two)[2].n, 14336);
  EXPECT_EQ((*two)[3].k, 7168);
  Result<std::vector<LayerGemm>> three = ModelGemms(Model("llama-3.1-8b"), 3);
  ASSERT_FALSE(three.ok());
  EXPECT_NE(three.status().message().find("--tp 3 must divide"), std::string::npos) << three.status().message();
}

TEST(ProbeShapes, MlaAndAllMoeModelsAreRefusedByName) {
  Result<std::vector<LayerGemm>> r = ModelGemms(Model("deepseek-r1"), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("MLA"), std::string::npos);
}

ProbeOptions SmallOptions() {
  ProbeOptions o;
  o.tokens = {16, 64, 256, 1024, 4096};
  o.top_n = 8;
  return o;
}

TEST(ProbeRun, FakeFiguresComeBackAsFractionsOfTheCataloguedPeak) {
  const sim::Hardware hw = H200();
  const FakeFigures f = FakeFigures::For(hw);
  auto backend = MakeFakeBackend(f);
  Result<ProbeResult> r = RunProbe(*backend, hw, {Model("llama-3.1-8b"), Model("llama-3.1-70b")}, SmallOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // 2 models x 2 precisions (H200: BF16 and FP8; no FP4 peak) x 4 layers x 5 token counts.
  ASSERT_EQ(r->gemm.size(), 2u * 2 * 4 * 5);
  bool fp4_note = false;
  for (const auto& n : r->notes) fp4_note |= n.find("fp4 GEMM skipped") != std::string::npos;
  EXPECT_TRUE(fp4_note);
  int default_was_best = 0;
  for (const auto& g : r->gemm) {
    const sim::Curve& c = g.precision == GemmPrecision::kBf16 ? f.bf16 : f.fp8;
    const double peak = g.precision == GemmPrecision::kBf16 ? 989.4 : 1978.9;
    EXPECT_DOUBLE_EQ(g.peak_tflops, peak);
    EXPECT_NEAR(g.TunedFraction(), c.At(static_cast<double>(g.m)), 1e-12) << g.layer << " M=" << g.m;
    // The fastest candidate sits at rank (M/16 + N/1024 + K/1024) mod 8; rank 0 is
    // 5 % slower per place behind it.
    const int fastest = static_cast<int>((g.m / 16 + g.n / 1024 + g.k / 1024) % 8);
    EXPECT_EQ(g.tuned_rank, fastest);
    EXPECT_EQ(g.candidates, 8);
    EXPECT_NEAR(g.default_seconds / g.tuned_seconds, 1.0 + 0.05 * ((8 - fastest) % 8), 1e-12);
    default_was_best += fastest == 0;
  }
  EXPECT_LT(default_was_best, static_cast<int>(r->gemm.size()));  // the tuning matters somewhere
  ASSERT_EQ(r->stream.size(), 2u);
  EXPECT_NEAR(r->stream[0].Gbps(), 0.90 * 4800, 1e-6);
  EXPECT_NEAR(r->stream[1].Gbps(), 0.88 * 4800, 1e-6);
  ASSERT_EQ(r->decode.size(), 2u);
  EXPECT_EQ(r->decode[1].problem.heads, 64);
  EXPECT_EQ(r->decode[1].problem.kv_heads, 8);
  EXPECT_NEAR(r->decode[0].Fraction(), 0.75, 1e-12);
  EXPECT_TRUE(r->collectives.empty());  // one GPU
}

TEST(ProbeRun, APrecisionTheCatalogLacksIsRefusedByName) {
  const sim::Hardware hw = H200();
  FakeFigures f = FakeFigures::For(hw);
  f.fp4_tflops = 3000;  // the device would run it, but the catalog has no H200 FP4 peak
  auto backend = MakeFakeBackend(f);
  ProbeOptions o = SmallOptions();
  o.precisions = {GemmPrecision::kFp4};
  Result<ProbeResult> r = RunProbe(*backend, hw, {Model("llama-3.1-8b")}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--precision fp4"), std::string::npos) << r.status().message();
  o.precisions.clear();
  o.tokens = {0};
  r = RunProbe(*backend, hw, {Model("llama-3.1-8b")}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--tokens"), std::string::npos);
}

TEST(ProbeRecord, JsonAndStoreRoundTripsKeepEveryFigure) {
  const sim::Hardware hw = H200();
  auto backend = MakeFakeBackend(FakeFigures::For(hw));
  Result<ProbeResult> r = RunProbe(*backend, hw, {Model("llama-3.1-8b")}, SmallOptions());
  ASSERT_TRUE(r.ok());
  Result<ProbeResult> j = ProbeFromJson(ProbeToJson(*r));
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ(ProbeToJson(*j).dump(), ProbeToJson(*r).dump());

  const fs::path dir = TempDir("store");
  auto db = store::OpenStore((dir / "runs.db").string());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  Result<store::RunInfo> run = StoreProbe(**db, *r, "probe", {{"command_line", "frontier probe"}});
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  Result<store::RunInfo> info = (*db)->GetRun(run->id);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->source, store::Source::kMeasured);
  EXPECT_EQ(info->config.at("kind"), "probe");
  EXPECT_EQ(info->config.at("hardware"), "h200");
  Result<std::vector<store::PointRecord>> points = (*db)->ListPoints(run->id);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  EXPECT_EQ(points->size(), r->gemm.size() + r->stream.size() + r->decode.size());
  Result<ProbeResult> back = LoadProbeRun(**db, run->id);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->gemm.size(), r->gemm.size());
  // Points come back in the order stored.
  for (size_t i = 0; i < r->gemm.size(); ++i) {
    EXPECT_EQ(back->gemm[i].m, r->gemm[i].m);
    EXPECT_DOUBLE_EQ(back->gemm[i].tuned_seconds, r->gemm[i].tuned_seconds);
    EXPECT_EQ(back->gemm[i].tuned_rank, r->gemm[i].tuned_rank);
  }
  EXPECT_EQ(back->notes, r->notes);
  fs::remove_all(dir);
}

TEST(ProbeFit, TheCurveFitRecoversTheFakesCurves) {
  const sim::Hardware hw = H200();
  const FakeFigures f = FakeFigures::For(hw);
  auto backend = MakeFakeBackend(f);
  Result<ProbeResult> r = RunProbe(*backend, hw, {Model("llama-3.1-8b")}, SmallOptions());
  ASSERT_TRUE(r.ok());
  Result<ProbeFit> fit = FitProbe(*r, "probe/h200#1", "2026-12-04T12:00:00Z", {});
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  ASSERT_EQ(fit->curves.size(), 2u);
  EXPECT_NEAR(fit->curves[0].curve.max, 0.75, 1e-6);
  EXPECT_NEAR(fit->curves[0].curve.half, 96, 1e-3);
  EXPECT_NEAR(fit->curves[1].curve.max, 0.65, 1e-6);
  EXPECT_NEAR(fit->curves[1].curve.half, 192, 1e-3);
  EXPECT_LT(fit->curves[0].rms_log_error, 1e-6);
  const auto& p = fit->override_file.params;
  EXPECT_EQ(p.size(), 5u);  // gemm.bf16.max/.half, gemm.fp8.max/.half, hbm
  EXPECT_NEAR(p.at("hbm").value, 0.90, 1e-12);
  EXPECT_EQ(p.count("attention.decode_bw"), 0u);  // only when asked for by name
  Result<ProbeFit> only = FitProbe(*r, "probe/h200#1", "", {"attention.decode_bw"});
  ASSERT_TRUE(only.ok());
  EXPECT_NEAR(only->override_file.params.at("attention.decode_bw").value, 0.75, 1e-12);
  Result<ProbeFit> bad = FitProbe(*r, "probe/h200#1", "", {"gemm.fp4.max"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("does not measure it"), std::string::npos);
}

// A data folder that is the catalog plus a probes/ folder of its own.
fs::path DataDirWithProbes(const std::string& name) {
  const fs::path dir = TempDir(name);
  const fs::path real = sim::DefaultDataDir();
  for (const auto& e : fs::directory_iterator(real))
    if (e.path().filename() != "probes") fs::create_directory_symlink(e.path(), dir / e.path().filename());
  return dir;
}

// The fit written as the GPU's override changes what the simulator predicts
// for a compute-bound GEMM by exactly the ratio of the efficiencies.
TEST(ProbeFit, CalibratingFromAProbeChangesThePredictedGemmEfficiency) {
  const sim::Hardware hw = H200();
  FakeFigures f = FakeFigures::For(hw);
  f.bf16 = sim::Curve{0.55, 300};  // a GPU slower than the stack's fleet-wide curve
  auto backend = MakeFakeBackend(f);
  ProbeOptions o = SmallOptions();
  o.precisions = {GemmPrecision::kBf16};
  Result<ProbeResult> r = RunProbe(*backend, hw, {Model("llama-3.1-8b")}, o);
  ASSERT_TRUE(r.ok());
  Result<ProbeFit> fit = FitProbe(*r, "probe/h200#7", "2026-12-04T12:00:00Z", {});
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();

  sim::SimSpec spec;
  spec.model = "llama-3.1-8b";
  spec.hardware = "h200";
  Result<sim::SimConfig> before = sim::ResolveSimConfig(spec);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_EQ(before->EffectiveSettings().count("gpu_override"), 0u);

  const fs::path data = DataDirWithProbes("calibrate");
  ASSERT_TRUE(sim::WriteGpuOverride(fit->override_file, sim::GpuOverridePath(data.string(), "h200")).ok());
  spec.data_dir = data.string();
  Result<sim::SimConfig> after = sim::ResolveSimConfig(spec);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->stack.id(), before->stack.id());
  EXPECT_NEAR(after->stack.params.gemm_bf16.max, 0.55, 1e-6);
  EXPECT_NEAR(after->stack.params.gemm_bf16.half, 300, 1e-2);
  EXPECT_NEAR(after->stack.params.hbm, 0.90, 1e-12);
  EXPECT_NE(after->stack.origins.at("gemm.bf16.max").source.find("probe/h200#7"), std::string::npos);
  EXPECT_EQ(after->EffectiveSettings().at("gpu_override"), sim::GpuOverridePath(data.string(), "h200"));
  // The stack's other parameters are untouched.
  EXPECT_EQ(after->stack.params.gemm_fp8, before->stack.params.gemm_fp8);
  EXPECT_EQ(after->stack.params.attn_decode_bw, before->stack.params.attn_decode_bw);

  // A 4096-token prompt: the MLP GEMMs are compute-bound, so their time goes
  // as 1 / efficiency at M = 4096 rows.
  const double m = 4096;
  const double eff_before = before->stack.params.gemm_bf16.At(m);
  const double eff_after = 0.55 * m / (m + 300);
  ASSERT_LT(eff_after, eff_before);  // the probe says this GPU is slower: predictions get slower
  sim::BatchShape s;
  s.AddPrefill(0, 4096, 0, true);
  const double t_before = sim::StepModel(*before).Cost(s).ops[sim::kOpDenseMlp].time_s;
  const double t_after = sim::StepModel(*after).Cost(s).ops[sim::kOpDenseMlp].time_s;
  EXPECT_NEAR(t_after / t_before, eff_before / eff_after, 1e-6);
  fs::remove_all(data);
}

TEST(ProbeFit, ABrokenOverrideFileIsRefusedNamingTheField) {
  const fs::path data = DataDirWithProbes("broken");
  fs::create_directories(data / "probes");
  std::ofstream(data / "probes" / "h200.json")
      << R"({"hardware": "h200", "params": {"gemm.bf16.max": {"value": 1.7, "source": "x"}}})";
  sim::SimSpec spec;
  spec.model = "llama-3.1-8b";
  spec.hardware = "h200";
  spec.data_dir = data.string();
  Result<sim::SimConfig> c = sim::ResolveSimConfig(spec);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("params.gemm.bf16.max must be in [0.01, 1]"), std::string::npos)
      << c.status().message();
  fs::remove_all(data);
}

TEST(ProbeSetup, ListsAreReadItemByItemAndABadTokenCountIsNamed) {
  Result<std::vector<int64_t>> t = ParseTokenCounts("16,64", "--tokens");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, (std::vector<int64_t>{16, 64}));
  Result<std::vector<int64_t>> bad = ParseTokenCounts("16,6x", "--tokens");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "--tokens takes comma-separated integers, got '6x'");
  EXPECT_TRUE(IsFakeBackend("fake"));
  EXPECT_FALSE(IsFakeBackend("cuda"));
}

// The flags' defaults are ProbeOptions' own: a probe with no flags runs the
// probe a library caller gets from ProbeOptions{}.
TEST(ProbeSetup, TheFlagsDefaultsOpenTheDefaultProbe) {
  ProbeFlags f;
  f.backend = "fake";
  f.hardware = "h200";
  Result<ProbeSetup> p = OpenProbe(f, sim::DefaultDataDir());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const ProbeOptions want;
  EXPECT_EQ(p->options.tp, want.tp);
  EXPECT_EQ(p->options.tokens, want.tokens);
  EXPECT_EQ(p->options.top_n, want.top_n);
  EXPECT_EQ(p->options.iterations, want.iterations);
  EXPECT_EQ(p->options.stream_bytes, want.stream_bytes);
  EXPECT_EQ(p->options.decode_batch, want.decode_batch);
  EXPECT_EQ(p->options.decode_context, want.decode_context);
  ASSERT_EQ(p->models.size(), 1u);
  EXPECT_EQ(p->models[0].name, "llama-3.1-8b");
}

// Each bound is named with its flag, its range and the value given, and
// OpenProbe refuses the flags before it opens anything.
TEST(ProbeSetup, EveryNumberOutOfItsRangeIsRefusedNamingTheFlag) {
  const std::pair<void (*)(ProbeFlags*), std::string> cases[] = {
      {[](ProbeFlags* f) { f->tp = 0; }, "--tp must be an integer in [1, 1024], got 0"},
      {[](ProbeFlags* f) { f->top_n = 65; }, "--top-n must be an integer in [1, 64], got 65"},
      {[](ProbeFlags* f) { f->iterations = 0; }, "--iterations must be an integer in [1, 10000], got 0"},
      {[](ProbeFlags* f) { f->stream_mib = int64_t{1} << 40; },
       "--stream-mib must be an integer in [1, 1048576], got 1099511627776"},
      {[](ProbeFlags* f) { f->decode_batch = -3; }, "--decode-batch must be an integer in [1, 2147483647], got -3"},
      {[](ProbeFlags* f) { f->decode_context = 0; }, "--decode-context must be an integer in [1, 2147483647], got 0"},
  };
  EXPECT_EQ(ProbeFlagsProblem(ProbeFlags{}), "");
  for (const auto& [spoil, message] : cases) {
    ProbeFlags f;
    f.backend = "fake";
    f.hardware = "h200";
    spoil(&f);
    EXPECT_EQ(ProbeFlagsProblem(f), message);
    Result<ProbeSetup> p = OpenProbe(f, sim::DefaultDataDir());
    ASSERT_FALSE(p.ok()) << message;
    EXPECT_EQ(p.status().message(), message);
  }
}

// The table is the one list of the command's flags: each once, in --help's order.
TEST(ProbeSetup, TheFlagTableListsEachFlagOnceInHelpOrder) {
  std::vector<std::string> names;
  for (const FlagRow<ProbeFlags>& row : ProbeFlagRows()) names.push_back(row.name);
  EXPECT_EQ(names, (std::vector<std::string>{"--model", "--hardware", "--probe-backend", "--tp", "--tokens",
                                             "--precision", "--top-n", "--iterations", "--stream-mib",
                                             "--decode-batch", "--decode-context", "--result-json"}));
}

}  // namespace
}  // namespace frontier::probe
