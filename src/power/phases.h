// phases.h: a measured window's energy split by what the server was doing.
//
//   Result<EnergyPhases> p = SplitByPhase(readings, devices, run.requests,
//                                         run.origin_ns, first_ns, last_ns, slice_ns);
//
// The window [first, last] (request times, relative to origin) is cut into
// windows of slice_ns (the last one shorter). Each request's prefill is
// [sent, first token] (to its end when no token came) and its flight
// [sent, end]. A window is
//   - prefill: some request's prefill overlaps it;
//   - decode:  some request is in flight in it, none in prefill;
//   - idle:    nothing is in flight.
// Each window's joules come from Integrate over it (power/integrate.h); output
// tokens are counted where their events arrived. Warm-up requests count too:
// the GPUs draw power for them. A prompt counts for the prefill when its
// prefill overlaps [first, last].
//
// With a closed loop at a steady concurrency most windows hold some prefill
// (a request starts whenever one ends); decode-only windows appear where
// prefills cluster: waves, bursts, long outputs. A window shorter than two
// power readings mostly interpolates, so callers pass at least that.
//
// Fails when Integrate fails over the whole window, or when the windows would
// number more than kMaxPhaseWindows.
//
// Thread safety: pure.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/run_result.h"
#include "core/status.h"
#include "power/source.h"

namespace frontier::power {

inline constexpr int64_t kMaxPhaseWindows = 1'000'000;

Result<EnergyPhases> SplitByPhase(std::span<const PowerReading> readings, const std::vector<std::string>& devices,
                                  const std::vector<RequestRecord>& requests, Nanos origin_ns, Nanos first_ns,
                                  Nanos last_ns, Nanos slice_ns);

}  // namespace frontier::power
