// trace.h: session traces: frontier's JSONL schema, importers for public
// trace formats, and turning a trace into a session workload whose token
// ids carry exactly the sharing the trace describes. docs/workloads.md has
// the schema with examples.
//
// frontier's schema ("frontier"): one session per line,
//   {"session_id": "s1", "arrival_ms": 0,
//    "turns": [{"input_length": 1100, "output_length": 64, "hash_ids": [0, 1, 2],
//               "think_ms": 250,
//               "subagents": [{"input_length": 600, "output_length": 32, "hash_ids": [0, 7]}]}]}
// session_id (string or integer) and arrival_ms (offset from the trace's
// start; default 0) are optional; turns is required. A turn's input_length
// and output_length are tokens (>= 1); hash_ids name the prompt's blocks of
// `block_tokens` tokens in order (the last block may be partial), at most
// ceil(input_length / block_tokens) of them; tokens past the named blocks
// are unique to the request. think_ms (optional) is the wait after the
// previous turn ended; without it the think time is sampled.
//
// Mooncake ("mooncake"): one request a line, {"timestamp": MS,
// "input_length": N, "output_length": N, "hash_ids": [...]}, the format of
// the traces published with Mooncake (kvcache-ai/Mooncake,
// FAST25-release/*.jsonl; 512-token blocks) and replayed by AIPerf's
// mooncake_trace dataset. Each line becomes a one-turn session arriving at
// `timestamp` milliseconds.
//
// Agentic sessions ("agentic"): the multi-turn form of the same lines, as
// AIPerf's trace loader reads them: {"session_id": "...", "input_length",
// "output_length", "hash_ids", "delay": MS}; lines with the same session_id
// are that session's turns in file order, `delay` is the think time before
// the turn (timestamp may not be given with session_id or delay). Sessions
// start at time 0 unless --session-rate spreads them. Converters of
// agentic-coding tool logs (such as AIPerf's NeMo Agent Toolkit profiler
// converter) write this form.
//
// Thread safety: pure functions (they read files).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/limits.h"
#include "core/status.h"
#include "workload/session.h"

namespace frontier::workload {

enum class TraceFormat { kAuto, kFrontier, kMooncake, kAgentic };
const char* TraceFormatName(TraceFormat f);
Result<TraceFormat> ParseTraceFormat(std::string_view name);  // "auto", "frontier", "mooncake", "agentic"

struct TraceRequest {
  int32_t input_length = 0;
  int32_t output_length = 0;
  std::vector<int64_t> hash_ids;
};

struct TraceTurn {
  TraceRequest request;
  std::optional<Nanos> think_ns;  // unset: sampled
  std::vector<TraceRequest> subagents;
};

struct TraceSession {
  std::string id;
  Nanos arrival_ns = 0;
  std::vector<TraceTurn> turns;
};

// The Mooncake traces' block size.
inline constexpr int32_t kMooncakeBlockTokens = 512;

// What a trace reader keeps and the bounds it counts against.
struct TraceLimits {
  // Sessions kept, in order of first appearance (0: all). The lines of the
  // others are still parsed and checked, but not held.
  int64_t max_sessions = 0;
  // Requests (turns and subagents) of the kept sessions: the bound on one
  // run's requests (core/limits.h). A trace past it is refused at the line
  // that passes it, before its sessions are built.
  int64_t max_requests = kMaxRunRequests;
};

// Parses trace text (`name` names it in errors: "file:line: field ...").
// kAuto reads the first non-blank line: "turns" -> frontier, "session_id"
// -> agentic, else mooncake. InvalidArgument naming the line and field, or
// the line at which the kept sessions pass a bound of `limits`, of the
// input bound on what they hold, or of the prompt tokens a run holds.
Result<std::vector<TraceSession>> ParseTrace(std::string_view text, TraceFormat format, int32_t block_tokens,
                                             const std::string& name, const TraceLimits& limits = {});
// Reads and parses a trace file, one line at a time (core/line_reader.h:
// the file's bound and the bound on one line). NotFound for a missing file.
Result<std::vector<TraceSession>> ReadTrace(const std::string& path, TraceFormat format, int32_t block_tokens,
                                            const TraceLimits& limits = {});

// frontier's schema, one session a line (think_ms and arrival_ms written
// exactly, in milliseconds with up to six decimals).
std::string WriteTrace(const std::vector<TraceSession>& sessions);

struct TraceBuildOptions {
  int32_t block_tokens = kMooncakeBlockTokens;
  int32_t vocab_size = 32000;
  uint64_t seed = 0;  // salts the token ids; the same seed gives the same tokens
};

// The session workload: token-id prompts built block by block from the hash
// ids (HashIdTokens), as recorded (grow_context = false), arrivals from the
// trace. Think times the trace does not give stay -1 (SampleThinkTimes).
SessionWorkload BuildTraceSessions(const std::vector<TraceSession>& trace, const TraceBuildOptions& options);

}  // namespace frontier::workload
