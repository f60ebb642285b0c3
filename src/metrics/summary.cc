#include "metrics/summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <utility>

#include "core/checked.h"
#include "core/stats.h"

namespace frontier::metrics {
namespace {

// std::allocator, except that resize() leaves new doubles uninitialised:
// the millions of inter-token gaps of a run are written right after.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using GapSamples = std::vector<double, UninitializedAllocator<double>>;

// A sample's sums for its mean and deviation, shifted by its first value
// (which keeps them small and the subtraction exact enough), and its minimum
// and maximum, which the percentile selection needs: gathered in one pass,
// by Describe or by the code that produces the sample.
struct Moments {
  explicit Moments(double first) : shift(first), lo(first), hi(first) {}
  void Add(double s) {
    const double y = s - shift;
    sum += y;
    sum_sq += y * y;
    lo = s < lo ? s : lo;
    hi = s > hi ? s : hi;
  }
  double shift, sum = 0, sum_sq = 0, lo, hi;
};

// May reorder x. `known`: x's moments, every sample added in order.
Distribution Describe(std::span<double> x, const std::vector<double>& percentiles, const Moments* known = nullptr) {
  Distribution d;
  d.count = x.size();
  // The median and the requested percentiles in one selection pass.
  std::vector<double> ps = percentiles;
  ps.push_back(50.0);
  std::vector<double> v;
  if (x.empty()) {
    v = Percentiles(x, ps);
  } else {
    Moments m(x.front());
    if (known != nullptr) {
      m = *known;
    } else {
      for (double s : x) m.Add(s);
    }
    const double n = static_cast<double>(x.size());
    d.mean = m.shift + m.sum / n;
    d.std = std::sqrt(std::max(0.0, m.sum_sq / n - (m.sum / n) * (m.sum / n)));
    v = Percentiles(x, ps, m.lo, m.hi);
  }
  d.median = v.back();
  for (size_t i = 0; i < percentiles.size(); ++i) d.percentiles.emplace_back(percentiles[i], v[i]);
  return d;
}

// Warm-up requests are left out, as from every other metric.
int64_t MaxConcurrent(const RunResult& run) {
  std::vector<std::pair<Nanos, int>> edges;
  for (const auto& r : run.requests) {
    if (r.warmup || r.end_ns < 0) continue;
    edges.emplace_back(r.sent_ns, +1);
    edges.emplace_back(r.end_ns, -1);
  }
  // Ends sort before starts at the same instant: a slot freed and reused is not two at once.
  std::sort(edges.begin(), edges.end());
  int64_t cur = 0, best = 0;
  for (auto& e : edges) best = std::max(best, cur += e.second);
  return best;
}

}  // namespace

std::optional<double> Distribution::At(double p) const {
  for (auto& [q, v] : percentiles)
    if (std::abs(q - p) < 1e-9) return v;
  return std::nullopt;
}

std::string PercentileKey(double p) {
  if (p == std::floor(p)) return "p" + std::to_string(static_cast<int64_t>(p));
  std::string s = std::to_string(p);  // "99.900000"
  while (!s.empty() && s.back() == '0') s.pop_back();
  return "p" + s;
}

std::string NoRequestCompleted(const std::map<std::string, int64_t>& failures_by_reason) {
  std::string why;
  for (const auto& [reason, n] : failures_by_reason)
    why += (why.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
  return "no request completed (" + (why.empty() ? "no requests" : why) + ")";
}

namespace {

// Whether a completed request met every goodput bound given.
bool MeetsGoodput(const GoodputSlo& g, const RequestRecord& r, double ttft_ms, double tpot_ms, double e2el_ms) {
  bool ok = true;
  if (g.ttft_ms && ttft_ms > *g.ttft_ms) ok = false;
  if (g.tpot_ms && r.output_tokens > 1 && tpot_ms > *g.tpot_ms) ok = false;
  if (g.e2el_ms && e2el_ms > *g.e2el_ms) ok = false;
  return ok;
}

// The rates over the measured span (s->duration_s), and per GPU; `good`: requests within the goodput bounds.
void SetThroughputs(const SummaryOptions& o, int64_t good, Summary* s) {
  if (s->duration_s > 0) {
    s->request_throughput = s->completed / s->duration_s;
    s->output_throughput = s->total_output_tokens / s->duration_s;
    s->total_token_throughput = (s->total_input_tokens + s->total_output_tokens) / s->duration_s;
    s->goodput_requested = o.goodput.any();
    if (s->goodput_requested) s->request_goodput = good / s->duration_s;
  }
  const int gpus = std::max(1, o.num_gpus);
  s->output_throughput_per_gpu = s->output_throughput / gpus;
  s->total_token_throughput_per_gpu = s->total_token_throughput / gpus;
}

// The energy measured over the run, when there is some, and tokens per joule.
void SetEnergy(const RunResult& run, Summary* s) {
  if (!run.energy || !(run.energy->joules > 0)) return;
  s->energy = run.energy;
  s->tokens_per_joule = static_cast<double>(s->total_input_tokens + s->total_output_tokens) / run.energy->joules;
  s->output_tokens_per_joule = static_cast<double>(s->total_output_tokens) / run.energy->joules;
}

// Sessions completed and failed (by reason), their latency, and the turns' TTFT and E2EL
// (whose samples Describe sorts in place).
void SummarizeSessions(const RunResult& run, const SummaryOptions& o, std::span<double> turn_ttft,
                       std::span<double> turn_e2el, Summary* s) {
  s->has_sessions = true;
  std::vector<double> latency;
  for (const auto& x : run.sessions) {
    if (x.ok) {
      ++s->sessions_completed;
      latency.push_back(NanosToMillis(SaturatingSub(x.end_ns, x.start_ns)));
    } else {
      ++s->sessions_failed;
      ++s->session_end_reasons[x.end_reason.empty() ? failure::kOther : x.end_reason];
    }
  }
  s->turn_ttft_ms = Describe(turn_ttft, o.percentiles);
  s->turn_e2el_ms = Describe(turn_e2el, o.percentiles);
  s->session_latency_ms = Describe(latency, o.percentiles);
}

}  // namespace

Summary Summarize(const RunResult& run, const SummaryOptions& o) {
  Summary s;
  std::vector<double> ttft, tpot, e2el, queue, turn_ttft, turn_e2el;
  GapSamples itl, icl;
  // ICL and ITL are the same samples until an event carries several tokens;
  // only then is ICL kept apart (from a copy of the ITL samples so far).
  bool multi_token_events = false;
  size_t gaps = 0;
  for (const auto& r : run.requests)
    if (!r.warmup && r.ok && r.events.size() > 1) gaps += r.events.size() - 1;
  // While every event carries one token there are exactly `gaps` ITL samples:
  // sized once, `written` of them so far.
  itl.resize(gaps);
  size_t written = 0;
  Moments itl_moments(0);  // of the samples written, from the first one on
  Nanos t0 = std::numeric_limits<Nanos>::max(), t1 = std::numeric_limits<Nanos>::min();
  int64_t good = 0;
  for (const auto& r : run.requests) {
    if (r.warmup) {
      ++s.warmup;
      continue;
    }
    t0 = std::min(t0, r.scheduled_ns);
    if (r.cancelled) {
      ++s.cancelled;
      continue;
    }
    if (r.end_ns >= 0) t1 = std::max(t1, r.end_ns);
    if (!r.ok) {
      ++s.failed;
      ++s.failures_by_reason[r.failure.empty() ? failure::kOther : r.failure];
      continue;
    }
    ++s.completed;
    s.total_input_tokens += r.prompt_tokens;
    s.total_output_tokens += r.output_tokens;
    if (!r.usage_reported) s.usage_from_server = false;
    const double ttft_ms = NanosToMillis(SaturatingSub(r.first_token_ns, r.sent_ns));
    const double e2el_ms = NanosToMillis(SaturatingSub(r.end_ns, r.sent_ns));
    ttft.push_back(ttft_ms);
    e2el.push_back(e2el_ms);
    queue.push_back(NanosToMillis(SaturatingSub(r.sent_ns, r.scheduled_ns)));
    if (r.turn >= 0 && r.subagent < 0) {
      turn_ttft.push_back(ttft_ms);
      turn_e2el.push_back(e2el_ms);
    }
    double tpot_ms = 0;
    if (r.output_tokens > 1) {
      tpot_ms = (e2el_ms - ttft_ms) / (r.output_tokens - 1);
      tpot.push_back(tpot_ms);
    }
    const std::vector<TokenEvent>& ev = r.events;
    size_t i = 1;
    if (!multi_token_events) {
      // The common case: each gap is one ITL sample, written in place.
      double* out = itl.data() + written;
      const TokenEvent* e = ev.data();
      const size_t m = ev.size();
      if (written == 0 && m > 1 && e[1].tokens <= 1)
        itl_moments = Moments(NanosToMillis(SaturatingSub(e[1].t_ns, e[0].t_ns)));
      for (; i < m && e[i].tokens <= 1; ++i) {
        const double gap = NanosToMillis(SaturatingSub(e[i].t_ns, e[i - 1].t_ns));
        *out++ = gap;
        itl_moments.Add(gap);
      }
      written = static_cast<size_t>(out - itl.data());
      if (i < ev.size()) itl.resize(written);  // an event of several tokens: appended from here on
    }
    for (; i < ev.size(); ++i) {
      const double gap = NanosToMillis(SaturatingSub(ev[i].t_ns, ev[i - 1].t_ns));
      const int k = std::max<int32_t>(1, ev[i].tokens);
      if (k > 1 && !multi_token_events) {
        multi_token_events = true;
        icl = itl;  // every earlier event carried one token
      }
      if (multi_token_events) icl.push_back(gap);
      if (k == 1) {
        itl.push_back(gap);
      } else {
        for (int j = 0; j < k; ++j) itl.push_back(gap / k);
      }
    }
    if (o.goodput.any() && MeetsGoodput(o.goodput, r, ttft_ms, tpot_ms, e2el_ms)) ++good;
  }
  if (!multi_token_events) itl.resize(written);
  if (t1 > t0) s.duration_s = NanosToSeconds(t1 - t0);
  SetThroughputs(o, good, &s);
  s.ttft_ms = Describe(ttft, o.percentiles);
  s.tpot_ms = Describe(tpot, o.percentiles);
  // The moments gathered as the gaps were written hold while no event carried several tokens.
  s.itl_ms = Describe(itl, o.percentiles, multi_token_events ? nullptr : &itl_moments);
  s.e2el_ms = Describe(e2el, o.percentiles);
  // With one token per event the ICL samples are the ITL samples: describe them once.
  s.icl_ms = multi_token_events ? Describe(icl, o.percentiles) : s.itl_ms;
  s.client_queue_ms = Describe(queue, o.percentiles);
  s.interactivity = s.tpot_ms.median > 0 ? 1000.0 / s.tpot_ms.median : 0.0;
  s.max_concurrent_requests = MaxConcurrent(run);
  if (s.completed == 0) s.usage_from_server = false;
  s.ideal_prefix_hit_rate = run.ideal_prefix_hit_rate;
  s.ideal_hit_block_tokens = run.ideal_hit_block_tokens;
  s.timeslices = ComputeTimeslices(run, o.timeslice);
  SetEnergy(run, &s);
  if (!run.sessions.empty()) SummarizeSessions(run, o, turn_ttft, turn_e2el, &s);
  return s;
}

std::string MeasuredEnergyLabel(const std::string& source) { return "measured (" + source + ")"; }

std::string EnergyLabel(const Summary& s) { return s.energy ? MeasuredEnergyLabel(s.energy->source) : kTdpBoundLabel; }

}  // namespace frontier::metrics
