// saturation.h: tells an over-saturated open-loop run (arrivals faster than
// the system completes them, so its queue grows without bound) early, so a
// search can stop the trial instead of running it to the end.
//
// Definition. Times are from the start of the measured phase. Let
//   A(t) = measured requests planned to arrive at or before t,
//   E(t) = measured requests that ended (ok or failed) at or before t,
//   B(t) = A(t) - E(t), the backlog: waiting in the client, queued or in
//          service at the server.
//   S(t) = the longest decode time (end - first token) plus the shortest time
//          to first token (first token - send) among requests that ended ok by
//          t: a service time that stays bounded when the server is overloaded
//          (its batch is capped), unlike the queueing part of TTFT.
// Checkpoints are t_k = k x interval. Checkpoint k, with j = floor(k / 2)
// (the span is the latest half of the elapsed time), holds when
//   (1) a request ended ok by t_k and t_j >= settle_factor x S(t_k): the span
//       starts after a stable system's backlog has had time to build up to
//       its steady level (a request entering at 0 has left by then);
//   (2) A(t_k) - A(t_j) >= min_span_arrivals; and
//   (3) B(t_k) - B(t_j) >= min_lag_fraction x (A(t_k) - A(t_j)): over the
//       span, completions fell short of arrivals by that fraction.
// The run is over-saturated at the `confirmations`-th consecutive checkpoint
// that holds. A stable system's backlog is stationary once settled, so (3)
// needs a fluctuation of a fixed fraction of a growing span; a system whose
// capacity is below (1 - min_lag_fraction) x the arrival rate meets (3) at
// every checkpoint once (1) and (2) hold. Closer to capacity than that, the
// run goes to its end (and its latencies judge it). Closed-loop runs
// (everything planned at 0) have nothing to detect: A is constant.
//
// Thread safety: a detector is used from one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/run_result.h"

namespace frontier::loadgen {

struct SaturationOptions {
  Nanos interval = kNanosPerSecond;   // between checkpoints
  double min_lag_fraction = 0.2;      // (3)
  int64_t min_span_arrivals = 100;    // (2)
  double settle_factor = 2.0;         // (1)
  int confirmations = 3;              // consecutive checkpoints
};

struct SaturationFinding {
  Nanos at = 0;                 // the checkpoint that confirmed it
  Nanos span_start = 0;         // t_j
  int64_t span_arrivals = 0;    // A(t_k) - A(t_j)
  int64_t span_ended = 0;       // E(t_k) - E(t_j)
  int64_t backlog = 0;          // B(t_k)
  // One line: "at 21.0 s: 110 arrived and 55 ended in the last 11.0 s
  // (10.00 vs 5.00 req/s), backlog 118 and growing".
  std::string Describe() const;
};

class SaturationDetector {
 public:
  // `arrivals`: the measured requests' planned times from the measured
  // phase's start, in any order.
  explicit SaturationDetector(std::vector<Nanos> arrivals, SaturationOptions options = {});

  // A measured request ended; times from the measured phase's start,
  // first_token < 0 when it had none.
  void OnEnded(Nanos sent, Nanos first_token, Nanos end, bool ok);

  // Evaluates, in order, every checkpoint at or before `now` not evaluated
  // yet. REQUIRES: every request that ended at or before `now` was reported.
  // Returns the finding once a checkpoint confirms it (and from then on).
  const std::optional<SaturationFinding>& Advance(Nanos now);

  const std::optional<SaturationFinding>& finding() const { return finding_; }

 private:
  struct Ended {
    Nanos end, decode, ttft;
    bool ok;
    bool operator>(const Ended& o) const { return end > o.end; }
  };
  void Evaluate(int64_t k);

  SaturationOptions o_;
  std::vector<Nanos> arrivals_;  // sorted
  std::priority_queue<Ended, std::vector<Ended>, std::greater<Ended>> pending_;  // not yet counted
  int64_t next_k_ = 1;
  int64_t ended_ = 0;            // E at the last checkpoint
  bool any_ok_ = false;
  Nanos max_decode_ = 0, min_ttft_ = 0;
  std::vector<int64_t> arrived_at_, backlog_at_, ended_at_;  // per checkpoint k (index k)
  int streak_ = 0;
  std::optional<SaturationFinding> finding_;
};

}  // namespace frontier::loadgen
