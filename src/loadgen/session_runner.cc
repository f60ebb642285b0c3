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

// Whether any turn or subagent of the workload asks to be cancelled.
bool AnyCancels(const workload::SessionWorkload& w) {
  bool cancels = false;
  for (const auto& s : w.sessions)
    for (const auto& t : s.turns) {
      cancels = cancels || t.request.cancel_after_ns > 0 || t.request.cancel_after_tokens > 0;
      for (const auto& r : t.subagents) cancels = cancels || r.cancel_after_ns > 0 || r.cancel_after_tokens > 0;
    }
  return cancels;
}

// The checks on the options and the workload made before anything is planned.
Status CheckSessionRun(Target& target, TextAnswers* text_answers, const workload::SessionWorkload& w,
                       const workload::LoadOptions& load, int ideal_block_tokens) {
  FRONTIER_RETURN_IF_ERROR(workload::CheckSessions(w));
  if (load.warmup != 0) return InvalidArgument("--warmup is not supported with session workloads; give 0");
  if (load.num_prompts < 1) return InvalidArgument("--num-prompts (sessions) must be at least 1");
  if (load.max_concurrency && *load.max_concurrency < 1)
    return InvalidArgument("--max-concurrency (sessions) must be at least 1");
  if (load.duration_s && !(*load.duration_s > 0))
    return InvalidArgument("--duration must be a positive number of seconds");
  if (ideal_block_tokens < 1) return InvalidArgument("the ideal hit rate's block size must be at least 1 token");
  FRONTIER_RETURN_IF_ERROR(Ending::CheckCancels(target, AnyCancels(w)));
  if (w.grow_context && text_answers != nullptr)
    for (const auto& s : w.sessions)
      for (const auto& t : s.turns)
        if (!t.request.prompt_token_ids.empty())
          return InvalidArgument("a growing session sent to the " + target.Name() +
                                 " target needs text prompts: add --prompt-format text (the server answers in "
                                 "text, and without its tokenizer the answer cannot join token-id prompts)");
  return Status::Ok();
}

// When each session starts (relative to the run's start) and which of the
// workload's sessions it is.
struct SessionSchedule {
  int64_t total = 0;          // sessions to start
  std::vector<Nanos> plan;    // start of each, relative to the run's start
  std::vector<size_t> order;  // the workload's sessions in start order

  const workload::Session* SessionOf(const workload::SessionWorkload& w, int64_t i) const {
    return &w.sessions[order[static_cast<size_t>(i) % order.size()]];
  }
};

// Plans the session starts before anything is sent: from the rate when one is
// given, else from the workload's own arrivals (a reused trace starts over
// after its last arrival), else all at once.
Result<SessionSchedule> PlanSessions(const workload::SessionWorkload& w, const workload::LoadOptions& load,
                                     const RunOptions& options) {
  SessionSchedule sch;
  sch.total = load.num_prompts == std::numeric_limits<int64_t>::max() && load.duration_s
                  ? std::min<int64_t>(options.max_planned, load.num_prompts)
                  : load.num_prompts;
  const int64_t total = sch.total;
  const size_t n_sessions = w.sessions.size();
  // A count given (not a duration's open end): its requests within the bound on a run's, before anything is planned.
  if (!(load.num_prompts == std::numeric_limits<int64_t>::max() && load.duration_s))
    FRONTIER_RETURN_IF_ERROR(workload::CheckRunRequests(w, total, "--num-prompts"));
  sch.plan.assign(static_cast<size_t>(total), 0);
  if (!std::isinf(load.request_rate)) {
    workload::ArrivalOptions a;
    a.request_rate = load.request_rate;
    a.burstiness = load.burstiness;
    a.seed = load.seed;
    FRONTIER_ASSIGN_OR_RETURN(sch.plan, workload::PlanArrivals(total, a));
  } else if (!(load.burstiness > 0)) {
    return InvalidArgument("--burstiness must be a positive number");
  }
  // The workload's sessions in start order (by their own arrivals when given and no rate replaces them).
  sch.order.resize(n_sessions);
  for (size_t i = 0; i < n_sessions; ++i) sch.order[i] = i;
  const bool own_arrivals = std::isinf(load.request_rate) && w.arrivals_given;
  if (!own_arrivals) return sch;
  std::stable_sort(sch.order.begin(), sch.order.end(),
                   [&](size_t a, size_t b) { return w.sessions[a].arrival_ns < w.sessions[b].arrival_ns; });
  // A reused trace starts over after its last arrival.
  const Nanos span = SaturatingAdd(w.sessions[sch.order.back()].arrival_ns, 1);
  for (int64_t i = 0; i < total; ++i) {
    // Checked: a trace whose times are near the end of the range, reused, must not wrap.
    const int64_t round = i / static_cast<int64_t>(n_sessions);
    const std::optional<int64_t> at = CheckedAdd(sch.SessionOf(w, i)->arrival_ns, SaturatingMul(round, span));
    if (!at || *at > kMaxRunNanos)
      return InvalidArgument("the workload's arrival times, reused " + std::to_string(round) + " time(s) for " +
                             std::to_string(total) + " sessions (--num-prompts), reach past the bound of 1e9 s "
                             "on a run's schedule (docs/limits.md); lower --num-prompts or the trace's times");
    sch.plan[static_cast<size_t>(i)] = *at;
  }
  return sch;
}

