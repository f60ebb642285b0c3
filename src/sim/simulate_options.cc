#include "sim/simulate_options.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>

#include "core/parse.h"

namespace frontier::sim {

Result<Nanos> ClientRttNanos(double us) {
  FRONTIER_RETURN_IF_ERROR(CheckRange("--client-rtt-us", us, 0.0, 1e9));
  return static_cast<Nanos>(std::llround(us * kNanosPerMicro));
}

void StepTrace::Record(const BatchShape& s, int64_t emitted, int64_t firsts, int64_t finished) {
  const bool mark_finish = finished > 0 && first_finish < 0;
  if (!entries.empty() && firsts == 0 && s.prefill_tokens == 0 && !mark_finish &&
      static_cast<int64_t>(entries.size()) - 1 != first_finish) {
    Entry& last = entries.back();
    BatchShape& m = last.shape;
    const int64_t n = last.count;
    // Merge into a run of decode-only steps of the same batch: their costs
    // differ only through the keys read, which enter linearly.
    const auto scaled = [&](auto field) { return m.*field == s.*field * n; };
    if (last.firsts == 0 && m.prefill_tokens == 0 &&
        std::all_of(std::begin(kDecodeCounts), std::end(kDecodeCounts), scaled)) {
      for (auto field : kDecodeCounts) m.*field += s.*field;
      for (auto field : kDecodeKeys) m.*field += s.*field;
      ++last.count;
      last.emitted += emitted;
      return;
    }
  }
  entries.push_back(Entry{s, 1, emitted, firsts});
  if (mark_finish) first_finish = static_cast<int64_t>(entries.size()) - 1;
}

Nanos StepTrace::StepNanos(const StepModel& model, size_t begin, size_t end) const {
  Nanos total = 0;
  end = std::min(end, entries.size());
  for (size_t i = begin; i < end; ++i) {
    const Entry& e = entries[i];
    if (e.count == 1) {
      total += std::max<Nanos>(1, model.StepNanos(e.shape));
      continue;
    }
    // The mean step of the run, `count` times.
    BatchShape m = e.shape;
    const double n = static_cast<double>(e.count);
    for (auto field : kDecodeCounts) m.*field /= e.count;
    for (auto field : kDecodeKeys) m.*field /= n;
    total += std::max<Nanos>(1, model.StepNanos(m)) * e.count;
  }
  return total;
}

size_t StepTrace::LastFirstTokenEnd() const {
  for (size_t i = entries.size(); i > 0; --i)
    if (entries[i - 1].firsts > 0) return i;
  return 0;
}

int64_t StepTrace::Emitted(size_t begin, size_t end) const {
  int64_t n = 0;
  end = std::min(end, entries.size());
  for (size_t i = begin; i < end; ++i) n += entries[i].emitted;
  return n;
}

loadgen::RunOptions VirtualRunOptions(bool observed) {
  loadgen::RunOptions o;
  o.max_poll = 3600 * kNanosPerSecond;
  if (!observed) o.progress_interval = o.max_poll;
  return o;
}

Status CheckRequestBound(const workload::LoadOptions& load, const SimulateOptions& options) {
  if (options.max_requests < 1 || options.max_memory_bytes < 1)
    return InvalidArgument("the simulation's request and memory bounds must be positive");
  // Without --duration the count is known up front (warm-up included).
  if (!load.duration_s) {
    const int64_t n = load.num_prompts > std::numeric_limits<int64_t>::max() - load.warmup
                          ? std::numeric_limits<int64_t>::max()
                          : load.num_prompts + load.warmup;
    if (n > options.max_requests)
      return ResourceExhausted(std::to_string(n) + " requests exceed the simulation's bound of " +
                               std::to_string(options.max_requests) +
                               " (--max-requests); ask for fewer (--num-prompts) or raise the bound");
  }
  return Status::Ok();
}

}  // namespace frontier::sim
