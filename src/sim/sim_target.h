// sim_target.h: the simulated serving engine as a load generator's Target
// (loadgen/target.h), on a virtual clock. The load core (loadgen::RunLoad)
// drives it exactly as it drives a server over HTTP: it plans the arrivals,
// holds the concurrency cap, runs the warm-up and the duration, and issues
// each request when its time has come; the target answers on virtual time,
// which only its Poll() moves.
//
//   SimTarget target(config, SimulateOptions{});        // client round trip, step trace, bounds, stop
//   Result<PointOutcome> out = loadgen::RunPoint(target, specs, load, point_options, observer, &target.stop());
//
// Timing, as frontier serve orders it (serve/sim_timing.h) and vLLM or SGLang
// behave: a request issued at t reaches the engine client_rtt_ns later (the
// client's round trip: last token out, next request in) and joins the first
// step that starts after its arrival; a step that ends at T emits its tokens
// at T, and the next one starts at T with what had arrived before T. So a
// closed-loop replacement, issued as the finish that freed its slot is
// delivered, misses the step that starts then and joins the one after. An
// idle engine starts a step at the arrival that wakes it. With client_rtt_ns
// = 0 a request issued at a step boundary makes the step starting there (an
// instantaneous client). Disaggregated engines run their workers side by
// side: an arrival reaches an idle prefill worker at once.
//
// Poll(deadline) runs whole engine steps back to back until a request ends
// or virtual time reaches the deadline (a step in flight at the deadline
// stays in flight), so the load core is called once per completion or
// deadline, never per token. Each emission becomes a token event at the end
// of its step, with the same per-request records a measured run has.
//
// Bounds (SimulateOptions: requests issued, memory of their records) are
// the target's own: CheckLoad refuses a load that would pass the request
// bound before it runs; a run that reaches one raises stop() and RunStatus()
// says which bound, and when. stop() also follows SimulateOptions::stop, so
// callers hand &target.stop() to the load core and nothing else.
//
// Prefix caching (SimConfig::prefix_caching, worker.h) sees a request's
// sharing through its prompt token ids: the target hashes the prompt and the
// answer (workload::ChainedBlockHashes, the engine's block size), so a
// request repeating an earlier prompt, or one extending an earlier turn with
// its answer, hits the blocks that are still cached. A text-only prompt has
// no ids and shares nothing. The answer's token ids are a pure function of
// the prompt's ids and the position (SyntheticOutputIds); a request that
// asks (RequestSpec::want_output_ids) gets them in its record.
//
// A request the engine refuses (longer than the context, larger than the KV
// cache) ends at its arrival, failed with failure::kSimulatorRejected.
//
// The first SimTarget a process builds sets glibc's heap to keep freed memory
// for reuse (trim above 512 MiB, mmap above 32 MiB; sim_target.cc says why):
// a simulating process frees and re-allocates tens of MB of records per run.
//
// Thread safety: as Target, one thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/run_result.h"
#include "core/status.h"
#include "loadgen/target.h"
#include "sim/engine/config.h"
#include "sim/engine/engine.h"
#include "sim/simulate_options.h"

namespace frontier::sim {

class SimTarget final : public loadgen::Target {
 public:
  // A negative options.client_rtt_ns is refused by CheckLoad.
  SimTarget(SimConfig config, SimulateOptions options);

  std::string Name() const override;  // "simulated llama-2-70b on 8x h200"
  const Clock& clock() const override { return clock_; }
  void Issue(int64_t id, const workload::RequestSpec& spec) override;
  void Poll(Nanos deadline, loadgen::CompletionSink& sink) override;
  void AbortAll(const char* reason, loadgen::CompletionSink& sink) override;
  size_t InFlight() const override { return in_flight_; }
  // Cancellation: a request with cancel_after_tokens = K is dropped from the
  // engine at the end of the step that brought its K-th token; Cancel(id)
  // drops it at the present virtual time (its KV pages freed; a step in
  // flight keeps its planned duration). Either way it ends cancelled.
  bool SupportsCancel() const override { return true; }
  bool Cancel(int64_t id, loadgen::CompletionSink& sink) override;
  std::string ServedModel() const override { return config_.model.name; }
  // source "simulated", host "frontier simulator", the deployment's settings
  // (SimConfig::EffectiveSettings) and client_rtt_us.
  void Describe(RunResult* run) const override;

