// books.h: what RunLoad (runner.h) and RunSessions (session_runner.h) share
// besides their schedules: Books, the record keeping (rebases a Target's
// absolute times to the run's start, keeps one record per issued id and counts
// outcomes), and Ending, the rules by which requests end early (a stop
// request, time-based cancellation, the abort after the stop's grace).
//
// Thread safety: the timing core's thread only.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/run_result.h"
#include "loadgen/runner.h"
#include "loadgen/target.h"

namespace frontier::loadgen {

// Keeps the records: rebases a Target's absolute times to the run's start and
// counts outcomes.
class Books final : public CompletionSink {
 public:
  Books(Nanos t0, int64_t warmup, Observer* observer) : t0_(t0), warmup_(warmup), observer_(observer) {}

  // Reserves the slot of request `id`. Ids are issued in increasing order:
  // 0, 1, ... in a whole run, a shard's positions of the schedule (so not
  // contiguous) in a sharded one.
  void Issued(int64_t id, Nanos scheduled_rel, int32_t input_len, int32_t output_len) {
    if (id != static_cast<int64_t>(records_.size())) slot_of_[id] = records_.size();
    RequestRecord r;
    r.id = id;
    r.warmup = id < warmup_;
    r.scheduled_ns = scheduled_rel;
    r.prompt_tokens = input_len;
    r.requested_output_tokens = output_len;
    records_.push_back(std::move(r));
    pending_.push_back(true);
  }
  // The same, for a request of a session workload.
  void IssuedInSession(int64_t id, Nanos scheduled_rel, int32_t input_len, int32_t output_len, int64_t session,
                       int32_t turn, int32_t subagent) {
    Issued(id, scheduled_rel, input_len, output_len);
    RequestRecord& r = records_.back();
    r.session_id = session;
    r.turn = turn;
    r.subagent = subagent;
  }
  // Called with each stored record (times rebased) before the observer sees it.
  void OnStored(std::function<void(RequestRecord&)> hook) { on_stored_ = std::move(hook); }
  bool Pending(int64_t id) const {
    const int64_t i = SlotOf(id);
    return i >= 0 && pending_[static_cast<size_t>(i)];
  }

  void OnComplete(RequestRecord&& rec) override {
    const int64_t i = SlotOf(rec.id);
    if (i < 0 || !pending_[static_cast<size_t>(i)]) return;  // not ours or already ended: a Target bug; never double-count
    RequestRecord& slot = records_[static_cast<size_t>(i)];
    pending_[static_cast<size_t>(i)] = false;
    auto rebase = [&](Nanos t) { return t < 0 ? t : t - t0_; };
    rec.sent_ns = rebase(rec.sent_ns);
    rec.first_token_ns = rebase(rec.first_token_ns);
    rec.end_ns = rebase(rec.end_ns);
    if (t0_ != 0)
      for (auto& e : rec.events) e.t_ns -= t0_;
    rec.scheduled_ns = slot.scheduled_ns;
    rec.warmup = slot.warmup;
    rec.requested_output_tokens = slot.requested_output_tokens;
    rec.session_id = slot.session_id;
    rec.turn = slot.turn;
    rec.subagent = slot.subagent;
    if (rec.cancelled) {
      rec.ok = false;
      rec.failure = failure::kCancelled;
    }
    if (!rec.usage_reported || rec.prompt_tokens <= 0) rec.prompt_tokens = slot.prompt_tokens;
    if (!rec.ok && rec.failure.empty()) rec.failure = failure::kOther;
    slot = std::move(rec);
    if (slot.warmup) {
      ++warmup_done_;
    } else if (slot.cancelled) {
      ++cancelled_;
    } else if (slot.ok) {
      ++completed_;
    } else {
      ++failed_;
    }
    if (on_stored_) on_stored_(slot);
    if (observer_) observer_->OnRequest(slot);
  }

  std::vector<RequestRecord> Take() {
    for (size_t i = 0; i < records_.size(); ++i) {
      if (!pending_[i]) continue;  // never completed: a Target bug; keep it visible
      records_[i].ok = false;
      records_[i].failure = failure::kOther;
      records_[i].failure_detail = "the target never reported this request's end";
    }
    return std::move(records_);
  }

