// session.h: session workloads: conversations whose turns are sent one after
// another, as agents and chat users send them (loadgen/session_runner.h runs them).
//
// A session is a list of turns. Turn k+1 is sent when turn k ended, its
// subagents (requests fanned out from turn k, sent together when it ends)
// all ended too, and then the turn's think time passed. Two kinds of prompt:
//   * as recorded (traces, workload/trace.h): each turn's prompt is complete
//     as the trace describes it (it already holds the earlier turns);
//   * growing (the multi-turn chat generator, grow_context = true): turn k
//     sends every earlier turn's prompt and the answer the server really gave
//     (its generated token ids), then turn k's new message.
// Think times are planned with the workload (sampled, capped and seeded by
// SampleThinkTimes), so a run is reproducible.
//
// Thread safety: plain values; pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "workload/request_spec.h"

namespace frontier::workload {

struct Turn {
  // As recorded: the whole prompt. Growing: the new user message only.
  RequestSpec request;
  // Wait between the end of the previous turn (and its subagents) and this
  // turn's send; -1 = not given (SampleThinkTimes fills it). Turn 0's is
  // ignored: a session starts with its first turn.
  Nanos think_ns = -1;
  // Requests fanned out when this turn ends; the next turn waits for all.
  // Their prompts are as recorded, never grown.
  std::vector<RequestSpec> subagents;
};

struct Session {
  int64_t id = 0;
  std::string name;          // the trace's session id, for the records' readers
  Nanos arrival_ns = 0;      // planned start, from the run's start (trace timestamps)
  std::vector<Turn> turns;   // at least one
};

struct SessionWorkload {
  std::vector<Session> sessions;
  bool grow_context = false;      // see the header comment
  bool arrivals_given = false;    // sessions carry planned starts (trace timestamps)
};

// Think times: exponential with mean `mean_ms`, capped at `max_ms`, from its
// own stream seeded with `seed`. mean_ms = 0 gives 0.
struct ThinkTimeOptions {
  double mean_ms = 0;
  double max_ms = 60'000;
  uint64_t seed = 0;
};

// Fills every turn's think_ns that is -1, in session then turn order.
// InvalidArgument naming the flag for a negative mean or cap.
Status SampleThinkTimes(const ThinkTimeOptions& options, SessionWorkload* workload);

// Requests in the workload (turns and subagents).
int64_t CountRequests(const SessionWorkload& workload);

// The requests (turns and subagents) a run of `sessions` sessions sends, the
// workload's sessions reused cyclically; saturating at INT64_MAX.
int64_t CountRunRequests(const SessionWorkload& workload, int64_t sessions);

// InvalidArgument naming `flag` when a run of `sessions` sessions sends more
// than kMaxRunRequests (core/limits.h); judged before anything is planned.
Status CheckRunRequests(const SessionWorkload& workload, int64_t sessions, const std::string& flag);

// Rejects a workload the runner cannot run (no sessions, a session without
// turns, a turn with no prompt), naming the session and turn.
Status CheckSessions(const SessionWorkload& workload);

}  // namespace frontier::workload
