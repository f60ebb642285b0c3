#include "workload/cancel.h"

#include <cmath>
#include <random>

namespace frontier::workload {
namespace {

Result<int64_t> Mark(const CancelOptions& o, const std::vector<RequestSpec*>& all) {
  FRONTIER_RETURN_IF_ERROR(CheckCancelOptions(o));
  const auto n = static_cast<int64_t>(all.size());
  const auto k = static_cast<int64_t>(std::llround(o.fraction * static_cast<double>(n)));
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  std::mt19937_64 rng(o.seed ^ 0x63616e63656cULL);  // its own stream: "cancel"
  for (int64_t i = 0; i < k; ++i) {  // partial Fisher-Yates: the first k are the chosen
    std::uniform_int_distribution<int64_t> pick(i, n - 1);
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(pick(rng))]);
    RequestSpec* s = all[static_cast<size_t>(order[static_cast<size_t>(i)])];
    s->cancel_after_tokens = o.after_tokens;
    s->cancel_after_ns = o.after_ns;
  }
  return k;
}

}  // namespace

Status CheckCancelOptions(const CancelOptions& o) {
  if (!(o.fraction >= 0 && o.fraction <= 1))
    return InvalidArgument("--cancel-fraction must be in [0, 1], got " + std::to_string(o.fraction));
  if (o.fraction == 0) return Status::Ok();
  if ((o.after_tokens > 0) == (o.after_ns > 0))
    return InvalidArgument("--cancel-fraction needs exactly one of --cancel-after-tokens K (>= 1) and "
                           "--cancel-after-ms T (> 0)");
  if (o.after_tokens < 0 || o.after_ns < 0)
    return InvalidArgument("--cancel-after-tokens and --cancel-after-ms must be positive");
  return Status::Ok();
}

Result<int64_t> ApplyCancellation(const CancelOptions& o, std::span<RequestSpec> specs) {
  std::vector<RequestSpec*> all;
  all.reserve(specs.size());
  for (RequestSpec& s : specs) all.push_back(&s);
  return Mark(o, all);
}

Result<int64_t> ApplyCancellation(const CancelOptions& o, SessionWorkload* w) {
  std::vector<RequestSpec*> all;
  for (Session& s : w->sessions)
    for (Turn& t : s.turns) {
      all.push_back(&t.request);
      for (RequestSpec& r : t.subagents) all.push_back(&r);
    }
  return Mark(o, all);
}

}  // namespace frontier::workload
