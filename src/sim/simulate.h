// simulate.h: a whole benchmark run in virtual time.
//
// Offers a workload to an Engine exactly as `frontier bench` offers it to a
// server (workload/load.h): planned arrival times from workload/arrival.h
// (all at once, Poisson or gamma at --request-rate), capped at
// --max-concurrency in flight when given. A request is "sent" at its planned
// time, or when a slot frees if the cap held it back (the instant the request
// holding the slot received its last token). Each emission becomes a token
// event at the end of its step, so the RunResult has the same per-request
// records a measured run has (source "simulated") and metrics::Summarize()
// gives the same metrics.
//
// Timing of arrivals, as frontier serve orders them (serve/sim_timing.h) and
// as vLLM or SGLang behave: a request reaches the engine `client_rtt_ns` after
// it is sent (the client's round trip: last token out, next request in) and
// joins the first step that starts after its arrival; a step that ends at t
// emits its tokens and the next one starts at t with what had arrived before
// t. So in a closed loop the request sent when another finishes at the end of
// a step misses the step that starts then and joins the one after. An idle
// engine starts a step at the arrival that wakes it. With client_rtt_ns = 0 a
// request sent at a step boundary still makes the step starting there (an
// instantaneous client; the simulator's behaviour before the option existed).
//
// The first `load.warmup` requests are marked warm-up. With `duration_s`,
// nothing is sent after that much virtual time; unsent requests are left out.
//
// Thread safety: pure function of its arguments.
#pragma once

#include <span>
#include <vector>

#include "core/clock.h"
#include "core/limits.h"
#include "core/run_result.h"
#include "core/status.h"
#include "sim/config.h"
#include "sim/step_model.h"
#include "workload/load.h"
#include "workload/request_spec.h"

namespace frontier::sim {

// Figures about the simulated engine itself (not part of RunResult).
struct SimulationStats {
  int64_t steps = 0;
  int64_t preemptions = 0;
  double mean_batch_tokens = 0;     // tokens per step
  double mean_running = 0;          // sequences per step
  double peak_kv_usage = 0;         // fraction of KV pages in use, at most 1
  BatchShape busiest_decode;        // the decode-only step with the most sequences (for --explain)
  BatchShape typical_mixed;         // the last step that mixed prefill and decode (for --explain)
};

// The client's round trip by default: from a step's tokens leaving the server
// to the client's next request being admitted. frontier bench against
// frontier serve over loopback measures 81 us median, 110 us p90
// (docs/simulate.md); a real server's HTTP front end adds some. Any value
// shorter than the step in progress gives the same batches.
inline constexpr Nanos kDefaultClientRttNs = 150 * kNanosPerMicro;

// The steps of a run, for re-costing it under other stack parameters
// (calibration) without simulating it again. Which requests run in which
// step depends on arrivals, the token budget, the sequence cap and the KV
// cache, not on how long steps take, for every run whose arrivals are all
// planned at once (Offline, a batch, a closed loop at a fixed concurrency)
// and whose steps outlast the client round trip; for those, the trace's
// total under new parameters is exactly the duration a new simulation would
// give. (Poisson arrivals are not replayable: their batches depend on time.)
struct StepTrace {
  struct Entry {
    BatchShape shape;     // summed over `count` consecutive steps (keys and pairs)
    int64_t count = 1;    // identical decode-only steps merged into one entry
    int64_t emitted = 0;  // output tokens emitted at the ends of these steps
    int64_t firsts = 0;   // of which first tokens
  };
  std::vector<Entry> entries;
  Nanos idle_ns = 0;      // time the engine sat idle waiting for arrivals
  bool replayable = true; // false when some step was shorter than the round trip
  // The entry holding the step where the first request finished (-1: none yet).
  int64_t first_finish = -1;

  // `finished`: requests that completed at the end of this step.
  void Record(const BatchShape& shape, int64_t emitted, int64_t firsts, int64_t finished);
  // Nanoseconds of entries [begin, end) under `model` (each step as the engine costs it).
  Nanos StepNanos(const StepModel& model, size_t begin, size_t end) const;
  // Index one past the last entry that emitted a first token (0 if none).
  size_t LastFirstTokenEnd() const;
  // Output tokens emitted by entries [begin, end).
  int64_t Emitted(size_t begin, size_t end) const;
};

struct SimulateOptions {
  Nanos client_rtt_ns = kDefaultClientRttNs;  // >= 0; see the file comment
  StepTrace* trace = nullptr;                 // when set, every step is recorded into it
  // Bounds (docs/limits.md): requests sent, warm-up included, and the memory
  // of their records (about 200 bytes each plus 16 per output token). A run
  // that would pass one fails with ResourceExhausted saying which bound, at
  // what virtual time, and how to ask for less.
  int64_t max_requests = kMaxRunRequests;
  int64_t max_memory_bytes = kDefaultSimMemoryBytes;
};

// Fails with InvalidArgument for bad load options (rate, burstiness,
// concurrency < 1, warmup beyond the request count) or a negative rtt, and
// with ResourceExhausted when the run reaches a bound of SimulateOptions.
Result<RunResult> Simulate(const SimConfig& config, std::span<const workload::RequestSpec> requests,
                           const workload::LoadOptions& load, const SimulateOptions& options,
                           SimulationStats* stats = nullptr);

// The same with SimulateOptions{} (the default client round trip).
Result<RunResult> Simulate(const SimConfig& config, std::span<const workload::RequestSpec> requests,
                           const workload::LoadOptions& load, SimulationStats* stats = nullptr);

}  // namespace frontier::sim
