// books.h: the load core's record keeping, shared by RunLoad (runner.h) and
// RunSessions (session_runner.h): rebases a Target's absolute times to the
// run's start, keeps one record per issued id and counts outcomes.
//
// Thread safety: the timing core's thread only.
#pragma once

#include <cstdint>
#include <functional>
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


}  // namespace frontier::loadgen
