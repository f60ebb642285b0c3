// run_result.h: the records every benchmark run produces, measured or simulated.
//
// A measured run (`frontier bench` against an HTTP server) and a simulated run
// (`frontier simulate`) fill the same RunResult; `source` tells them apart.
// Everything downstream (metrics, store, analysis, report) reads only these
// types, so it is written once for both.
//
// All times are nanoseconds relative to the run's start (time zero is when the
// load generator began issuing, or virtual time zero in the simulator).
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/prediction_band.h"

namespace frontier {

// One content-bearing stream event (an SSE chunk with generated text or
// token ids). `t_ns` is the time of the socket read that completed the event,
// taken before any parsing; `tokens` is how many tokens it carried (> 1 under
// speculative decoding / MTP or when a server batches tokens).
struct TokenEvent {
  Nanos t_ns = 0;
  int32_t tokens = 1;
};

// Why a request failed. Stable strings: they are stored and counted.
namespace failure {
inline constexpr const char* kConnect = "connect";                 // refused / unreachable
inline constexpr const char* kDns = "dns";                         // name did not resolve
inline constexpr const char* kTls = "tls";                         // TLS handshake / certificate
inline constexpr const char* kHttpStatus = "http_status";          // 4xx/5xx other than 429
inline constexpr const char* kRateLimited = "http_429";
inline constexpr const char* kConnectTimeout = "timeout_connect";
inline constexpr const char* kFirstTokenTimeout = "timeout_first_token";
inline constexpr const char* kTotalTimeout = "timeout_total";
inline constexpr const char* kMalformed = "malformed_stream";     // bad SSE framing or JSON
inline constexpr const char* kClosedMidStream = "closed_mid_stream";
inline constexpr const char* kNoTokens = "zero_tokens";
inline constexpr const char* kInterrupted = "interrupted";        // run stopped by SIGINT
inline constexpr const char* kSimulatorRejected = "rejected";     // simulator could not admit it
inline constexpr const char* kOther = "other";
// Not a failure: the client abandoned the request on purpose
// (--cancel-fraction); counted apart and left out of latency metrics.
inline constexpr const char* kCancelled = "cancelled";
}  // namespace failure

// The server's own account of one request's timing, when its stream gives
// one (llama.cpp's server: "timings" in the last chunk). Durations are the
// server's clock; -1 where not given.
struct ServerTimings {
  int32_t prompt_n = -1;       // prompt tokens it evaluated (those served from its cache left out)
  double prompt_ms = -1;       // prompt processing, up to the first token
  int32_t predicted_n = -1;    // tokens generated
  double predicted_ms = -1;    // from the first token being ready to the last
  bool given() const { return prompt_ms >= 0 || predicted_ms >= 0; }
};

struct RequestRecord {
  int64_t id = 0;                    // position in the workload, from 0
  bool warmup = false;               // excluded from every metric
  int32_t prompt_tokens = 0;         // server's usage.prompt_tokens, else the workload's count
  int32_t output_tokens = 0;         // server's usage.completion_tokens, else sum of event tokens
  int32_t requested_output_tokens = 0;
  bool usage_reported = false;       // token counts came from the server's usage
  Nanos scheduled_ns = 0;            // planned send time
  Nanos sent_ns = 0;                 // time the request was handed to the transport
  Nanos first_token_ns = -1;         // first content event; -1 if none
  Nanos end_ns = -1;                 // last byte of the response, or the failure
  std::vector<TokenEvent> events;    // content-bearing events in arrival order
  bool ok = false;
  std::string failure;               // a failure:: code when !ok
  std::string failure_detail;        // HTTP body, transport message, ...
  int http_status = 0;               // 0 when no response line was received
  std::string usage_conflict;        // why the server's usage was not trusted ("" when it was, or none came)
  bool cancelled = false;            // abandoned by the client on purpose (failure kCancelled, ok false)
  ServerTimings server_timings;      // the server's own timings of this request, when it gave them
  // Generated token ids, when the request asked for them (RequestSpec::want_output_ids).
  std::vector<int32_t> output_token_ids;
  // Session workloads: the session and turn this request belongs to (-1: none);
  // subagent is the request's index among its turn's subagents (-1: the turn itself).
  int64_t session_id = -1;
  int32_t turn = -1;
  int32_t subagent = -1;
};

// One session (conversation) of a session workload: its turns were sent one
// after another, each after the previous one (and its subagents) ended plus a
// think time.
struct SessionRecord {
  int64_t id = 0;                    // position in the workload
  Nanos scheduled_ns = 0;            // planned start
  Nanos start_ns = -1;               // first turn sent; -1 if never started
  Nanos end_ns = -1;                 // last request of the session ended
  int32_t turns_planned = 0;
  int32_t turns_done = 0;            // turns that ended ok (with their subagents)
  bool ok = false;                   // every turn ended ok
  std::string end_reason;            // why it ended early: "turn 2: http_status", "cancelled", "duration", "interrupted"
};

// The serving engine's own account of a run: its Prometheus /metrics
// scraped while a measured run went on (loadgen/metrics_scraper.h), or the
// simulated engine's counters. Written under "server_metrics" in the result
// JSON (metrics/result_json.h).
struct ServerSample {
  Nanos t_ns = 0;                         // when the scrape's answer arrived, from the run's start
  std::map<std::string, double> values;   // series name -> value, summed over label sets
};
struct ServerMetrics {
  std::string source;                     // "simulator", or the URL scraped
  std::string kind;                       // "vllm", "sglang", "llama.cpp", "" (unrecognised)
  // Prefix cache over the run, in tokens (counter deltas, first to last
  // sample); -1 when the server does not say.
  double prefix_cache_queries = -1, prefix_cache_hits = -1;
  // hits / queries, or the server's own gauge (SGLang's sglang:cache_hit_rate,
  // its last sample); -1 unknown.
  double prefix_cache_hit_rate = -1;
  int64_t scrapes = 0, scrape_failures = 0;
  std::string last_error;                 // the last failed scrape's reason
  std::vector<ServerSample> samples;      // in time order
};

// Energy the accelerators (or the host's CPU packages) drew over a run's
// measured window, from a power source (power/source.h) sampled on its own
// thread: an energy counter's difference where the device has one, else its
// power readings integrated (trapezoid). Written under "energy" in the result
// JSON; tokens per joule derive from it (metrics/summary.h).
struct EnergyDevice {
  std::string name;                 // "gpu0 NVIDIA H200", "package-0", ...
  double joules = 0;                // over the window
  double mean_w = 0;                // joules / window
  double peak_w = 0;                // the largest power reading (or counter slope between samples)
};
// The measured window's energy split by what the server was doing, window by
// window (power/phases.h): windows in which some request was in its prefill
// (sent, no first token yet), windows in which requests were in flight but
// none in prefill (decode only), and windows with nothing in flight (idle).
struct EnergyPhase {
  int64_t windows = 0;
  double seconds = 0, joules = 0;
  int64_t prompt_tokens = 0;        // prefill: prompts whose prefill overlaps the measured window
  int64_t output_tokens = 0;        // tokens that arrived inside these windows
};
struct EnergyPhases {
  double slice_s = 0;               // the windows' length
  EnergyPhase prefill, decode, idle;
  // decode.joules / decode.output_tokens (0: no decode-only window saw a token).
  double decode_joules_per_output_token = 0;
  // An estimate: (prefill.joules - prefill.output_tokens x the decode rate) /
  // prefill.prompt_tokens, charging the decoding done inside prefill windows at
  // the decode-only rate (0 when there is no decode rate, no prompt token, or
  // the remainder is not positive).
  double prefill_joules_per_prompt_token = 0;
};
struct EnergyMeasurement {
  std::string source;               // "nvml", "amdsmi", "rapl", "scrape"
  std::string method;               // "energy counter" or "power integrated"
  double window_s = 0;              // the measured window's length
  double joules = 0;                // summed over devices
  double mean_w = 0;                // joules / window_s, summed over devices
  double peak_w = 0;                // the largest summed power over the samples
  int64_t samples = 0;              // readings inside the window (its two ends interpolated)
  double interval_s = 0;            // the sampling interval asked for
  std::vector<EnergyDevice> devices;
  std::optional<EnergyPhases> phases;  // absent when the window could not be split
};

// Where a run's records came from: a server measured over HTTP, or the
// simulator. Written as "measured" / "simulated" only at the edges (result
// JSON, the terminal, the results database).
enum class RunSource { kMeasured, kSimulated };

inline const char* RunSourceName(RunSource s) { return s == RunSource::kSimulated ? "simulated" : "measured"; }

struct RunResult {
  RunSource source = RunSource::kMeasured;
  std::string frontier_version;
  std::string command_line;
  std::string start_time_utc;        // ISO-8601
  std::string host;                  // machine that ran the client (or the simulator)
  std::string base_url;              // empty for simulated runs
  std::string endpoint;              // "/v1/completions", ...
  std::string model;                 // as requested
  std::string served_model;          // as the server reports it
  int num_gpus = 1;                  // for per-GPU throughput
  // Flags as given, and what they resolved to (defaults filled in, ...).
  std::map<std::string, std::string> requested_settings;
  std::map<std::string, std::string> effective_settings;
  Nanos duration_ns = 0;             // benchmark duration: first send to last end (non-warmup)
  bool interrupted = false;          // stopped early by the user; what was measured is kept
  std::vector<RequestRecord> requests;
  std::vector<SessionRecord> sessions;   // empty for single-turn workloads
  // The best prefix-cache hit rate the prompts sent allow (an infinite cache,
  // workload/prefix_blocks.h); < 0 when not computed (text prompts).
  double ideal_prefix_hit_rate = -1;
  int ideal_hit_block_tokens = 0;
  std::optional<ServerMetrics> server_metrics;  // when scraped or simulated
  // How sure a simulated point is (sim/fit/band.h), set by the simulator's Target
  // when its caller gave it the band; never set on a measured run.
  std::optional<PredictionBand> band;
  // The Target's clock() reading of time zero (RunLoad, RunSessions), so a
  // series sampled on the same clock (power) can be cut to the measured window.
  Nanos origin_ns = 0;
  std::optional<EnergyMeasurement> energy;      // when a power source was sampled
};

}  // namespace frontier
