// setup.cc: `frontier probe`'s lists, the catalog GPU of a device and the probe its flags open.
#include "probe/setup.h"

#include <climits>
#include <cstdlib>

#include "core/ascii.h"
#include "core/parse.h"
#include "core/split.h"
#include "probe/open.h"

namespace frontier::probe {
namespace {

using F = ProbeFlags;
const FlagRow<F> kFlags[] = {
    {"--model", &F::models, "Catalog models whose layer shapes are probed, comma-separated [llama-3.1-8b]", "Options"},
    {"--hardware", &F::hardware, "Catalog GPU whose peaks the fractions are of [guessed from the device's name]",
     "Options"},
    {"--probe-backend", &F::backend,
     "auto, cuda or fake (deterministic figures, no GPU) [auto: $FRONTIER_PROBE_BACKEND, else cuda]", "Options"},
    {"--tp", &F::tp, "Tensor parallelism the layer shapes are split by [1]", "Options"},
    {"--tokens", &F::tokens, "GEMM rows M (tokens per step), comma-separated [16,64,256,1024,4096]", "Options"},
    {"--precision", &F::precisions, "GEMM precisions, comma-separated: bf16, fp8, fp4 [every one the GPU has]",
     "Options"},
    {"--top-n", &F::top_n, "Algorithms of the library's heuristic timed per GEMM [8]", "Options"},
    {"--iterations", &F::iterations, "Timed launches per algorithm and kernel [10]", "Options"},
    {"--stream-mib", &F::stream_mib, "MiB per array of the HBM copy and triad kernels [1024]", "Options"},
    {"--decode-batch", &F::decode_batch, "Sequences of the decode-attention step [64]", "Options"},
    {"--decode-context", &F::decode_context, "Cached tokens per sequence of the decode step [4096]", "Options"},
    {"--result-json", &F::result_json, "Write the probe's figures to this JSON file", "Options"},
};

}  // namespace

std::span<const FlagRow<ProbeFlags>> ProbeFlagRows() { return kFlags; }

std::string ProbeFlagsProblem(const ProbeFlags& f) {
  struct Bound {
    const char* flag;
    int64_t value, min, max;
  };
  for (const Bound& b : {Bound{"--tp", f.tp, 1, 1024}, Bound{"--top-n", f.top_n, 1, kMaxTopN},
                         Bound{"--iterations", f.iterations, 1, kMaxIterations},
                         Bound{"--stream-mib", f.stream_mib, 1, int64_t{1} << 20},
                         Bound{"--decode-batch", f.decode_batch, 1, INT_MAX},
                         Bound{"--decode-context", f.decode_context, 1, INT_MAX}})
    if (Status in = CheckRange(b.flag, b.value, b.min, b.max); !in.ok()) return in.message();
  return "";
}

Result<std::vector<int64_t>> ParseTokenCounts(const std::string& text, const std::string& flag) {
  std::vector<int64_t> out;
  for (const auto& t : SplitNonEmpty(text, ',')) {
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (end != t.c_str() + t.size())
      return InvalidArgument(flag + " takes comma-separated integers, got '" + t + "'");
    out.push_back(v);
  }
  return out;
}

Result<std::vector<GemmPrecision>> ParseGemmPrecisions(const std::string& text,
                                                       const std::string& flag) {
  std::vector<GemmPrecision> out;
  for (const auto& p : SplitNonEmpty(text, ',')) {
    FRONTIER_ASSIGN_OR_RETURN(GemmPrecision gp, ParseGemmPrecision(p, flag));
    out.push_back(gp);
  }
  return out;
}

Result<std::vector<sim::ModelSpec>> LoadModels(const std::string& text, const std::string& dir) {
  std::vector<sim::ModelSpec> specs;
  for (const auto& m : SplitNonEmpty(text, ',')) {
    FRONTIER_ASSIGN_OR_RETURN(sim::ModelSpec spec, sim::LoadModel(m, dir));
    specs.push_back(std::move(spec));
  }
  return specs;
}

bool IsFakeBackend(const std::string& name) {
  const char* env = std::getenv("FRONTIER_PROBE_BACKEND");
  return name == "fake" || (name == "auto" && env && std::string(env) == "fake");
}

Result<sim::Hardware> GuessHardware(const std::string& device, const std::string& dir) {
  const std::string d = AsciiLower(device);
  std::vector<sim::Hardware> hits;
  for (const auto& name : sim::ListHardware(dir)) {
    Result<sim::Hardware> hw = sim::LoadHardware(name, dir);
    if (!hw.ok()) continue;
    std::vector<std::string> names = hw->aliases;
    names.push_back(hw->name);
    for (const auto& n : names)
      if (d.find(AsciiLower(n)) != std::string::npos) {
        hits.push_back(*hw);
        break;
      }
  }
  if (hits.size() == 1) return hits.front();
  return InvalidArgument("--hardware is needed: the device '" + device + "' matches " +
                         std::to_string(hits.size()) +
                         " catalog entries (frontier simulate --list-hardware names them)");
}

Result<ProbeSetup> OpenProbe(const ProbeFlags& flags, const std::string& dir) {
  if (std::string bad = ProbeFlagsProblem(flags); !bad.empty()) return InvalidArgument(bad);
  ProbeSetup p;
  static_cast<ProbeCounts&>(p.options) = flags;
  if (!flags.tokens.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(p.options.tokens, ParseTokenCounts(flags.tokens, "--tokens"));
  }
  FRONTIER_ASSIGN_OR_RETURN(p.options.precisions, ParseGemmPrecisions(flags.precisions, "--precision"));
  p.options.stream_bytes = flags.stream_mib << 20;
  FRONTIER_ASSIGN_OR_RETURN(p.models, LoadModels(flags.models, dir));
  // The fake needs the catalog's peaks before it exists; a GPU names itself.
  if (!flags.hardware.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(p.hardware, sim::LoadHardware(flags.hardware, dir));
  }
  if (IsFakeBackend(flags.backend) && flags.hardware.empty())
    return InvalidArgument("the fake backend needs --hardware: the catalog GPU whose peaks it stands in for");
  FRONTIER_ASSIGN_OR_RETURN(p.backend, OpenBackend(flags.backend, p.hardware));
  if (flags.hardware.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(p.hardware, GuessHardware(p.backend->Info().name, dir));
  }
  return p;
}

}  // namespace frontier::probe
