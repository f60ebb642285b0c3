// checked.h: arithmetic on nanoseconds and counts that cannot wrap.
//
// Times (core/clock.h's Nanos) and counts come from users, files and peers;
// each may be in range while their sum or product is not. Every sum, difference
// or product of such values goes through one of these, so an overflow is an
// error naming the inputs (Checked*) or a value pinned at the end of the range
// (Saturating*), never undefined behaviour or a wrapped size.
//
//   std::optional<int64_t> end = CheckedAdd(start_ns, length_ns);
//   if (!end) return InvalidArgument("--duration: start + length past 2^63 ns");
//   const int64_t span = SaturatingSub(t1, t0);  // >= 0 whenever t1 >= t0
//   Result<Nanos> ns = SecondsToNanosChecked("--min-duration", 1e9, kMaxRunSeconds);
//
// Thread safety: pure functions.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace frontier {

inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// a + b, a - b, a x b; nullopt when the exact result does not fit int64_t.
[[nodiscard]] constexpr std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
[[nodiscard]] constexpr std::optional<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
[[nodiscard]] constexpr std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// The same, pinned at INT64_MAX or INT64_MIN when the exact result is past it
// (the sign of the exact result decides which).
[[nodiscard]] constexpr int64_t SaturatingAdd(int64_t a, int64_t b) {
  if (auto r = CheckedAdd(a, b)) return *r;
  return b > 0 ? kInt64Max : kInt64Min;
}
[[nodiscard]] constexpr int64_t SaturatingSub(int64_t a, int64_t b) {
  if (auto r = CheckedSub(a, b)) return *r;
  return b < 0 ? kInt64Max : kInt64Min;
}
[[nodiscard]] constexpr int64_t SaturatingMul(int64_t a, int64_t b) {
  if (auto r = CheckedMul(a, b)) return *r;
  return (a < 0) != (b < 0) ? kInt64Min : kInt64Max;
}

// ceil(a / b) for a >= 0 and b > 0, without the a + b - 1 that can wrap.
[[nodiscard]] constexpr int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// A double (seconds, a count) as int64_t when it is finite and within
// [lo, hi] after truncation toward zero; nullopt otherwise (NaN, inf, 1e308).
[[nodiscard]] inline std::optional<int64_t> DoubleToInt64(double v, int64_t lo = kInt64Min, int64_t hi = kInt64Max) {
  // 2^63 is exactly representable; anything at or past it does not fit.
  if (!std::isfinite(v) || v >= 9223372036854775808.0 || v < -9223372036854775808.0) return std::nullopt;
  const auto r = static_cast<int64_t>(v);
  if (r < lo || r > hi) return std::nullopt;
  return r;
}

// `seconds` in nanoseconds, when it is finite and in [0, max_seconds]
// (max_seconds at most about 9.2e9, what int64 nanoseconds hold);
// InvalidArgument naming `what`, the value and the range otherwise.
[[nodiscard]] inline Result<int64_t> SecondsToNanosChecked(std::string_view what, double seconds, double max_seconds) {
  if (!(seconds >= 0 && seconds <= max_seconds && seconds * 1e9 < 9223372036854775808.0)) {
    return InvalidArgument(std::string(what) + " must be a number of seconds in [0, " + std::to_string(max_seconds) +
                           "] (its nanoseconds must fit 64 bits), got " + std::to_string(seconds));
  }
  return static_cast<int64_t>(seconds * 1e9);
}

}  // namespace frontier