// One run of a session workload, from the first start to the last answer.
// Single-threaded: the Target calls back (Books::OnStored) inside Poll.
class SessionRun {
 public:
  SessionRun(Target& target, const workload::SessionWorkload& w, const workload::LoadOptions& load,
             const RunOptions& options, Observer* observer, const std::atomic<bool>* stop, int ideal_block_tokens,
             TextAnswers* text_answers, SessionSchedule schedule)
      : target_(target),
        w_(w),
        load_(load),
        options_(options),
        observer_(observer),
        ideal_block_tokens_(ideal_block_tokens),
        text_answers_(text_answers),
        sch_(std::move(schedule)),
        clock_(target.clock()),
        t0_(clock_.Now()),
        books_(t0_, 0, observer),
        ideal_(ideal_block_tokens),
        next_progress_(t0_),
        ending_(target, books_, stop, options.grace),
        end_of_issue_(load.duration_s ? t0_ + SecondsToNanos(*load.duration_s) : 0),
        cap_(load.max_concurrency ? *load.max_concurrency : std::numeric_limits<int64_t>::max()) {
    run_.origin_ns = t0_;
  }

  RunResult Run();

 private:
  void Close(size_t li, const std::string& reason);
  void OnStored(RequestRecord& r);
  void GrowContext(Live& l, RequestRecord& r, workload::RequestSpec* built, bool text);
  void Send(size_t li, const workload::RequestSpec& spec, Nanos planned_abs, int32_t subagent);
  void IssueStep(const Ready& e);
  void IssueGrowingTurn(const Ready& e, const workload::Turn& turn);
  void Report(Nanos now);
  void EndAll(const std::string& reason);
  Nanos IssueDue(Nanos now);
  void StartDueSessions(Nanos now);
  Nanos PollDeadline(Nanos now) const;
  RunResult Finish();

  Target& target_;
  const workload::SessionWorkload& w_;
  const workload::LoadOptions& load_;
  const RunOptions& options_;
  Observer* const observer_;
  const int ideal_block_tokens_;
  TextAnswers* const text_answers_;
  const SessionSchedule sch_;
  const Clock& clock_;
  const Nanos t0_;
  Books books_;
  RunResult run_;
  std::vector<Live> lives_;
  std::vector<size_t> free_lives_;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready_;
  std::vector<size_t> owner_;  // request id -> index in lives
  std::unordered_map<int64_t, std::unique_ptr<workload::RequestSpec>> built_;  // growing prompts in flight
  workload::PrefixHitCounter ideal_;
  bool ideal_valid_ = true;
  int64_t answers_missing_ = 0;
  int64_t open_ = 0, next_session_ = 0;
  bool issuing_done_ = false;
  Nanos next_progress_;
  Ending ending_;
  const Nanos end_of_issue_;
  const int64_t cap_;
};

