// sim_target.h: the simulated serving engine as a load generator's Target
// (loadgen/target.h), on a virtual clock. The load core (loadgen::RunLoad)
// drives it exactly as it drives a server over HTTP: it plans the arrivals,
// holds the concurrency cap, runs the warm-up and the duration, and issues
// each request when its time has come; the target answers on virtual time,
// which only its Poll() moves.
//
//   SimTarget target(config, SimulateOptions{});        // client round trip, step trace
//   Result<RunResult> run = loadgen::RunLoad(target, specs, load, loadgen::RunOptions{}, observer, stop);
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
#include "sim/config.h"
#include "sim/engine.h"
#include "sim/simulate.h"

namespace frontier::sim {

class SimTarget final : public loadgen::Target {
 public:
  // REQUIRES: options.client_rtt_ns >= 0. When `halt` is given, the target
  // sets it once options.stop is set or a run passes one of the options'
  // bounds (requests issued, memory of their records); hand it to RunLoad as
  // its stop. bound_status() then says which bound, and when.
  SimTarget(SimConfig config, SimulateOptions options, std::atomic<bool>* halt = nullptr);

  std::string Name() const override;  // "simulated llama-2-70b on 8x h200"
  const Clock& clock() const override { return clock_; }
  void Issue(int64_t id, const workload::RequestSpec& spec) override;
  void Poll(Nanos deadline, loadgen::CompletionSink& sink) override;
  void AbortAll(const char* reason, loadgen::CompletionSink& sink) override;
  size_t InFlight() const override { return in_flight_; }
  std::string ServedModel() const override { return config_.model.name; }
  // source "simulated", host "frontier simulator", the deployment's settings
  // (SimConfig::EffectiveSettings) and client_rtt_us.
  void Describe(RunResult* run) const override;

  // OK, or ResourceExhausted naming the bound the run reached.
  const Status& bound_status() const { return bound_; }

  // The answer's token ids for a prompt: deterministic, in [0, vocab).
  static std::vector<int32_t> SyntheticOutputIds(std::span<const int32_t> prompt, int32_t n, int32_t vocab);

  // Figures about the engine over everything run so far.
  SimulationStats stats() const;
  const SimConfig& config() const { return config_; }

 private:
  // A request on its way to the engine or in it, at slot index `slot` (its
  // id in the engine).
  struct Flight {
    RequestRecord record;
    int32_t input = 0, output = 0;
    std::vector<uint64_t> hashes;       // of prompt + answer blocks (prefix caching)
    std::vector<int32_t> output_ids;    // the answer, when the request asked for it
    bool live = false;       // issued and not ended
    bool in_engine = false;  // arrived and admitted
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
  void Finish(int32_t slot, loadgen::CompletionSink& sink);
  void Account();  // stats and trace of the step just planned

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
  std::deque<Arrival> arriving_;  // issue order = arrival order (one round trip)
  size_t in_flight_ = 0;
  // Bounds.
  std::atomic<bool>* halt_;
  Status bound_;
  int64_t issued_ = 0, memory_ = 0;
  // Stats.
  SimulationStats stats_;
  double batch_tokens_ = 0, running_sum_ = 0;
};

}  // namespace frontier::sim
