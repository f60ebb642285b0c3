// engine.h: the simulated serving engine of a deployment, one implementation
// for both drivers: the simulator advances it in virtual time (simulate.h)
// and `frontier serve` in wall-clock time.
//
// An aggregated deployment is one Worker (worker.h): each RunStep() is one of
// its iterations. A disaggregated one is pools of workers running side by
// side: prefill workers compute prompts, each finished prompt's KV cache
// travels to a decode worker (the least loaded) over the scale-up fabric or
// the NICs (config.h: DisaggConfig), one hand-off after another per prefill
// worker, taking collectives.kv_transfer_us + bytes / bandwidth; the request
// emits its first token when its cache lands, then decodes there. New
// requests go to the least loaded prefill worker. RunStep() then starts every
// idle worker that has work and advances to the next event anywhere (a
// worker's step ending, a cache landing): duration_ns is the time advanced and
// the emissions are those of that instant.
//
// The caller owns time: it adds requests when they arrive, calls RunStep(),
// waits (or advances virtual time by) duration_ns, then delivers emissions.
// Requests added while a worker's step is in flight join its next step; an
// idle worker starts when RunStep() (or NextEventIn()) is next called, so a
// driver that wants an idle prefill worker to start at the arrival itself
// calls Advance() to that instant first (the virtual-time driver does).
//
// Thread safety: not thread-safe; one owner thread calls every method.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "sim/engine/config.h"
#include "sim/engine/step_model.h"
#include "sim/engine/worker.h"

namespace frontier::sim {

class Engine {
 public:
  using Emission = Worker::Emission;
  // duration_ns, emissions, shape (what ran: the step that ended; empty when
  // only a cache landed) and preempted, as a worker's step.
  struct Step : Worker::Step {
    int pool = 0;  // 0: aggregated, 1: prefill, 2: decode (for Explain)
  };
  static constexpr Nanos kNever = std::numeric_limits<Nanos>::max();

  explicit Engine(SimConfig config);
  ~Engine();
  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;

  // Queues a request. Fails (and queues nothing) when the id is already in
  // the engine, a length is below 1, the request exceeds the model's context,
  // or it could never fit in the KV cache even alone.
  // `block_hashes`: as Worker::Add (prefix caching; prefill workers of a
  // disaggregated engine keep the cache).
  Status Add(int64_t id, int32_t input_len, int32_t output_len, std::vector<uint64_t> block_hashes = {});
  // Drops a request wherever it is, freeing its KV pages. No-op for unknown ids.
  void Cancel(int64_t id);
  // Nothing running, waiting or in transfer.
  bool Idle() const { return single_ ? single_->Idle() : PoolsIdle(); }

  // Advances to the next event (see the file comment) into `out`, reusing
  // its storage (the simulator's hot path; NextStep in worker.h returns a new
  // Step). An idle engine returns a zero step.
  void RunStep(Step* out) {
    if (!single_) return RunPools(out);
    single_->RunStep(out);
    out->pool = 0;
  }
  // Aggregated engines: Worker::RunDecodeSteps (steady decode steps planned
  // at once, ending before `before` ns from now). Disaggregated engines plan
  // none (0).
  int64_t RunDecodeSteps(Nanos before, Step* out, std::vector<Nanos>* durations) {
    if (!single_) return 0;
    out->pool = 0;
    return single_->RunDecodeSteps(before, out, durations);
  }

  // Disaggregated engines only (aggregated ones have no step in flight
  // between calls): starts every idle worker that has work and returns the
  // time to the next event, kNever if none.
  Nanos NextEventIn();
  // Moves the clock forward by `ns` < NextEventIn() with no event.
  void Advance(Nanos ns);
  bool disaggregated() const { return !prefill_.empty(); }

  // The cost breakdown of a step shape of `pool` (for --explain).
  StepCost Explain(const BatchShape& shape, int pool = 0) const;

  EngineStats stats() const;
  // Fraction of KV pages in use (decode pool for disaggregated engines).
  double kv_usage() const { return single_ ? single_->kv_usage() : stats().kv_usage(); }
  const SimConfig& config() const { return config_; }

 private:
  struct Slot;      // a worker and the step it has in flight
  struct Transfer;  // a KV cache on its way to a decode worker
  Status AddToLeastLoaded(std::vector<std::unique_ptr<Slot>>& pool, int64_t id, int32_t in, int32_t out,
                          bool prefilled, std::vector<uint64_t> block_hashes = {});
  void StartIdle();
  bool PoolsIdle() const;  // Idle() of a disaggregated engine
  void RunPools(Step* out);  // RunStep() of a disaggregated engine

  SimConfig config_;
  std::unique_ptr<Worker> single_;  // aggregated deployments
  std::vector<std::unique_ptr<Slot>> prefill_, decode_;
  std::vector<Transfer> transfers_;  // ordered by landing time
  Nanos now_ = 0, last_event_ = 0;
  Worker::Step scratch_;
};

}  // namespace frontier::sim
