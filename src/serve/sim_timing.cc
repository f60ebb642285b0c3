#include "serve/sim_timing.h"

#include <algorithm>
#include <cmath>

#include "workload/prefix_blocks.h"

namespace frontier::serve {

SimTiming::SimTiming(sim::SimConfig config, double time_scale, int64_t context_length)
    : engine_(std::move(config)), time_scale_(time_scale), context_length_(context_length) {}

Status SimTiming::Add(uint64_t id, int32_t prompt_tokens, int32_t output_tokens, Nanos now,
                      std::span<const int32_t> tokens) {
  // The request joins the batch planned by the next iteration (see Poll).
  const bool was_idle = !in_flight_ && engine_.Idle();
  std::vector<uint64_t> hashes;
  if (engine_.config().prefix_caching && !tokens.empty())
    hashes = workload::ChainedBlockHashes(tokens, engine_.config().block_size);
  FRONTIER_RETURN_IF_ERROR(engine_.Add(static_cast<int64_t>(id), prompt_tokens, output_tokens, std::move(hashes)));
  if (was_idle) wake_at_ = now;
  return Status::Ok();
}

void SimTiming::Cancel(uint64_t id) { engine_.Cancel(static_cast<int64_t>(id)); }

Nanos SimTiming::NextWakeup() const {
  if (in_flight_) return step_end_;
  return engine_.Idle() ? kNever : 0;  // 0: due now, start an iteration
}

void SimTiming::StartStep(Nanos start) {
  engine_.RunStep(&step_);
  // At least 1 us per iteration, so a zero-cost step cannot spin the loop.
  const Nanos wall = std::max<Nanos>(
      kNanosPerMicro, static_cast<Nanos>(std::llround(static_cast<double>(step_.duration_ns) / time_scale_)));
  step_end_ = start + wall;
  in_flight_ = true;
}

void SimTiming::Poll(Nanos now, std::vector<Emission>& out) {
  for (;;) {
    if (in_flight_) {
      if (step_end_ > now) return;
      for (const auto& e : step_.emissions)
        out.push_back({static_cast<uint64_t>(e.id), e.tokens, step_end_, e.finished});
      in_flight_ = false;
      if (engine_.Idle()) return;
      StartStep(step_end_);  // chained on the planned time
    } else {
      if (engine_.Idle()) return;
      StartStep(wake_at_ >= 0 ? std::min(wake_at_, now) : now);
    }
    wake_at_ = -1;
  }
}

EngineStats SimTiming::Stats() const {
  const sim::EngineStats s = engine_.stats();
  EngineStats out;
  out.running = s.running;
  out.waiting = s.waiting;
  out.kv_usage = s.kv_usage();
  out.steps = s.steps;
  out.preemptions = s.preemptions;
  const sim::SimConfig& c = engine_.config();
  if (c.prefix_caching && c.model.sliding_layers == 0) {
    out.prefix_queries = s.prefix_queries;
    out.prefix_hits = s.prefix_hits;
  }
  return out;
}

}  // namespace frontier::serve