  int64_t warmup_done() const { return warmup_done_; }
  int64_t completed() const { return completed_; }
  int64_t failed() const { return failed_; }
  int64_t cancelled() const { return cancelled_; }
  int64_t issued() const { return static_cast<int64_t>(records_.size()); }

 private:
  const Nanos t0_;
  const int64_t warmup_;
  Observer* observer_;
  std::vector<RequestRecord> records_;
  std::vector<bool> pending_;
  std::unordered_map<int64_t, size_t> slot_of_;  // ids not at their own index (a shard's)

  // The index of request `id` in records_, or -1 when it was not issued.
  int64_t SlotOf(int64_t id) const {
    if (id >= 0 && id < static_cast<int64_t>(records_.size()) && records_[static_cast<size_t>(id)].id == id) return id;
    const auto at = slot_of_.find(id);
    return at == slot_of_.end() ? -1 : static_cast<int64_t>(at->second);
  }
  std::function<void(RequestRecord&)> on_stored_;
  int64_t warmup_done_ = 0, completed_ = 0, failed_ = 0, cancelled_ = 0;
};

// How requests end before their time, the same in every load core:
//   * a stop (*stop became true, SIGINT): seen once by NoticeStop, after
//     which the core issues nothing; requests in flight get `grace` to end,
//     then Act aborts the rest with failure::kInterrupted;
//   * time-based cancellation (workload/cancel.h): a spec with
//     cancel_after_ns is cancelled through Target::Cancel that long after it
//     was issued (token-based cancellation is the Target's own).
// Each pass of a core's loop calls NoticeStop, then Act, and bounds its Poll
// with Deadline.
class Ending {
 public:
  Ending(Target& target, CompletionSink& sink, const std::atomic<bool>* stop, Nanos grace)
      : target_(target), sink_(sink), stop_(stop), grace_(grace) {}

  // InvalidArgument when a workload that cancels meets a Target that cannot.
  static Status CheckCancels(const Target& target, bool cancels) {
    if (cancels && !target.SupportsCancel())
      return InvalidArgument("the " + target.Name() + " target cannot cancel requests; drop --cancel-fraction");
    return Status::Ok();
  }

  // Call right after target.Issue(id, spec): plans its time-based cancel.
  void Issued(int64_t id, const workload::RequestSpec& spec) {
    if (spec.cancel_after_ns > 0) cancel_due_.emplace(target_.clock().Now() + spec.cancel_after_ns, id);
  }

  // True once, on the pass that first sees the stop flag raised.
  bool NoticeStop(Nanos now) {
    if (stopping_ || stop_ == nullptr || !stop_->load(std::memory_order_relaxed)) return false;
    stopping_ = true;
    stop_deadline_ = now + grace_;
    return true;
  }

  // Cancels the requests whose time has come (those still pending in
  // `books`), and aborts what is in flight once a stop's grace ran out.
  void Act(Nanos now, const Books& books) {
    while (!cancel_due_.empty() && cancel_due_.top().first <= now) {
      if (books.Pending(cancel_due_.top().second)) target_.Cancel(cancel_due_.top().second, sink_);
      cancel_due_.pop();
    }
    if (stopping_ && !aborted_ && now >= stop_deadline_ && target_.InFlight() > 0) {
      target_.AbortAll(failure::kInterrupted, sink_);
      aborted_ = true;
    }
  }

  // `deadline`, brought forward to the next cancel or the stop's abort.
  Nanos Deadline(Nanos deadline) const {
    if (stopping_ && !aborted_) deadline = std::min(deadline, stop_deadline_);
    if (!cancel_due_.empty()) deadline = std::min(deadline, cancel_due_.top().first);
    return deadline;
  }

  bool stopping() const { return stopping_; }

 private:
  Target& target_;
  CompletionSink& sink_;
  const std::atomic<bool>* stop_;
  const Nanos grace_;
  bool stopping_ = false, aborted_ = false;
  Nanos stop_deadline_ = 0;
  // Time-based cancellations due: (absolute time, id), earliest first.
  using Due = std::pair<Nanos, int64_t>;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> cancel_due_;
};


}  // namespace frontier::loadgen
