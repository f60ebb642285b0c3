// session_runner.h: the load core for session workloads (workload/session.h):
// conversations whose turns depend on each other, run on any Target (a
// server over HTTP, or the simulator on its virtual clock) with the same
// records, rebasing and stop handling as RunLoad (runner.h).
//
//   workload::SessionWorkload w = ...;               // trace, multi-turn generator
//   workload::LoadOptions load;                      // read as below
//   Result<RunResult> r = RunSessions(target, w, load, RunOptions{}, &observer, &stop);
//
// How LoadOptions reads for sessions:
//   * max_concurrency: sessions open at once (a session holds its slot from
//     its first send until its last request ended);
//   * request_rate: sessions started per second (--session-rate), with
//     burstiness, planned before the run (workload/arrival.h); infinite: the
//     sessions' own arrival times when the workload has them (traces), else
//     all at time zero;
//   * num_prompts: sessions run (the workload's sessions reused cyclically
//     when it asks for more);
//   * duration_s: no session starts and no turn is sent after it; requests
//     in flight end, and unfinished sessions end with reason "duration";
//   * warmup must be 0.
//
// Schedule of one session (times on the Target's clock): turn 0 is sent when
// the session starts; when turn k ended, its subagents are all sent at that
// instant; when the last of them ended (or turn k, without subagents), turn
// k+1 is sent think_ns later. A record's scheduled_ns is that planned
// instant, so a slow Target shows as client queue time. A turn that fails
// ends its session (reason "turn K: <failure code>"); a cancelled request
// ends it with reason "cancelled"; other sessions go on. Requests already in
// flight for an ended session run to completion.
//
// Growing sessions (grow_context): turn k's prompt is the session's context
// (turn k-1's prompt as sent, then the answer it got) plus turn k's message.
//   * Token-id prompts: the answer is the record's output_token_ids
//     (requested with want_output_ids and moved out of the record into the
//     context). A Target that answers as text (TextAnswers, text_answers.h:
//     HTTP) is refused (InvalidArgument): without the server's tokenizer its text
//     cannot join token ids.
//   * Text prompts: the context is turn k-1's prompt text, the answer's text
//     as the Target streamed it (TextAnswers::TakeAnswerText, requested with
//     want_output_ids), "\n", then turn k's message text; the prompt's
//     input_len is turn k-1's input_len plus the answer's output tokens plus
//     the message's. A Target that answers in ids (the simulator) is asked
//     for no text: it reads only the lengths.
// A turn whose answer was expected and did not come (tokens generated, no
// ids or text returned) is counted in the result's effective settings
// ("session_answers_missing").
//
// Ideal hit rate: every token-id prompt is fed to a PrefixHitCounter
// (workload/prefix_blocks.h) as it is sent, and every answered context is
// cached, so RunResult::ideal_prefix_hit_rate is what an infinite prefix
// cache could have hit in this run's send order.
//
// Thread safety: as RunLoad.
#pragma once

#include <atomic>

#include "core/run_result.h"
#include "core/status.h"
#include "loadgen/runner.h"
#include "loadgen/target.h"
#include "workload/load.h"
#include "workload/session.h"

namespace frontier::loadgen {

// Fails (InvalidArgument) on bad options or a workload CheckSessions rejects.
Result<RunResult> RunSessions(Target& target, const workload::SessionWorkload& workload,
                              const workload::LoadOptions& load, const RunOptions& options, Observer* observer,
                              const std::atomic<bool>* stop, int ideal_block_tokens = 16);

}  // namespace frontier::loadgen