void SessionRun::Close(size_t li, const std::string& reason) {
  Live& l = lives_[li];
  SessionRecord& s = run_.sessions[l.record];
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
  free_lives_.push_back(li);
  --open_;
}

// A growing session's turn ended: its context becomes the prompt as sent plus
// the answer. `built` is the prompt this run built for the request, or null.
void SessionRun::GrowContext(Live& l, RequestRecord& r, workload::RequestSpec* built, bool text) {
  if (r.ok && w_.grow_context && r.subagent < 0 && text) {
    // The conversation as sent, then the answer as the Target streamed it
    // (a Target that answers in ids, the simulator, needs only the lengths).
    const std::string answer = text_answers_ != nullptr ? text_answers_->TakeAnswerText(r.id) : std::string();
    if (text_answers_ != nullptr && answer.empty() && r.output_tokens > 0) ++answers_missing_;
    l.context_text = std::move(built->prompt_text);
    l.context_text += answer;
    l.context_tokens = built->input_len + static_cast<int64_t>(r.output_tokens);
  } else if (text && text_answers_ != nullptr) {
    text_answers_->TakeAnswerText(r.id);  // a turn that failed: its text is not carried
  } else if (r.ok && w_.grow_context && r.subagent < 0) {
    if (r.output_token_ids.empty() && r.output_tokens > 0) ++answers_missing_;
    std::vector<int32_t>& ctx = l.context;
    if (built != nullptr) ctx = std::move(built->prompt_token_ids);
    ctx.insert(ctx.end(), r.output_token_ids.begin(), r.output_token_ids.end());
    r.output_token_ids = {};  // kept once, in the context
    ideal_.Insert(ctx);
  }
}

// After a request ended (inside Poll: nothing is sent from here).
void SessionRun::OnStored(RequestRecord& r) {
  const size_t li = owner_[static_cast<size_t>(r.id)];
  Live& l = lives_[li];
  SessionRecord& s = run_.sessions[l.record];
  --l.outstanding;
  s.end_ns = std::max(s.end_ns, r.end_ns);
  auto it = built_.find(r.id);
  const bool text = it != built_.end() && it->second->prompt_token_ids.empty();
  GrowContext(l, r, it != built_.end() ? it->second.get() : nullptr, text);
  if (it != built_.end()) built_.erase(it);
  if (l.ended) {
    if (l.outstanding == 0) Close(li, "");
    return;
  }
  if (!r.ok) {
    Close(li, r.cancelled ? std::string(failure::kCancelled)
                          : "turn " + std::to_string(r.turn) + ": " + (r.failure.empty() ? failure::kOther : r.failure));
    return;
  }
  if (l.outstanding > 0) return;  // subagents still out
  const workload::Turn& turn = l.session->turns[static_cast<size_t>(l.turn)];
  const Nanos end_abs = r.end_ns + t0_;
  if (!l.subagents_sent && !turn.subagents.empty()) {
    ready_.push(Ready{end_abs, li, Step::kSubagents});
    return;
  }
  ++s.turns_done;
  ++l.turn;
  l.subagents_sent = false;
  if (l.turn >= static_cast<int32_t>(l.session->turns.size())) {
    Close(li, "");
    return;
  }
  const Nanos think = std::max<Nanos>(0, l.session->turns[static_cast<size_t>(l.turn)].think_ns);
  ready_.push(Ready{SaturatingAdd(end_abs, think), li, Step::kTurn});
}