  // InvalidArgument for a negative round trip or non-positive bounds;
  // ResourceExhausted when a load without a duration asks for more requests
  // (warm-up included) than options.max_requests.
  Status CheckLoad(const workload::LoadOptions& load) const override;
  // OK, or ResourceExhausted naming the bound the run reached.
  Status RunStatus() const override { return bound_; }
  // The load core's stop for runs on this target: raised when a run reaches
  // a bound or SimulateOptions::stop is set.
  const std::atomic<bool>& stop() const { return stop_; }

  // The answer's token ids for a prompt: deterministic, in [0, vocab).
  static std::vector<int32_t> SyntheticOutputIds(std::span<const int32_t> prompt, int32_t n, int32_t vocab);

  // Figures about the engine over everything run so far.
  SimulationStats stats() const;
  const SimConfig& config() const { return config_; }

 private:
  // A request on its way to the engine or in it, at slot index `slot` (its
  // id in the engine).
  struct Flight {
    // What Deliver reads for every token first, near the record's own
    // counts and events (fewer cache lines a token).
    bool live = false;       // issued and not ended
    // No answer ids to hand over and no cancel point: a token event that is
    // neither its first nor its last only joins the record.
    bool plain = true;
    bool in_engine = false;  // arrived and admitted
    int32_t cancel_after_tokens = 0;
    RequestRecord record;
    int32_t input = 0, output = 0;
    std::vector<uint64_t> hashes;       // of prompt + answer blocks (prefix caching)
    // The answer, when the request asked for it (RequestSpec::want_output_ids);
    // empty otherwise, so a request wants ids exactly when it has some to get.
    std::vector<int32_t> output_ids;
  };
  struct Arrival {
    Nanos at;
    int32_t slot;
  };
  // Hands the engine the arrivals before now_ (at now_ too when `inclusive`);
  // refused ones end failed. Returns whether any ended.
  bool Admit(bool inclusive, loadgen::CompletionSink& sink);
  // Delivers step_'s emissions at now_. Returns whether a request ended.
  bool Deliver(loadgen::CompletionSink& sink);
  // Delivers a run of steady decode steps (Engine::RunDecodeSteps: step_
  // and run_steps_, each step's duration) as their steps end, from now_ on.
  void DeliverRun();
  void Finish(int32_t slot, loadgen::CompletionSink& sink);
  // Ends slot's request as cancelled at now_.
  void CancelSlot(int32_t slot, loadgen::CompletionSink& sink);
  void Account();  // stats and trace of the step just planned
  void AccountRun(int64_t steps);  // Account() for a run of steady decode steps

  SimConfig config_;
  SimulateOptions options_;
  Engine engine_;
  ManualClock clock_;
  Nanos now_ = 0;
  bool busy_ = false;     // aggregated engines: step_ is in flight until step_end_
  Nanos step_end_ = 0;
  Engine::Step step_;
  std::vector<Flight> flights_;
  std::vector<int32_t> free_;
  // Slots of requests cancelled while a step was in flight: freed when it
  // ends, so its emissions never reach a request that reused the slot.
  std::vector<int32_t> free_after_step_;
  std::deque<Arrival> arriving_;  // issue order = arrival order (one round trip)
  size_t in_flight_ = 0;
  // Live requests that are not Flight::plain: while there are any, every
  // step is planned and delivered on its own.
  int64_t unplain_live_ = 0;
  std::vector<Nanos> run_steps_;  // the run of steady decode steps being delivered
  // Bounds.
  std::atomic<bool> stop_{false};
  Status bound_;
  int64_t issued_ = 0, memory_ = 0;
  // Stats.
  SimulationStats stats_;
  double batch_tokens_ = 0, running_sum_ = 0;
};

}  // namespace frontier::sim
