#include "serve/fixed_timing.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace frontier::serve {

Status ValidateFixedProfile(const FixedProfile& p) {
  if (!(p.ttft_ms >= 0) || !std::isfinite(p.ttft_ms))
    return InvalidArgument("--ttft-ms must be a finite number >= 0, got " + std::to_string(p.ttft_ms));
  if (!(p.itl_ms >= 0) || !std::isfinite(p.itl_ms))
    return InvalidArgument("--itl-ms must be a finite number >= 0, got " + std::to_string(p.itl_ms));
  if (p.tokens_per_event < 1)
    return InvalidArgument("--tokens-per-event must be at least 1, got " +
                           std::to_string(p.tokens_per_event));
  if (p.context_length < 2)
    return InvalidArgument("--max-model-len must be at least 2 tokens, got " +
                           std::to_string(p.context_length));
  if (!(p.time_scale > 0) || !std::isfinite(p.time_scale))
    return InvalidArgument("--time-scale must be > 0, got " + std::to_string(p.time_scale));
  if (p.slots < 0) return InvalidArgument("--slots must be 0 (no limit) or more, got " + std::to_string(p.slots));
  return Status::Ok();
}

FixedTiming::FixedTiming(const FixedProfile& profile)
    : profile_(profile),
      ttft_ns_(MillisToNanos(profile.ttft_ms / profile.time_scale)),
      itl_ns_(MillisToNanos(profile.itl_ms / profile.time_scale)) {}

Status FixedTiming::Add(uint64_t id, int32_t /*prompt_tokens*/, int32_t output_tokens, Nanos now,
                        std::span<const int32_t> /*tokens*/) {
  if (output_tokens < 1) return InvalidArgument("output length must be at least 1 token");
  latest_ = std::max(latest_, now);
  remaining_[id] = output_tokens;
  if (profile_.slots == 0 || static_cast<int64_t>(running_.size()) < profile_.slots) {
    Start(id, now);
  } else {
    waiting_.push_back(id);
  }
  return Status::Ok();
}

void FixedTiming::Start(uint64_t id, Nanos at) {
  if (profile_.slots > 0) running_.insert(id);  // without slots nothing waits: no need to count
  heap_.push({at + ttft_ns_, id});
}

void FixedTiming::FreeSlot(Nanos at) {
  while (!waiting_.empty()) {
    const uint64_t next = waiting_.front();
    waiting_.pop_front();
    if (remaining_.count(next) == 0) continue;  // cancelled while waiting
    Start(next, at);
    return;
  }
}

void FixedTiming::Cancel(uint64_t id) {
  remaining_.erase(id);  // its heap entry, or its place in the queue, is skipped
  if (profile_.slots > 0 && running_.erase(id) > 0) FreeSlot(latest_);
}

void FixedTiming::Poll(Nanos now, std::vector<Emission>& out) {
  latest_ = std::max(latest_, now);
  while (!heap_.empty() && heap_.top().due <= now) {
    const Entry e = heap_.top();
    heap_.pop();
    auto it = remaining_.find(e.id);
    if (it == remaining_.end()) continue;  // cancelled
    const int32_t k = std::min(profile_.tokens_per_event, it->second);
    it->second -= k;
    const bool last = it->second == 0;
    out.push_back({e.id, k, e.due, last});
    if (last) {
      remaining_.erase(it);
      if (profile_.slots > 0) {
        running_.erase(e.id);
        FreeSlot(e.due);  // the next request's timeline starts when this one's last event was due
      }
    } else {
      // Anchored to the planned time, not to when Poll ran, so lateness never accumulates.
      heap_.push({e.due + itl_ns_, e.id});
    }
  }
}

EngineStats FixedTiming::Stats() const {
  EngineStats s;
  s.running = static_cast<int64_t>(profile_.slots > 0 ? running_.size() : remaining_.size());
  s.waiting = static_cast<int64_t>(remaining_.size()) - s.running;
  return s;
}

}  // namespace frontier::serve