void SessionRun::Send(size_t li, const workload::RequestSpec& spec, Nanos planned_abs, int32_t subagent) {
  Live& l = lives_[li];
  const int64_t id = books_.issued();
  books_.IssuedInSession(id, planned_abs - t0_, spec.input_len, spec.output_len, l.session->id, l.turn, subagent);
  owner_.push_back(li);
  ++l.outstanding;
  if (spec.prompt_token_ids.empty()) {
    ideal_valid_ = false;
  } else {
    ideal_.Query(spec.prompt_token_ids);
  }
  SessionRecord& s = run_.sessions[l.record];
  if (s.start_ns < 0) s.start_ns = clock_.Now() - t0_;
  target_.Issue(id, spec);
  ending_.Issued(id, spec);
}

void SessionRun::IssueStep(const Ready& e) {
  Live& l = lives_[e.live];
  if (l.ended || l.session == nullptr) return;
  const workload::Turn& turn = l.session->turns[static_cast<size_t>(l.turn)];
  if (e.step == Step::kSubagents) {
    l.subagents_sent = true;
    for (size_t j = 0; j < turn.subagents.size(); ++j) Send(e.live, turn.subagents[j], e.at, static_cast<int32_t>(j));
    return;
  }
  if (!w_.grow_context) {
    Send(e.live, turn.request, e.at, -1);
    return;
  }
  IssueGrowingTurn(e, turn);
}

// A growing session's turn: the context so far, then the turn's own prompt.
void SessionRun::IssueGrowingTurn(const Ready& e, const workload::Turn& turn) {
  Live& l = lives_[e.live];
  auto spec = std::make_unique<workload::RequestSpec>(turn.request);
  if (turn.request.prompt_token_ids.empty()) {  // text
    if (!l.context_text.empty()) {
      spec->prompt_text = l.context_text;
      spec->prompt_text += kTurnSeparator;
      spec->prompt_text += turn.request.prompt_text;
    }
    spec->input_len = static_cast<int32_t>(
        std::min<int64_t>(l.context_tokens + turn.request.input_len, std::numeric_limits<int32_t>::max()));
    spec->want_output_ids = text_answers_ != nullptr;  // the simulator needs only the lengths
  } else {
    std::vector<int32_t> prompt = l.context;
    prompt.insert(prompt.end(), turn.request.prompt_token_ids.begin(), turn.request.prompt_token_ids.end());
    spec->prompt_token_ids = std::move(prompt);
    spec->input_len = static_cast<int32_t>(spec->prompt_token_ids.size());
    spec->want_output_ids = true;
  }
  const int64_t id = books_.issued();
  workload::RequestSpec& ref = *spec;
  built_.emplace(id, std::move(spec));
  Send(e.live, ref, e.at, -1);
}

void SessionRun::Report(Nanos now) {
  if (!observer_) return;
  Progress p;
  p.issued = books_.issued();
  p.completed = books_.completed();
  p.failed = books_.failed();
  p.cancelled = books_.cancelled();
  p.total = -1;  // requests of a session workload are known only as it runs
  p.in_flight = static_cast<int64_t>(target_.InFlight());
  p.elapsed_ns = now - t0_;
  p.duration_s = load_.duration_s.value_or(0);
  p.stopping = ending_.stopping();
  observer_->OnProgress(p);
}

void SessionRun::EndAll(const std::string& reason) {
  while (!ready_.empty()) ready_.pop();
  for (size_t li = 0; li < lives_.size(); ++li)
    if (lives_[li].session != nullptr && !lives_[li].ended) Close(li, reason);
}

// Starts sessions whose time has come while a slot is free.
void SessionRun::StartDueSessions(Nanos now) {
  while (next_session_ < sch_.total && open_ < cap_ && t0_ + sch_.plan[static_cast<size_t>(next_session_)] <= now) {
    size_t li;
    if (free_lives_.empty()) {
      li = lives_.size();
      lives_.emplace_back();
    } else {
      li = free_lives_.back();
      free_lives_.pop_back();
    }
    Live& l = lives_[li];
    l = Live{};
    l.session = sch_.SessionOf(w_, next_session_);
    l.record = run_.sessions.size();
    SessionRecord s;
    s.id = next_session_;
    s.scheduled_ns = sch_.plan[static_cast<size_t>(next_session_)];
    s.turns_planned = static_cast<int32_t>(l.session->turns.size());
    run_.sessions.push_back(std::move(s));
    ++open_;
    ++next_session_;
    ready_.push(Ready{t0_ + run_.sessions.back().scheduled_ns, li, Step::kTurn});
  }
}

