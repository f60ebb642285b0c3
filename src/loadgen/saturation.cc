#include "loadgen/saturation.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace frontier::loadgen {

std::string SaturationFinding::Describe() const {
  const double span = NanosToSeconds(at - span_start);
  return fmt::format("at {:.1f} s: {} arrived and {} ended in the last {:.1f} s ({:.2f} vs {:.2f} req/s), backlog {} "
                     "and growing",
                     NanosToSeconds(at), span_arrivals, span_ended, span, span > 0 ? span_arrivals / span : 0.0,
                     span > 0 ? span_ended / span : 0.0, backlog);
}

SaturationDetector::SaturationDetector(std::vector<Nanos> arrivals, SaturationOptions options)
    : o_(options), arrivals_(std::move(arrivals)) {
  std::sort(arrivals_.begin(), arrivals_.end());
  if (o_.interval <= 0) o_.interval = kNanosPerSecond;
  arrived_at_.push_back(0);  // checkpoint 0 (t = 0) counts nothing: every span starts after it
  backlog_at_.push_back(0);
  ended_at_.push_back(0);
}

void SaturationDetector::OnEnded(Nanos sent, Nanos first_token, Nanos end, bool ok) {
  const bool has_first = ok && first_token >= 0;
  pending_.push(Ended{end, has_first ? end - first_token : 0, has_first ? first_token - sent : 0, has_first});
}

const std::optional<SaturationFinding>& SaturationDetector::Advance(Nanos now) {
  while (!finding_ && next_k_ * o_.interval <= now) Evaluate(next_k_++);
  return finding_;
}

void SaturationDetector::Evaluate(int64_t k) {
  const Nanos t = k * o_.interval;
  while (!pending_.empty() && pending_.top().end <= t) {
    const Ended e = pending_.top();
    pending_.pop();
    ++ended_;
    if (!e.ok) continue;
    max_decode_ = any_ok_ ? std::max(max_decode_, e.decode) : e.decode;
    min_ttft_ = any_ok_ ? std::min(min_ttft_, e.ttft) : e.ttft;
    any_ok_ = true;
  }
  const auto arrived = static_cast<int64_t>(std::upper_bound(arrivals_.begin(), arrivals_.end(), t) - arrivals_.begin());
  arrived_at_.push_back(arrived);
  backlog_at_.push_back(arrived - ended_);
  ended_at_.push_back(ended_);

  const int64_t j = k / 2;
  const Nanos tj = j * o_.interval;
  const int64_t span_arrivals = arrived - arrived_at_[static_cast<size_t>(j)];
  const int64_t growth = backlog_at_[static_cast<size_t>(k)] - backlog_at_[static_cast<size_t>(j)];
  const bool settled = any_ok_ && static_cast<double>(tj) >= o_.settle_factor * static_cast<double>(max_decode_ + min_ttft_);
  const bool holds = settled && span_arrivals >= o_.min_span_arrivals &&
                     static_cast<double>(growth) >= o_.min_lag_fraction * static_cast<double>(span_arrivals);
  streak_ = holds ? streak_ + 1 : 0;
  if (streak_ < o_.confirmations) return;
  SaturationFinding f;
  f.at = t;
  f.span_start = tj;
  f.span_arrivals = span_arrivals;
  f.span_ended = ended_ - ended_at_[static_cast<size_t>(j)];
  f.backlog = backlog_at_[static_cast<size_t>(k)];
  finding_ = f;
}

}  // namespace frontier::loadgen
