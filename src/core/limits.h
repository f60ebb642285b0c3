// limits.h: bounds on the size of one run, shared by every way of asking for
// one (bench and simulate flags, sweep plans, the simulator). A request for
// more is refused with a message naming the bound; docs/limits.md lists them
// with the bounds on files (core/atomic_file.h), and bounds on the numbers a
// result holds.
//
// Thread safety: constants.
#pragma once

#include <cstdint>
#include <limits>

namespace frontier {

// Requests of one run or sweep point, warm-up included (each holds a record
// of its token events in memory until the run is summarised).
inline constexpr int64_t kMaxRunRequests = 10'000'000;
// Concurrency of one run or point: --concurrency, --max-concurrency, a plan's
// concurrency and max_concurrency, a result's or a stored point's. It is the
// requests of a run, not a separate limit: a concurrency above the requests a
// run may send means nothing, as no more than those can ever be in flight.
inline constexpr int64_t kMaxConcurrency = kMaxRunRequests;
// Prompt tokens a random workload holds in memory for one run (4 bytes each).
inline constexpr int64_t kMaxRunPromptTokens = 1'000'000'000;
// Tokens of one request's prompt or output.
inline constexpr int64_t kMaxRequestLength = 10'000'000;
// Memory one simulated run may spend on its request records, by default
// (frontier simulate --max-memory-mb overrides it).
inline constexpr int64_t kDefaultSimMemoryBytes = int64_t{1} << 30;
// Length of one run's schedule (arrivals, scenario durations, trace times):
// 1e9 s, so every planned time and any sum of two fits int64 nanoseconds.
inline constexpr double kMaxRunSeconds = 1e9;
inline constexpr int64_t kMaxRunNanos = 1'000'000'000'000'000'000;
// Shards of one bench run (--shard INDEX/COUNT, a shard description's shard_count).
inline constexpr int64_t kMaxShards = 1'000'000;

// The physical range of every number a result holds, checked where a number
// comes in from outside (a result file read back or imported, a database
// row): wider than any real system, narrow enough that sums and ratios of
// them stay finite. docs/limits.md lists them.
namespace bounds {
inline constexpr int64_t kMaxGpus = 1'000'000;
inline constexpr int64_t kMaxRequests = 1'000'000'000'000;         // per point
inline constexpr int64_t kMaxTokens = 1'000'000'000'000'000;       // per point, input or output
inline constexpr int64_t kMaxRequestTokens = std::numeric_limits<int32_t>::max();  // one request
inline constexpr double kMaxThroughput = 1e9;     // tokens or requests per second
inline constexpr double kMaxLatencyMs = 1e9;      // about 11.6 days
inline constexpr double kMaxDurationS = 1e9;
inline constexpr double kMaxRequestRate = 1e9;    // load value of a finite request-rate point
inline constexpr double kInfiniteRate = 1e300;    // load value of request_rate=inf (SQLite has no inf)
inline constexpr double kMaxProbeSize = 1e15;     // load value of a probe point: GEMM rows, bytes, ...
inline constexpr int64_t kMaxRepetition = 1'000'000;
inline constexpr int64_t kMaxAttempts = 1'000;
inline constexpr double kMaxPowerW = 1e8;         // a point's summed power: 100 MW
inline constexpr double kMaxEnergyJ = 1e17;       // kMaxPowerW over kMaxDurationS
inline constexpr double kMaxTokensPerJoule = 1e9;
}  // namespace bounds

}  // namespace frontier
