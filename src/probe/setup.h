// setup.h: what `frontier probe`'s flags name (ProbeFlags, their one table
// ProbeFlagRows, which cli/ binds, and their validator), read into the
// probe's terms: the comma-separated token counts, precisions and models,
// whether the fake backend is chosen, the catalog GPU a device's name is, and
// the probe they make together (OpenProbe: its backend open).
//
// Thread safety: safe from any thread (IsFakeBackend reads the environment)
// but OpenProbe, which opens a backend (open.h: not thread-safe).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/flag_table.h"
#include "core/status.h"
#include "probe/backend.h"
#include "probe/probe.h"
#include "sim/engine/hardware.h"
#include "sim/engine/model.h"

namespace frontier::probe {

// "16,64,256" as GEMM rows M; InvalidArgument naming `flag` and the item that
// is not an integer.
Result<std::vector<int64_t>> ParseTokenCounts(const std::string& text, const std::string& flag);

// "bf16,fp8" as precisions; InvalidArgument naming `flag` (ParseGemmPrecision).
Result<std::vector<GemmPrecision>> ParseGemmPrecisions(const std::string& text,
                                                       const std::string& flag);

// The catalog models named in a comma-separated list, from `dir`.
Result<std::vector<sim::ModelSpec>> LoadModels(const std::string& text, const std::string& dir);

// Whether backend `name` is the fake one: "fake", or "auto" with
// $FRONTIER_PROBE_BACKEND=fake (open.h's rule).
bool IsFakeBackend(const std::string& name);

// The catalog entry whose name or alias appears in the device's name, when
// exactly one does; InvalidArgument saying --hardware is needed otherwise.
Result<sim::Hardware> GuessHardware(const std::string& device, const std::string& dir);

// What `frontier probe`'s flags name, as given; the counts (its base:
// --tp, --top-n, --iterations, --decode-batch, --decode-context) with
// ProbeOptions' defaults.
struct ProbeFlags : ProbeCounts {
  std::string models = "llama-3.1-8b";  // --model: catalog models, comma-separated
  std::string hardware;                 // --hardware: catalog GPU ("": guessed from the device's name)
  std::string backend = "auto";         // --probe-backend (open.h)
  std::string tokens, precisions;       // --tokens, --precision ("": the defaults)
  int64_t stream_mib = kDefaultStreamMib;  // --stream-mib: MiB per array of the HBM kernels
  std::string result_json;              // --result-json: the figures' file ("": none)
};

// The flags that fill a ProbeFlags, in --help's order (group "Options"); the
// --db group is the command's own.
std::span<const FlagRow<ProbeFlags>> ProbeFlagRows();

// "" when the numbers fit, else the usage message naming the flag and its
// range: --tp in [1, 1024], --top-n in [1, kMaxTopN], --iterations in
// [1, kMaxIterations], --stream-mib in [1, 1048576], --decode-batch and
// --decode-context at least 1.
std::string ProbeFlagsProblem(const ProbeFlags& flags);

// A probe ready to run.
struct ProbeSetup {
  std::unique_ptr<ProbeBackend> backend;
  sim::Hardware hardware;               // the catalog GPU the fractions are of
  std::vector<sim::ModelSpec> models;   // whose layer shapes are probed
  ProbeOptions options;
};

// Reads `flags` against the catalogs under `dir`, opens the backend (the
// fake with --hardware's peaks) and, without --hardware, guesses the catalog
// GPU from the device's name. InvalidArgument naming the flag at fault
// (ProbeFlagsProblem's, a list, the fake backend without --hardware);
// the catalog's, OpenBackend's or GuessHardware's error.
Result<ProbeSetup> OpenProbe(const ProbeFlags& flags, const std::string& dir);

}  // namespace frontier::probe
