#include "power/phases.h"

#include <algorithm>

#include "power/integrate.h"

namespace frontier::power {
namespace {

// The readings Integrate needs for [a, b]: the last one at or before a through
// the first one at or after b.
std::span<const PowerReading> Around(std::span<const PowerReading> r, Nanos a, Nanos b) {
  auto lo = std::upper_bound(r.begin(), r.end(), a, [](Nanos t, const PowerReading& x) { return t < x.t_ns; });
  if (lo != r.begin()) --lo;
  auto hi = std::lower_bound(r.begin(), r.end(), b, [](const PowerReading& x, Nanos t) { return x.t_ns < t; });
  if (hi != r.end()) ++hi;
  return r.subspan(static_cast<size_t>(lo - r.begin()), static_cast<size_t>(hi - lo));
}

}  // namespace

Result<EnergyPhases> SplitByPhase(std::span<const PowerReading> readings, const std::vector<std::string>& devices,
                                  const std::vector<RequestRecord>& requests, Nanos origin_ns, Nanos first_ns,
                                  Nanos last_ns, Nanos slice_ns) {
  if (last_ns <= first_ns || slice_ns <= 0) return FailedPrecondition("power: no window to split by phase");
  const Nanos span = last_ns - first_ns;
  const int64_t n = span / slice_ns + (span % slice_ns != 0);
  if (n > kMaxPhaseWindows)
    return FailedPrecondition("power: splitting by phase would take " + std::to_string(n) + " windows (at most " +
                              std::to_string(kMaxPhaseWindows) + ")");
  const auto index = [&](Nanos t) {  // the window holding t, clamped into the window
    return static_cast<size_t>(std::clamp<Nanos>((t - first_ns) / slice_ns, 0, n - 1));
  };
  const auto N = static_cast<size_t>(n);
  // Difference arrays of how many requests are in prefill / in flight per window.
  std::vector<int64_t> prefill(N + 1, 0), flight(N + 1, 0), tokens(N, 0);
  EnergyPhases out;
  out.slice_s = NanosToSeconds(slice_ns);
  for (const auto& r : requests) {
    if (r.end_ns < 0) continue;  // never ended: no interval
    const Nanos a = r.sent_ns, end = std::max(r.end_ns, a);
    const Nanos ft = r.first_token_ns >= 0 ? std::clamp(r.first_token_ns, a, end) : end;
    if (end >= first_ns && a <= last_ns) {
      ++flight[index(a)];
      --flight[index(end) + 1];
    }
    if (ft >= first_ns && a <= last_ns) {
      ++prefill[index(a)];
      --prefill[index(ft) + 1];
      out.prefill.prompt_tokens += r.prompt_tokens;
    }
    for (const auto& e : r.events)
      if (e.t_ns >= first_ns && e.t_ns <= last_ns) tokens[index(e.t_ns)] += e.tokens;
  }
  int64_t in_prefill = 0, in_flight = 0;
  for (size_t i = 0; i < N; ++i) {
    in_prefill += prefill[i];
    in_flight += flight[i];
    const Nanos a = first_ns + static_cast<Nanos>(i) * slice_ns;
    const Nanos b = std::min(last_ns, a + slice_ns);
    FRONTIER_ASSIGN_OR_RETURN(EnergyMeasurement e,
                              Integrate(Around(readings, origin_ns + a, origin_ns + b), devices, origin_ns + a,
                                        origin_ns + b));
    EnergyPhase& p = in_prefill > 0 ? out.prefill : in_flight > 0 ? out.decode : out.idle;
    ++p.windows;
    p.seconds += NanosToSeconds(b - a);
    p.joules += e.joules;
    p.output_tokens += tokens[i];
  }
  if (out.decode.output_tokens > 0) out.decode_joules_per_output_token = out.decode.joules / out.decode.output_tokens;
  if (out.decode_joules_per_output_token > 0 && out.prefill.prompt_tokens > 0) {
    const double rest = out.prefill.joules - out.prefill.output_tokens * out.decode_joules_per_output_token;
    if (rest > 0) out.prefill_joules_per_prompt_token = rest / out.prefill.prompt_tokens;
  }
  return out;
}

}  // namespace frontier::power
