// timing.h: the seam between the HTTP server and whatever decides when each
// request's tokens come out.
//
// The server admits a request with Add(), asks NextWakeup() when it next has
// work, and at or after that time calls Poll() to collect the token emissions
// that are due. Two implementations:
//   FixedTiming (fixed_timing.h): first event ttft after arrival, then one
//     event every itl, each with K tokens; requests do not interact.
//   SimTiming (sim_timing.h): the simulator's continuous-batching engine,
//     stepped in wall-clock time; each iteration lasts the modelled step time.
//
// All times are the server's clock's nanoseconds (Server::Create; SteadyClock
// unless a test injects another), passed in: a source never reads a clock.
// It maps its modelled time onto them (dividing durations by the time scale).
//
// Thread safety: not synchronised; the server calls it from its loop thread.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace frontier::serve {

inline constexpr Nanos kNever = std::numeric_limits<Nanos>::max();

// One event of one request: `tokens` new tokens, due at `due_ns`. `last` is
// true on the event that completes the output length given to Add().
struct Emission {
  uint64_t id = 0;
  int32_t tokens = 0;
  Nanos due_ns = 0;
  bool last = false;
};

struct EngineStats {
  int64_t running = 0;       // requests in the running batch
  int64_t waiting = 0;       // admitted, not yet scheduled
  double kv_usage = 0.0;     // fraction of KV-cache blocks in use, [0, 1]
  int64_t steps = 0;         // engine iterations so far (0 for FixedTiming)
  int64_t preemptions = 0;   // requests preempted so far
  // Prefix cache (SimTiming only; sim/engine/worker.h): prompt tokens looked up and
  // found at first admission; -1 when the source has no prefix cache.
  int64_t prefix_queries = -1, prefix_hits = -1;
};

class TimingSource {
 public:
  virtual ~TimingSource() = default;

  // Admits request `id` (unique, never reused) at wall time `now`. It will
  // produce exactly `output_tokens` tokens unless cancelled. `tokens`, when
  // given, are the request's token ids, prompt then answer (what a prefix
  // cache keys on; FixedTiming ignores them).
  // Fails (and admits nothing) when the request can never run, e.g. it needs
  // more KV cache than the whole engine has; the message says why.
  virtual Status Add(uint64_t id, int32_t prompt_tokens, int32_t output_tokens, Nanos now,
                     std::span<const int32_t> tokens = {}) = 0;

  // Forgets `id` at once: frees its batch slot and KV blocks; no more
  // emissions for it. Unknown ids are ignored.
  virtual void Cancel(uint64_t id) = 0;

  // Earliest wall time at which Poll() has work; kNever when idle.
  virtual Nanos NextWakeup() const = 0;

  // Appends every emission due at or before `now` to `out`, in due order.
  virtual void Poll(Nanos now, std::vector<Emission>& out) = 0;

  virtual EngineStats Stats() const = 0;

  // Longest prompt + output the engine accepts, in tokens.
  virtual int64_t context_length() const = 0;
};

}  // namespace frontier::serve
