#include "metrics/timeslice.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/checked.h"
#include "core/stats.h"

namespace frontier::metrics {
namespace {

struct Samples {
  std::vector<double> ttft, tpot;
};

void Quantiles(std::vector<double>& x, double* p50, double* p99) {
  if (x.empty()) return;
  const double ps[] = {50, 99};
  const std::vector<double> v = Percentiles(x, ps);
  *p50 = v[0];
  *p99 = v[1];
}

}  // namespace

const char* PhaseName(Phase p) {
  switch (p) {
    case Phase::kRampUp: return "ramp_up";
    case Phase::kSteady: return "steady";
    case Phase::kRampDown: return "ramp_down";
    case Phase::kNone: break;
  }
  return "none";
}

double AutoSliceSeconds(double duration_s) {
  const double target = std::max(duration_s / 30.0, 1e-3);
  double decade = std::pow(10.0, std::floor(std::log10(target)));
  for (;;) {
    for (double m : {1.0, 2.0, 5.0}) {
      // A relative margin so 0.3 / 30 lands on 0.01, not 0.02.
      if (m * decade >= target * (1 - 1e-9)) return m * decade;
    }
    decade *= 10;
  }
}

Status CheckTimesliceOptions(const TimesliceOptions& o) {
  if (!(o.slice_s == 0 || (o.slice_s >= kMinSliceSeconds && o.slice_s <= kMaxSliceSeconds))) {
    return InvalidArgument("--timeslice " + std::to_string(o.slice_s) +
                           ": the window must be 0 (automatic) or from 0.001 to 86400 seconds; e.g. --timeslice 10");
  }
  if (!(o.steady_tolerance > 0 && o.steady_tolerance < 1)) {
    return InvalidArgument("steady_tolerance " + std::to_string(o.steady_tolerance) +
                           " must be in (0, 1), a fraction of the plateau; e.g. 0.1");
  }
  return Status::Ok();
}

Timeslices ComputeTimeslices(const RunResult& run, const TimesliceOptions& o) {
  Timeslices out;
  Nanos t0 = std::numeric_limits<Nanos>::max(), t1 = std::numeric_limits<Nanos>::min();
  for (const auto& r : run.requests) {
    if (r.warmup) continue;
    t0 = std::min(t0, r.scheduled_ns);
    if (!r.cancelled && r.end_ns >= 0) t1 = std::max(t1, r.end_ns);
  }
  if (t1 <= t0 || t0 == std::numeric_limits<Nanos>::max()) return out;
  // Times come from outside (merged shard files, imported records): every
  // sum and product below saturates, so a time at the end of the range gives
  // a wide window, never a wrapped count of windows (core/checked.h).
  const Nanos span = SaturatingSub(t1, t0);
  out.slice_s = o.slice_s > 0 ? o.slice_s : AutoSliceSeconds(NanosToSeconds(span));
  auto slice_ns = std::max<Nanos>(1, DoubleToInt64(std::round(out.slice_s * 1e9)).value_or(kInt64Max));
  if (CeilDiv(span, slice_ns) > kMaxWindows) {
    // A window too short for the run's length: widened so the windows stay few enough to hold.
    slice_ns = CeilDiv(span, kMaxWindows);
    out.slice_s = NanosToSeconds(slice_ns);
  }
  const auto n = static_cast<size_t>(CeilDiv(span, slice_ns));
  // The start of window k.
  auto at = [&](size_t k) { return SaturatingAdd(t0, SaturatingMul(static_cast<Nanos>(k), slice_ns)); };
  auto window_of = [&](Nanos t) {
    const Nanos k = SaturatingSub(std::clamp(t, t0, t1), t0) / slice_ns;
    return std::min(static_cast<size_t>(k), n - 1);  // t1 itself belongs to the last window
  };
  auto window_end = [&](size_t k) { return std::min(t1, at(k + 1)); };
  out.slices.resize(n);
  std::vector<double> busy_ns(n, 0.0);
  std::vector<Samples> samples(n);
  for (const auto& r : run.requests) {
    if (r.warmup || r.cancelled || r.end_ns < 0) continue;
    // Time in flight, split over the windows it spans.
    const Nanos a = std::max(r.sent_ns, t0), b = std::min(r.end_ns, t1);
    for (size_t k = a < b ? window_of(a) : n; k < n && at(k) < b; ++k) {
      const Nanos lo = std::max(a, at(k)), hi = std::min(b, window_end(k));
      if (hi > lo) busy_ns[k] += static_cast<double>(SaturatingSub(hi, lo));
    }
    if (!r.ok) continue;
    const size_t end_k = window_of(r.end_ns);
    Timeslice& w = out.slices[end_k];
    ++w.completed;
    samples[end_k].ttft.push_back(NanosToMillis(SaturatingSub(r.first_token_ns, r.sent_ns)));
    if (r.output_tokens > 1)
      samples[end_k].tpot.push_back(NanosToMillis(SaturatingSub(r.end_ns, r.first_token_ns)) /
                                    static_cast<double>(r.output_tokens - 1));
    // Tokens when their event arrived, never more than the request's count;
    // the rest at its end. After its first event a request has had
    // min(sum of its events' tokens, count) counted, so each window gets what
    // that grew by across the events in it. A request's events come in time
    // order, so the window of the last event and its bounds are kept and an
    // event's window is looked up only when it falls outside them (a few
    // times a request, not once per token). The first window takes
    // everything before t0, the last everything from its start on, as
    // window_of does.
    const int64_t count = r.output_tokens;
    int64_t sum = 0, counted = 0;  // counted: up to the kept window
    size_t run_k = n;              // the kept window; n: none yet
    Nanos run_lo = 0, run_hi = 0;
    auto close_run = [&] {
      if (run_k == n) return;
      const int64_t now = std::min(sum, count);
      out.slices[run_k].output_tokens += now - counted;
      counted = now;
    };
    for (const auto& e : r.events) {
      if (e.t_ns < run_lo || e.t_ns >= run_hi) {
        close_run();
        run_k = window_of(e.t_ns);
        run_lo = run_k == 0 ? std::numeric_limits<Nanos>::min() : at(run_k);
        run_hi = run_k == n - 1 ? std::numeric_limits<Nanos>::max() : at(run_k + 1);
      }
      sum += std::max<int32_t>(0, e.tokens);
    }
    close_run();
    w.output_tokens += count - counted;
  }
  std::vector<double> levels;
  for (size_t k = 0; k < n; ++k) {
    Timeslice& w = out.slices[k];
    const Nanos lo = at(k), hi = window_end(k);
    w.start_s = NanosToSeconds(SaturatingSub(lo, t0));
    w.end_s = NanosToSeconds(SaturatingSub(hi, t0));
    const double len_s = NanosToSeconds(SaturatingSub(hi, lo));
    w.request_throughput = w.completed / len_s;
    w.output_throughput = static_cast<double>(w.output_tokens) / len_s;
    w.mean_in_flight = busy_ns[k] / static_cast<double>(SaturatingSub(hi, lo));
    Quantiles(samples[k].ttft, &w.ttft_p50_ms, &w.ttft_p99_ms);
    Quantiles(samples[k].tpot, &w.tpot_p50_ms, &w.tpot_p99_ms);
    levels.push_back(w.mean_in_flight);
  }
  out.plateau_in_flight = Percentile(levels, 50);
  if (n < static_cast<size_t>(kMinWindowsForSteady) || !(out.plateau_in_flight > 0)) return out;
  // From the first level window to the last.
  auto level = [&](size_t i) {
    return std::abs(out.slices[i].mean_in_flight - out.plateau_in_flight) <=
           o.steady_tolerance * out.plateau_in_flight;
  };
  size_t best_from = 0, best_len = 0;
  while (best_from < n && !level(best_from)) ++best_from;
  for (size_t k = best_from; k < n; ++k)
    if (level(k)) best_len = k - best_from + 1;
  out.steady = best_len > 0;
  if (!out.steady) return out;
  for (size_t k = 0; k < n; ++k) {
    Timeslice& w = out.slices[k];
    w.phase = k < best_from ? Phase::kRampUp : k < best_from + best_len ? Phase::kSteady : Phase::kRampDown;
    if (w.phase != Phase::kSteady) continue;
    out.steady_completed += w.completed;
    out.steady_output_tokens += w.output_tokens;
  }
  out.steady_start_s = out.slices[best_from].start_s;
  out.steady_end_s = out.slices[best_from + best_len - 1].end_s;
  const double span_s = out.steady_end_s - out.steady_start_s;
  out.steady_request_throughput = out.steady_completed / span_s;
  out.steady_output_throughput = static_cast<double>(out.steady_output_tokens) / span_s;
  return out;
}

nlohmann::json TimeslicesToJson(const Timeslices& t) {
  using nlohmann::json;
  json j = json::object();
  j["slice_s"] = t.slice_s;
  j["plateau_in_flight"] = t.plateau_in_flight;
  if (t.steady) {
    j["steady"] = {{"start_s", t.steady_start_s},
                   {"end_s", t.steady_end_s},
                   {"completed", t.steady_completed},
                   {"output_tokens", t.steady_output_tokens},
                   {"request_throughput", t.steady_request_throughput},
                   {"output_throughput", t.steady_output_throughput}};
  } else {
    j["steady"] = nullptr;
  }
  json w = json::object();
  const struct {
    const char* name;
    double Timeslice::*field;
  } kReals[] = {{"start_s", &Timeslice::start_s},
                {"end_s", &Timeslice::end_s},
                {"request_throughput", &Timeslice::request_throughput},
                {"output_throughput", &Timeslice::output_throughput},
                {"ttft_p50_ms", &Timeslice::ttft_p50_ms},
                {"ttft_p99_ms", &Timeslice::ttft_p99_ms},
                {"tpot_p50_ms", &Timeslice::tpot_p50_ms},
                {"tpot_p99_ms", &Timeslice::tpot_p99_ms},
                {"mean_in_flight", &Timeslice::mean_in_flight}};
  for (const auto& c : kReals) {
    json col = json::array();
    for (const auto& s : t.slices) col.push_back(s.*c.field);
    w[c.name] = std::move(col);
  }
  json completed = json::array(), tokens = json::array(), phase = json::array();
  for (const auto& s : t.slices) {
    completed.push_back(s.completed);
    tokens.push_back(s.output_tokens);
    phase.push_back(PhaseName(s.phase));
  }
  w["completed"] = std::move(completed);
  w["output_tokens"] = std::move(tokens);
  w["phase"] = std::move(phase);
  j["windows"] = std::move(w);
  return j;
}

}  // namespace frontier::metrics
