#include "loadgen/session_runner.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <optional>
#include <unordered_map>

#include "core/checked.h"
#include "core/limits.h"
#include "loadgen/books.h"
#include "loadgen/text_answers.h"
#include "workload/arrival.h"
#include "workload/prefix_blocks.h"

namespace frontier::loadgen {
namespace {

// A session while it holds a slot.
struct Live {
  const workload::Session* session = nullptr;
  size_t record = 0;              // index in the result's sessions
  int32_t turn = 0;               // the turn in progress (or next)
  bool subagents_sent = false;    // turn's subagents are out
  int32_t outstanding = 0;        // requests in flight
  bool ended = false;             // no more requests will be sent
  // Growing sessions: prompts and answers so far, as token ids or as text
  // (with its length in tokens).
  std::vector<int32_t> context;
  std::string context_text;
  int64_t context_tokens = 0;
};

// Between the conversation so far and a growing text session's next message.
constexpr std::string_view kTurnSeparator = "\n";

enum class Step { kTurn, kSubagents };

struct Ready {
  Nanos at;         // absolute, the Target's clock
  size_t live;      // index in lives
  Step step;
  bool operator>(const Ready& o) const { return at != o.at ? at > o.at : live > o.live; }
};

}  // namespace

Result<RunResult> RunSessions(Target& target, const workload::SessionWorkload& w, const workload::LoadOptions& load,
                              const RunOptions& options, Observer* observer, const std::atomic<bool>* stop,
                              int ideal_block_tokens) {
  FRONTIER_RETURN_IF_ERROR(workload::CheckSessions(w));
  if (load.warmup != 0) return InvalidArgument("--warmup is not supported with session workloads; give 0");
  if (load.num_prompts < 1) return InvalidArgument("--num-prompts (sessions) must be at least 1");
  if (load.max_concurrency && *load.max_concurrency < 1)
    return InvalidArgument("--max-concurrency (sessions) must be at least 1");
  if (load.duration_s && !(*load.duration_s > 0))
    return InvalidArgument("--duration must be a positive number of seconds");
  if (ideal_block_tokens < 1) return InvalidArgument("the ideal hit rate's block size must be at least 1 token");
  bool cancels = false;
  for (const auto& s : w.sessions)
    for (const auto& t : s.turns) {
      cancels = cancels || t.request.cancel_after_ns > 0 || t.request.cancel_after_tokens > 0;
      for (const auto& r : t.subagents) cancels = cancels || r.cancel_after_ns > 0 || r.cancel_after_tokens > 0;
    }
  FRONTIER_RETURN_IF_ERROR(Ending::CheckCancels(target, cancels));
  TextAnswers* const text_answers = dynamic_cast<TextAnswers*>(&target);
  if (w.grow_context && text_answers != nullptr)
    for (const auto& s : w.sessions)
      for (const auto& t : s.turns)
        if (!t.request.prompt_token_ids.empty())
          return InvalidArgument("a growing session sent to the " + target.Name() +
                                 " target needs text prompts: add --prompt-format text (the server answers in "
                                 "text, and without its tokenizer the answer cannot join token-id prompts)");

  const Clock& clock = target.clock();
  const int64_t total = load.num_prompts == std::numeric_limits<int64_t>::max() && load.duration_s
                            ? std::min<int64_t>(options.max_planned, load.num_prompts)
                            : load.num_prompts;
  const size_t n_sessions = w.sessions.size();
  // A count given (not a duration's open end): its requests within the bound on a run's, before anything is planned.
  if (!(load.num_prompts == std::numeric_limits<int64_t>::max() && load.duration_s))
    FRONTIER_RETURN_IF_ERROR(workload::CheckRunRequests(w, total, "--num-prompts"));
  // Session starts, planned before anything is sent (relative to the run's start).
  std::vector<Nanos> plan(static_cast<size_t>(total), 0);
  if (!std::isinf(load.request_rate)) {
    workload::ArrivalOptions a;
    a.request_rate = load.request_rate;
    a.burstiness = load.burstiness;
    a.seed = load.seed;
    FRONTIER_ASSIGN_OR_RETURN(plan, workload::PlanArrivals(total, a));
  } else if (!(load.burstiness > 0)) {
    return InvalidArgument("--burstiness must be a positive number");
  }
  // The workload's sessions in start order (by their own arrivals when given and no rate replaces them).
  std::vector<size_t> order(n_sessions);
  for (size_t i = 0; i < n_sessions; ++i) order[i] = i;
  const bool own_arrivals = std::isinf(load.request_rate) && w.arrivals_given;
  if (own_arrivals)
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return w.sessions[a].arrival_ns < w.sessions[b].arrival_ns; });
  auto session_of = [&](int64_t i) { return &w.sessions[order[static_cast<size_t>(i) % n_sessions]]; };
  if (own_arrivals) {
    // A reused trace starts over after its last arrival.
    const Nanos span = SaturatingAdd(w.sessions[order.back()].arrival_ns, 1);
    for (int64_t i = 0; i < total; ++i) {
      // Checked: a trace whose times are near the end of the range, reused, must not wrap.
      const int64_t round = i / static_cast<int64_t>(n_sessions);
      const std::optional<int64_t> at = CheckedAdd(session_of(i)->arrival_ns, SaturatingMul(round, span));
      if (!at || *at > kMaxRunNanos)
        return InvalidArgument("the workload's arrival times, reused " + std::to_string(round) + " time(s) for " +
                               std::to_string(total) + " sessions (--num-prompts), reach past the bound of 1e9 s "
                               "on a run's schedule (docs/limits.md); lower --num-prompts or the trace's times");
      plan[static_cast<size_t>(i)] = *at;
    }
  }
  const int64_t cap = load.max_concurrency ? *load.max_concurrency : std::numeric_limits<int64_t>::max();

  const Nanos t0 = clock.Now();
  Books books(t0, 0, observer);
  RunResult run;
  run.origin_ns = t0;
  std::vector<Live> lives;
  std::vector<size_t> free_lives;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready;
  std::vector<size_t> owner;  // request id -> index in lives
  std::unordered_map<int64_t, std::unique_ptr<workload::RequestSpec>> built;  // growing prompts in flight
  workload::PrefixHitCounter ideal(ideal_block_tokens);
  bool ideal_valid = true;
  int64_t answers_missing = 0;
  int64_t open = 0, next_session = 0;
  bool issuing_done = false;
  Nanos next_progress = t0;
  Ending ending(target, books, stop, options.grace);
  const Nanos end_of_issue = load.duration_s ? t0 + SecondsToNanos(*load.duration_s) : 0;

  auto close = [&](size_t li, const std::string& reason) {
    Live& l = lives[li];
    SessionRecord& s = run.sessions[l.record];
    if (!l.ended) {
      l.ended = true;
      if (reason.empty()) {
        s.ok = true;
      } else {
        s.end_reason = reason;
      }
    }
    if (l.outstanding > 0) return;  // its slot frees when the last request ends
    l.context = {};
    l.context_text = {};
    l.session = nullptr;
    free_lives.push_back(li);
    --open;
  };

  // After a request ended (inside Poll: nothing is sent from here).
  books.OnStored([&](RequestRecord& r) {
    const size_t li = owner[static_cast<size_t>(r.id)];
    Live& l = lives[li];
    SessionRecord& s = run.sessions[l.record];
    --l.outstanding;
    s.end_ns = std::max(s.end_ns, r.end_ns);
    auto it = built.find(r.id);
    const bool text = it != built.end() && it->second->prompt_token_ids.empty();
    if (r.ok && w.grow_context && r.subagent < 0 && text) {
      // The conversation as sent, then the answer as the Target streamed it
      // (a Target that answers in ids, the simulator, needs only the lengths).
      const std::string answer = text_answers != nullptr ? text_answers->TakeAnswerText(r.id) : std::string();
      if (text_answers != nullptr && answer.empty() && r.output_tokens > 0) ++answers_missing;
      l.context_text = std::move(it->second->prompt_text);
      l.context_text += answer;
      l.context_tokens = it->second->input_len + static_cast<int64_t>(r.output_tokens);
    } else if (text && text_answers != nullptr) {
      text_answers->TakeAnswerText(r.id);  // a turn that failed: its text is not carried
    } else if (r.ok && w.grow_context && r.subagent < 0) {
      if (r.output_token_ids.empty() && r.output_tokens > 0) ++answers_missing;
      std::vector<int32_t>& ctx = l.context;
      if (it != built.end()) ctx = std::move(it->second->prompt_token_ids);
      ctx.insert(ctx.end(), r.output_token_ids.begin(), r.output_token_ids.end());
      r.output_token_ids = {};  // kept once, in the context
      ideal.Insert(ctx);
    }
    if (it != built.end()) built.erase(it);
    if (l.ended) {
      if (l.outstanding == 0) close(li, "");
      return;
    }
    if (!r.ok) {
      close(li, r.cancelled ? std::string(failure::kCancelled)
                            : "turn " + std::to_string(r.turn) + ": " + (r.failure.empty() ? failure::kOther : r.failure));
      return;
    }
    if (l.outstanding > 0) return;  // subagents still out
    const workload::Turn& turn = l.session->turns[static_cast<size_t>(l.turn)];
    const Nanos end_abs = r.end_ns + t0;
    if (!l.subagents_sent && !turn.subagents.empty()) {
      ready.push(Ready{end_abs, li, Step::kSubagents});
      return;
    }
    ++s.turns_done;
    ++l.turn;
    l.subagents_sent = false;
    if (l.turn >= static_cast<int32_t>(l.session->turns.size())) {
      close(li, "");
      return;
    }
    const Nanos think = std::max<Nanos>(0, l.session->turns[static_cast<size_t>(l.turn)].think_ns);
    ready.push(Ready{SaturatingAdd(end_abs, think), li, Step::kTurn});
  });

  auto send = [&](size_t li, const workload::RequestSpec& spec, Nanos planned_abs, int32_t subagent) {
    Live& l = lives[li];
    const int64_t id = books.issued();
    books.IssuedInSession(id, planned_abs - t0, spec.input_len, spec.output_len, l.session->id, l.turn, subagent);
    owner.push_back(li);
    ++l.outstanding;
    if (spec.prompt_token_ids.empty()) {
      ideal_valid = false;
    } else {
      ideal.Query(spec.prompt_token_ids);
    }
    SessionRecord& s = run.sessions[l.record];
    if (s.start_ns < 0) s.start_ns = clock.Now() - t0;
    target.Issue(id, spec);
    ending.Issued(id, spec);
  };

  auto issue_step = [&](const Ready& e) {
    Live& l = lives[e.live];
    if (l.ended || l.session == nullptr) return;
    const workload::Turn& turn = l.session->turns[static_cast<size_t>(l.turn)];
    if (e.step == Step::kSubagents) {
      l.subagents_sent = true;
      for (size_t j = 0; j < turn.subagents.size(); ++j)
        send(e.live, turn.subagents[j], e.at, static_cast<int32_t>(j));
      return;
    }
    if (!w.grow_context) {
      send(e.live, turn.request, e.at, -1);
      return;
    }
    auto spec = std::make_unique<workload::RequestSpec>(turn.request);
    if (turn.request.prompt_token_ids.empty()) {  // text
      if (!l.context_text.empty()) {
        spec->prompt_text = l.context_text;
        spec->prompt_text += kTurnSeparator;
        spec->prompt_text += turn.request.prompt_text;
      }
      spec->input_len = static_cast<int32_t>(
          std::min<int64_t>(l.context_tokens + turn.request.input_len, std::numeric_limits<int32_t>::max()));
      spec->want_output_ids = text_answers != nullptr;  // the simulator needs only the lengths
      const int64_t id = books.issued();
      workload::RequestSpec& ref = *spec;
      built.emplace(id, std::move(spec));
      send(e.live, ref, e.at, -1);
      return;
    }
    std::vector<int32_t> prompt = l.context;
    prompt.insert(prompt.end(), turn.request.prompt_token_ids.begin(), turn.request.prompt_token_ids.end());
    spec->prompt_token_ids = std::move(prompt);
    spec->input_len = static_cast<int32_t>(spec->prompt_token_ids.size());
    spec->want_output_ids = true;
    const int64_t id = books.issued();
    workload::RequestSpec& ref = *spec;
    built.emplace(id, std::move(spec));
    send(e.live, ref, e.at, -1);
  };

  auto report = [&](Nanos now) {
    if (!observer) return;
    Progress p;
    p.issued = books.issued();
    p.completed = books.completed();
    p.failed = books.failed();
    p.cancelled = books.cancelled();
    p.total = -1;  // requests of a session workload are known only as it runs
    p.in_flight = static_cast<int64_t>(target.InFlight());
    p.elapsed_ns = now - t0;
    p.duration_s = load.duration_s.value_or(0);
    p.stopping = ending.stopping();
    observer->OnProgress(p);
  };

  auto end_all = [&](const std::string& reason) {
    while (!ready.empty()) ready.pop();
    for (size_t li = 0; li < lives.size(); ++li)
      if (lives[li].session != nullptr && !lives[li].ended) close(li, reason);
  };

  while (true) {
    Nanos now = clock.Now();
    if (ending.NoticeStop(now)) {
      issuing_done = true;
      end_all(failure::kInterrupted);
    }
    ending.Act(now, books);
    if (!issuing_done && load.duration_s && now >= end_of_issue) {
      issuing_done = true;
      end_all("duration");
    }
    if (!issuing_done) {
      // Start sessions whose time has come while a slot is free.
      while (next_session < total && open < cap && t0 + plan[static_cast<size_t>(next_session)] <= now) {
        size_t li;
        if (free_lives.empty()) {
          li = lives.size();
          lives.emplace_back();
        } else {
          li = free_lives.back();
          free_lives.pop_back();
        }
        Live& l = lives[li];
        l = Live{};
        l.session = session_of(next_session);
        l.record = run.sessions.size();
        SessionRecord s;
        s.id = next_session;
        s.scheduled_ns = plan[static_cast<size_t>(next_session)];
        s.turns_planned = static_cast<int32_t>(l.session->turns.size());
        run.sessions.push_back(std::move(s));
        ++open;
        ++next_session;
        ready.push(Ready{t0 + run.sessions.back().scheduled_ns, li, Step::kTurn});
      }
      while (!ready.empty() && ready.top().at <= now) {
        const Ready e = ready.top();
        ready.pop();
        issue_step(e);
        now = clock.Now();
      }
      if (next_session >= total && open == 0) issuing_done = true;
    }
    if (issuing_done && target.InFlight() == 0) break;

    if (now >= next_progress) {
      report(now);
      next_progress = now + options.progress_interval;
    }
    Nanos deadline = now + options.max_poll;
    if (observer) deadline = std::min(deadline, next_progress);
    if (!issuing_done) {
      if (!ready.empty()) deadline = std::min(deadline, ready.top().at);
      if (next_session < total && open < cap) deadline = std::min(deadline, t0 + plan[static_cast<size_t>(next_session)]);
      if (load.duration_s) deadline = std::min(deadline, end_of_issue);
    }
    target.Poll(ending.Deadline(deadline), books);
  }
  report(clock.Now());

  run.interrupted = ending.stopping();
  run.served_model = target.ServedModel();
  run.requests = books.Take();
  Nanos first = std::numeric_limits<Nanos>::max(), last = std::numeric_limits<Nanos>::min();
  for (const auto& r : run.requests) {
    first = std::min(first, r.sent_ns);
    last = std::max(last, r.end_ns);
  }
  run.duration_ns = last > first ? last - first : 0;
  if (ideal_valid && ideal.queries() > 0) {
    run.ideal_prefix_hit_rate = ideal.HitRate();
    run.ideal_hit_block_tokens = ideal_block_tokens;
  }
  if (w.grow_context) run.effective_settings["session_answers_missing"] = std::to_string(answers_missing);
  return run;
}

}  // namespace frontier::loadgen
