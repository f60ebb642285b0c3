// sim_timing.h: the simulator's continuous-batching engine (sim/engine/engine.h),
// stepped in wall-clock time.
//
// While the engine has work, one iteration runs after another: an iteration
// starting at wall time s plans its batch from the requests present at s
// (requests that arrive during an iteration join the next one, as in a real
// engine), lasts the modelled step time d / time_scale, and its tokens are
// due at s + d / time_scale, where the next iteration starts. Back-to-back
// iterations are chained on their planned times, so lateness of the server
// never stretches the modelled timeline. An idle engine starts its next
// iteration at the admission time of the request that woke it. This is
// `frontier simulate`'s rule in virtual time: given the same admission times,
// the two produce the same timeline (tests/serve/sim_timeline_test.cc).
//
// Thread safety: not synchronised (see timing.h).
#pragma once

#include "serve/timing.h"
#include "sim/engine/config.h"
#include "sim/engine/engine.h"

namespace frontier::serve {

class SimTiming final : public TimingSource {
 public:
  // REQUIRES: time_scale > 0; context_length in [2, the model's context].
  SimTiming(sim::SimConfig config, double time_scale, int64_t context_length);

  // `tokens` are hashed into the engine's blocks for its prefix cache.
  Status Add(uint64_t id, int32_t prompt_tokens, int32_t output_tokens, Nanos now,
             std::span<const int32_t> tokens = {}) override;
  void Cancel(uint64_t id) override;
  Nanos NextWakeup() const override;
  void Poll(Nanos now, std::vector<Emission>& out) override;
  EngineStats Stats() const override;
  int64_t context_length() const override { return context_length_; }

  const sim::Engine& engine() const { return engine_; }

 private:
  void StartStep(Nanos start);

  sim::Engine engine_;
  double time_scale_;
  int64_t context_length_;
  sim::Engine::Step step_;
  bool in_flight_ = false;
  Nanos wake_at_ = -1;  // admission time of the request that found the engine idle
  Nanos step_end_ = 0;
};

}  // namespace frontier::serve
