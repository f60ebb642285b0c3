// cancel.h: which requests the client abandons, as users abandon answers
// (`--cancel-fraction F` with `--cancel-after-tokens K` or `--cancel-after-ms T`).
//
// Exactly round(F x n) of the n requests are chosen, by a seeded shuffle of
// their own stream; each chosen request's spec gets cancel_after_tokens = K
// or cancel_after_ns = T. The load core (loadgen/runner.h) and the Target
// carry it out: the request is aborted (its connection closed, or the
// simulator drops it) after its K-th output token arrived, or T after it was
// sent, and it ends with RequestRecord::cancelled set. A request that ends
// before its cancel point ends normally.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "workload/request_spec.h"
#include "workload/session.h"

namespace frontier::workload {

struct CancelOptions {
  double fraction = 0;        // F in [0, 1]
  int32_t after_tokens = 0;   // K >= 1, or
  Nanos after_ns = 0;         // T > 0 (exactly one of the two when F > 0)
  uint64_t seed = 0;
};

// InvalidArgument naming the flag for an F outside [0, 1] or not exactly one of K and T.
Status CheckCancelOptions(const CancelOptions& options);

// Marks the chosen requests. Returns how many were marked.
Result<int64_t> ApplyCancellation(const CancelOptions& options, std::span<RequestSpec> specs);
// The same over every request of a session workload (turns and subagents, in order).
Result<int64_t> ApplyCancellation(const CancelOptions& options, SessionWorkload* workload);

}  // namespace frontier::workload
