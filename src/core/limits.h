// limits.h: bounds on the size of one run, shared by every way of asking for
// one (bench and simulate flags, sweep plans, the simulator). A request for
// more is refused with a message naming the bound; docs/limits.md lists them
// with the bounds on files (core/atomic_file.h) and numbers (store/records.h).
//
// Thread safety: constants.
#pragma once

#include <cstdint>

namespace frontier {

// Requests of one run or sweep point, warm-up included (each holds a record
// of its token events in memory until the run is summarised).
inline constexpr int64_t kMaxRunRequests = 10'000'000;
// Prompt tokens a random workload holds in memory for one run (4 bytes each).
inline constexpr int64_t kMaxRunPromptTokens = 1'000'000'000;
// Tokens of one request's prompt or output.
inline constexpr int64_t kMaxRequestLength = 10'000'000;
// Memory one simulated run may spend on its request records, by default
// (frontier simulate --max-memory-mb overrides it).
inline constexpr int64_t kDefaultSimMemoryBytes = int64_t{1} << 30;

}  // namespace frontier
