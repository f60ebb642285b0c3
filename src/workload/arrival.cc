#include "workload/arrival.h"

#include <cmath>
#include <random>
#include <string>

#include "core/limits.h"
#include "core/parse.h"

namespace frontier::workload {

// Convention: the first request is sent at t = 0 and each later one a drawn
// gap after its predecessor (vLLM yields the first request, then sleeps the
// drawn interval before the next one).
Result<std::vector<Nanos>> PlanArrivals(int64_t count, const ArrivalOptions& o) {
  if (count < 0 || count > kMaxRunRequests)
    return InvalidArgument("a schedule of " + std::to_string(count) + " requests: a run sends 0 to " +
                           std::to_string(kMaxRunRequests) + " (docs/limits.md)");
  if (!(o.request_rate > 0.0))
    return InvalidArgument("--request-rate must be a positive number or 'inf', got " +
                           std::to_string(o.request_rate));
  if (!(o.burstiness > 0.0) || std::isinf(o.burstiness))
    return InvalidArgument("--burstiness must be a positive finite number (1 = Poisson), got " +
                           std::to_string(o.burstiness));
  std::vector<Nanos> t(static_cast<size_t>(count), 0);
  if (std::isinf(o.request_rate)) return t;
  std::mt19937_64 rng(o.seed * 0xD1B54A32D192ED03ULL + 7);
  std::gamma_distribution<double> gap(o.burstiness, 1.0 / (o.request_rate * o.burstiness));
  double now_s = 0.0;
  for (int64_t i = 0; i < count; ++i) {
    if (i > 0) now_s += gap(rng);
    // Judged in seconds before the conversion, so a schedule too long for
    // int64 nanoseconds (a tiny rate, many prompts, an extreme burstiness) is
    // an error naming the flags, never a wrapped time.
    if (!(now_s <= kMaxRunSeconds)) {
      return InvalidArgument("--request-rate " + FormatNumber(o.request_rate) + " with --burstiness " +
                             FormatNumber(o.burstiness) + ": request " + std::to_string(i) + " of " +
                             std::to_string(count) + " (--num-prompts) would be sent after " +
                             FormatNumber(now_s) + " s, past the bound of 1e9 s on a run's schedule "
                             "(docs/limits.md); raise --request-rate or lower --num-prompts");
    }
    t[static_cast<size_t>(i)] = SecondsToNanos(now_s);
  }
  return t;
}

}  // namespace frontier::workload
