// clock.h: time as int64 nanoseconds, and the injectable clocks that read it.
//
// Code that reads time takes a Clock&. SteadyClock wraps
// std::chrono::steady_clock (monotonic); ManualClock is moved by its owner:
// by hand in tests, and by the simulator's target (sim/sim_target.h), whose
// virtual time the load core reads through it.
//
// Thread safety: SteadyClock is safe from any thread. ManualClock is not
// synchronised: move it from the thread that reads it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace frontier {

// Nanoseconds. Absolute values come from a monotonic clock and mean nothing
// across processes; differences are durations.
using Nanos = int64_t;

constexpr Nanos kNanosPerMicro = 1'000;
constexpr Nanos kNanosPerMilli = 1'000'000;
constexpr Nanos kNanosPerSecond = 1'000'000'000;

inline double NanosToMillis(Nanos ns) { return static_cast<double>(ns) / 1e6; }
inline double NanosToSeconds(Nanos ns) { return static_cast<double>(ns) / 1e9; }
inline Nanos MillisToNanos(double ms) { return static_cast<Nanos>(ms * 1e6); }
inline Nanos SecondsToNanos(double s) { return static_cast<Nanos>(s * 1e9); }

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time now.
  virtual Nanos Now() const = 0;
};

class SteadyClock final : public Clock {
 public:
  Nanos Now() const override { return MonotonicNow(); }
  // The process-wide steady clock, for hot paths that must not pay a virtual call.
  static Nanos MonotonicNow() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  // A process-wide instance.
  static const SteadyClock& Get();
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(Nanos start = 0) : now_(start) {}
  Nanos Now() const override { return now_; }
  void Set(Nanos t) { now_ = t; }
  void Advance(Nanos d) { now_ += d; }

 private:
  Nanos now_;
};

// Wall-clock time as an ISO-8601 UTC string ("2026-11-30T14:02:07Z"), for provenance only.
std::string UtcTimestampNow();

}  // namespace frontier
