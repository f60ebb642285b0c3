// setup.h: what `frontier probe`'s flags name, read into the probe's terms:
// the comma-separated token counts, precisions and models, whether the fake
// backend is chosen, and the catalog GPU a device's name is.
//
// Thread safety: safe from any thread (IsFakeBackend reads the environment).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "probe/probe.h"
#include "sim/engine/hardware.h"
#include "sim/engine/model.h"

namespace frontier::probe {

// The non-empty items of a comma-separated list.
std::vector<std::string> SplitCommaList(const std::string& text);

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

}  // namespace frontier::probe
