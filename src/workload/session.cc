#include "workload/session.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/checked.h"
#include "core/limits.h"

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

int64_t CountRunRequests(const SessionWorkload& w, int64_t sessions) {
  const int64_t n = static_cast<int64_t>(w.sessions.size());
  if (n == 0 || sessions <= 0) return 0;
  int64_t per_cycle = 0, rest = 0;
  const int64_t partial = sessions % n;
  for (int64_t i = 0; i < n; ++i) {
    const Session& s = w.sessions[static_cast<size_t>(i)];
    int64_t k = 0;
    for (const Turn& t : s.turns) k = SaturatingAdd(k, 1 + static_cast<int64_t>(t.subagents.size()));
    per_cycle = SaturatingAdd(per_cycle, k);
    if (i < partial) rest = SaturatingAdd(rest, k);
  }
  return SaturatingAdd(SaturatingMul(sessions / n, per_cycle), rest);
}

Status CheckRunRequests(const SessionWorkload& w, int64_t sessions, const std::string& flag) {
  const int64_t requests = CountRunRequests(w, sessions);
  if (requests <= kMaxRunRequests) return Status::Ok();
  return InvalidArgument(flag + " " + std::to_string(sessions) + ": that many sessions of the workload's " +
                         std::to_string(w.sessions.size()) + " (reused cyclically) send " +
                         (requests == kInt64Max ? std::string("more than 2^63") : std::to_string(requests)) +
                         " requests (turns and subagents); a run sends at most " + std::to_string(kMaxRunRequests) +
                         " (docs/limits.md); lower " + flag);
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
