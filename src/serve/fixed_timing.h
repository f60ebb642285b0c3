// fixed_timing.h: an exactly known timing for tests and client calibration.
//
// A request admitted at time a emits its first event at a + ttft and then one
// event every itl: event j (from 0) is due at a + ttft + j * itl, and carries
// min(K, tokens left) tokens. Durations are divided by time_scale. Requests do
// not interact: no batch limit, no queue, no KV cache (usage reads 0).
//
// Thread safety: not synchronised (see timing.h).
#pragma once

#include <queue>
#include <unordered_map>
#include <vector>

#include "serve/timing.h"

namespace frontier::serve {

struct FixedProfile {
  double ttft_ms = 50;          // arrival to first event
  double itl_ms = 10;           // gap between events
  int32_t tokens_per_event = 1; // K, >= 1
  int64_t context_length = 131072;
  double time_scale = 1.0;      // > 0; modelled durations / time_scale = wall durations
};

// Fails with InvalidArgument naming the flag for a negative time, K < 1, a
// non-positive context or time scale.
Status ValidateFixedProfile(const FixedProfile& p);

class FixedTiming final : public TimingSource {
 public:
  // REQUIRES: ValidateFixedProfile(profile).ok().
  explicit FixedTiming(const FixedProfile& profile);

  Status Add(uint64_t id, int32_t prompt_tokens, int32_t output_tokens, Nanos now) override;
  void Cancel(uint64_t id) override;
  Nanos NextWakeup() const override;
  void Poll(Nanos now, std::vector<Emission>& out) override;
  EngineStats Stats() const override;
  int64_t context_length() const override { return profile_.context_length; }

 private:
  struct Entry {
    Nanos due;
    uint64_t id;
    bool operator>(const Entry& o) const { return due != o.due ? due > o.due : id > o.id; }
  };
  FixedProfile profile_;
  Nanos ttft_ns_;
  Nanos itl_ns_;
  std::unordered_map<uint64_t, int32_t> remaining_;  // id -> tokens still to emit
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
};

}  // namespace frontier::serve