// Starts due sessions and sends due steps; returns the clock after sending.
Nanos SessionRun::IssueDue(Nanos now) {
  StartDueSessions(now);
  while (!ready_.empty() && ready_.top().at <= now) {
    const Ready e = ready_.top();
    ready_.pop();
    IssueStep(e);
    now = clock_.Now();
  }
  if (next_session_ >= sch_.total && open_ == 0) issuing_done_ = true;
  return now;
}

// The next time the loop has something to do, bounded by max_poll.
Nanos SessionRun::PollDeadline(Nanos now) const {
  Nanos deadline = now + options_.max_poll;
  if (observer_) deadline = std::min(deadline, next_progress_);
  if (!issuing_done_) {
    if (!ready_.empty()) deadline = std::min(deadline, ready_.top().at);
    if (next_session_ < sch_.total && open_ < cap_)
      deadline = std::min(deadline, t0_ + sch_.plan[static_cast<size_t>(next_session_)]);
    if (load_.duration_s) deadline = std::min(deadline, end_of_issue_);
  }
  return deadline;
}

RunResult SessionRun::Run() {
  books_.OnStored([this](RequestRecord& r) { OnStored(r); });
  while (true) {
    Nanos now = clock_.Now();
    if (ending_.NoticeStop(now)) {
      issuing_done_ = true;
      EndAll(failure::kInterrupted);
    }
    ending_.Act(now, books_);
    if (!issuing_done_ && load_.duration_s && now >= end_of_issue_) {
      issuing_done_ = true;
      EndAll("duration");
    }
    if (!issuing_done_) now = IssueDue(now);
    if (issuing_done_ && target_.InFlight() == 0) break;

    if (now >= next_progress_) {
      Report(now);
      next_progress_ = now + options_.progress_interval;
    }
    target_.Poll(ending_.Deadline(PollDeadline(now)), books_);
  }
  Report(clock_.Now());
  return Finish();
}

RunResult SessionRun::Finish() {
  run_.interrupted = ending_.stopping();
  run_.served_model = target_.ServedModel();
  run_.requests = books_.Take();
  Nanos first = std::numeric_limits<Nanos>::max(), last = std::numeric_limits<Nanos>::min();
  for (const auto& r : run_.requests) {
    first = std::min(first, r.sent_ns);
    last = std::max(last, r.end_ns);
  }
  run_.duration_ns = last > first ? last - first : 0;
  if (ideal_valid_ && ideal_.queries() > 0) {
    run_.ideal_prefix_hit_rate = ideal_.HitRate();
    run_.ideal_hit_block_tokens = ideal_block_tokens_;
  }
  if (w_.grow_context) run_.effective_settings["session_answers_missing"] = std::to_string(answers_missing_);
  return std::move(run_);
}

}  // namespace

Result<RunResult> RunSessions(Target& target, const workload::SessionWorkload& w, const workload::LoadOptions& load,
                              const RunOptions& options, Observer* observer, const std::atomic<bool>* stop,
                              int ideal_block_tokens) {
  TextAnswers* const text_answers = dynamic_cast<TextAnswers*>(&target);
  FRONTIER_RETURN_IF_ERROR(CheckSessionRun(target, text_answers, w, load, ideal_block_tokens));
  FRONTIER_ASSIGN_OR_RETURN(SessionSchedule schedule, PlanSessions(w, load, options));
  SessionRun run(target, w, load, options, observer, stop, ideal_block_tokens, text_answers, std::move(schedule));
  return run.Run();
}

}  // namespace frontier::loadgen
