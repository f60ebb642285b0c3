// fixed_timing.h: an exactly known timing for tests and client calibration.
//
// A request admitted at time a emits its first event at a + ttft and then one
// event every itl: event j (from 0) is due at a + ttft + j * itl, and carries
// min(K, tokens left) tokens. Durations are divided by time_scale. Without
// slots requests do not interact: no batch limit, no queue, no KV cache
// (usage reads 0). With `slots` = S, at most S requests are served at once;
// the rest wait first-come first-served, and a waiting request's timeline
// starts (a above) when a slot frees: at the due time of the last event of
// the request that held it, or at the latest time the source has seen when
// that request is cancelled. A request of n tokens then holds its slot for
// ttft + (ceil(n / K) - 1) x itl, so the capacity is
//   S / (ttft + (ceil(n / K) - 1) x itl) requests per second.
//
// Thread safety: not synchronised (see timing.h).
#pragma once

#include <deque>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "serve/timing.h"

namespace frontier::serve {

struct FixedProfile {
  double ttft_ms = 50;          // arrival to first event
  double itl_ms = 10;           // gap between events
  int32_t tokens_per_event = 1; // K, >= 1
  int64_t context_length = 131072;
  double time_scale = 1.0;      // > 0; modelled durations / time_scale = wall durations
  int64_t slots = 0;            // requests served at once; 0 = no limit
};

// Fails with InvalidArgument naming the flag for a negative time, K < 1, a
// non-positive context or time scale, negative slots.
Status ValidateFixedProfile(const FixedProfile& p);

class FixedTiming final : public TimingSource {
 public:
  // REQUIRES: ValidateFixedProfile(profile).ok().
  explicit FixedTiming(const FixedProfile& profile);

  Status Add(uint64_t id, int32_t prompt_tokens, int32_t output_tokens, Nanos now,
             std::span<const int32_t> tokens = {}) override;
  void Cancel(uint64_t id) override;
  Nanos NextWakeup() const override { return heap_.empty() ? kNever : heap_.top().due; }
  void Poll(Nanos now, std::vector<Emission>& out) override;
  EngineStats Stats() const override;
  int64_t context_length() const override { return profile_.context_length; }

 private:
  struct Entry {
    Nanos due;
    uint64_t id;
    bool operator>(const Entry& o) const { return due != o.due ? due > o.due : id > o.id; }
  };
  // Starts `id`'s timeline at `at` (it holds a slot from now on).
  void Start(uint64_t id, Nanos at);
  // A slot freed at `at`: the first waiting request that is still wanted starts.
  void FreeSlot(Nanos at);

  FixedProfile profile_;
  Nanos ttft_ns_;
  Nanos itl_ns_;
  std::unordered_map<uint64_t, int32_t> remaining_;  // id -> tokens still to emit (running or waiting)
  std::deque<uint64_t> waiting_;                      // admitted, no slot yet (may hold cancelled ids)
  std::unordered_set<uint64_t> running_;              // ids holding a slot
  Nanos latest_ = 0;                                  // latest time seen by Add or Poll
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
};

}  // namespace frontier::serve
