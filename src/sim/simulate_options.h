// simulate_options.h: what a simulated run is given and what it reports
// about the engine: SimulateOptions (client round trip, step trace, bounds,
// observer, stop, band), SimulationStats and the StepTrace calibration
// re-costs. SimTarget (sim_target.h) takes them, and Simulate() (simulate.h),
// the one-call form on top of it, passes them through; both include this
// header, and neither includes the other's (simulate.cc uses SimTarget).
//
// Thread safety: values; the free functions are pure.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/clock.h"
#include "core/limits.h"
#include "core/prediction_band.h"
#include "core/status.h"
#include "loadgen/runner.h"
#include "sim/engine/step_model.h"
#include "workload/load.h"

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
  // Prefix cache (worker.h): tokens looked up and found at first admission,
  // cached blocks evicted to make room.
  int64_t prefix_queries = 0, prefix_hits = 0, evicted_blocks = 0;
  double prefix_hit_rate() const { return prefix_queries > 0 ? double(prefix_hits) / double(prefix_queries) : 0; }
};

// The client's round trip by default: from a step's tokens leaving the server
// to the client's next request being admitted. frontier bench against
// frontier serve over loopback measures 81 us median, 110 us p90
// (docs/simulate.md); a real server's HTTP front end adds some. Any value
// shorter than the step in progress gives the same batches.
inline constexpr Nanos kDefaultClientRttNs = 150 * kNanosPerMicro;

// A client round trip given in microseconds (--client-rtt-us) as
// SimulateOptions::client_rtt_ns. InvalidArgument naming the flag outside
// [0, 1e9] microseconds.
Result<Nanos> ClientRttNanos(double us);

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
  Nanos client_rtt_ns = kDefaultClientRttNs;  // >= 0; sim_target.h says what it orders
  StepTrace* trace = nullptr;                 // when set, every step is recorded into it
  // Handed to the load core (loadgen/runner.h): requests as they end and
  // progress, in virtual time; a stop ends the run early as it ends a
  // measured one (in-flight requests get the grace, then end interrupted).
  loadgen::Observer* observer = nullptr;
  const std::atomic<bool>* stop = nullptr;
  // Bounds (docs/limits.md): requests sent, warm-up included, and the memory
  // of their records and of summarising them (about 600 bytes each plus 24
  // per output token, so resident memory tracks the bound). A run
  // that would pass one fails with ResourceExhausted saying which bound, at
  // what virtual time, and how to ask for less.
  int64_t max_requests = kMaxRunRequests;
  int64_t max_memory_bytes = kDefaultSimMemoryBytes;
  // Whether each record keeps its token events (one per emission: ITL and
  // the timeline). Without them a record still has its counts, first token
  // and end, which is all TTFT, TPOT, E2EL and throughput need: fitting and
  // validation, which simulate thousands of runs and read only those, skip
  // the events' time and memory.
  bool token_events = true;
  // How sure the prediction is (band.h: BandTable::For(KeyOf(config))), given
  // by a caller that loaded the band table once for its run; the run carries
  // it (RunResult::band) into its result JSON and stored point. Unset: none.
  std::optional<PredictionBand> band;
};

// The load core's options for a SimTarget: virtual time passes only inside
// Poll, so one wait may be as long as it likes (a stop is seen at the next
// completion); without an observer there is no progress to report between
// completions either.
loadgen::RunOptions VirtualRunOptions(bool observed);

// The bounds of SimulateOptions that are known before a run: both positive,
// and without --duration, num_prompts + warmup within max_requests.
Status CheckRequestBound(const workload::LoadOptions& load, const SimulateOptions& options);

}  // namespace frontier::sim
