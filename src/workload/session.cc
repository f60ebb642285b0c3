#include "workload/session.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace frontier::workload {

Status SampleThinkTimes(const ThinkTimeOptions& o, SessionWorkload* w) {
  if (!(o.mean_ms >= 0) || !std::isfinite(o.mean_ms))
    return InvalidArgument("--think-time-ms must be 0 or more milliseconds");
  if (!(o.max_ms >= 0) || !std::isfinite(o.max_ms))
    return InvalidArgument("--max-think-time-ms must be 0 or more milliseconds");
  std::mt19937_64 rng(o.seed ^ 0x7468696e6b000000ULL);  // its own stream: "think"
  std::exponential_distribution<double> draw(o.mean_ms > 0 ? 1.0 / o.mean_ms : 1.0);
  for (Session& s : w->sessions) {
    for (Turn& t : s.turns) {
      if (t.think_ns >= 0) continue;
      const double ms = o.mean_ms > 0 ? std::min(draw(rng), o.max_ms) : 0.0;
      t.think_ns = static_cast<Nanos>(std::llround(ms * kNanosPerMilli));
    }
  }
  return Status::Ok();
}

int64_t CountRequests(const SessionWorkload& w) {
  int64_t n = 0;
  for (const Session& s : w.sessions)
    for (const Turn& t : s.turns) n += 1 + static_cast<int64_t>(t.subagents.size());
  return n;
}

Status CheckSessions(const SessionWorkload& w) {
  if (w.sessions.empty()) return InvalidArgument("the session workload has no sessions");
  for (const Session& s : w.sessions) {
    const std::string where = "session " + (s.name.empty() ? std::to_string(s.id) : s.name);
    if (s.turns.empty()) return InvalidArgument(where + " has no turns");
    if (s.arrival_ns < 0) return InvalidArgument(where + ": its arrival time is negative");
    for (size_t k = 0; k < s.turns.size(); ++k) {
      const Turn& t = s.turns[k];
      if (t.request.output_len < 1)
        return InvalidArgument(where + ", turn " + std::to_string(k) + ": output length must be at least 1");
      if (!w.grow_context && t.request.prompt_token_ids.empty() && t.request.prompt_text.empty())
        return InvalidArgument(where + ", turn " + std::to_string(k) + " has an empty prompt");
    }
  }
  return Status::Ok();
}

}  // namespace frontier::workload
