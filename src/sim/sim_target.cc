#include "sim/sim_target.h"

#include <algorithm>
#include <cstdio>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core/parse.h"
#include "workload/prefix_blocks.h"

namespace frontier::sim {

namespace {

// A run's records are tens of MB of small blocks (a request's token events
// are reserved whole when the engine admits it), freed together when the
// caller drops the run. glibc's default returns the freed top of the heap to
// the kernel once it exceeds 128 KB and serves large blocks from fresh
// mappings, so every point of a sweep, every calibration replay and every
// validation run page-faults its records in again (measured: a third of
// bench/sim_speed's CPU time, mostly in the kernel). Keep freed memory for
// reuse instead: trim only beyond 512 MiB, map only blocks over 32 MiB (the
// largest threshold glibc takes). The process's resident size stays at its
// peak, which for a simulating process is what the next run needs anyway.
void KeepFreedMemoryForReuse() {
#if defined(__GLIBC__)
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
  });
#endif
}

}  // namespace

SimTarget::SimTarget(SimConfig config, SimulateOptions options)
    : config_(std::move(config)), options_(options), engine_(config_) {
  KeepFreedMemoryForReuse();
}

Status SimTarget::CheckLoad(const workload::LoadOptions& load) const {
  if (options_.client_rtt_ns < 0) return InvalidArgument("--client-rtt-us must be at least 0");
  return CheckRequestBound(load, options_);
}

namespace {
std::string VirtualSeconds(Nanos t) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g s", static_cast<double>(t) / kNanosPerSecond);
  return b;
}
}  // namespace

std::vector<int32_t> SimTarget::SyntheticOutputIds(std::span<const int32_t> prompt, int32_t n, int32_t vocab) {
  auto mix = [](uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
  };
  uint64_t seed = 0x616e73776572ULL;  // FNV-1a over the prompt's ids
  for (const int32_t t : prompt) seed = (seed ^ static_cast<uint32_t>(t)) * 1099511628211ULL;
  const uint64_t v = static_cast<uint64_t>(std::max(vocab, 1));
  std::vector<int32_t> out(static_cast<size_t>(std::max(n, 0)));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int32_t>(mix(seed ^ mix(i)) % v);
  return out;
}

std::string SimTarget::Name() const {
  return "simulated " + config_.model.name + " on " + std::to_string(config_.gpus) + "x " + config_.hardware.name;
}

void SimTarget::Issue(int64_t id, const workload::RequestSpec& spec) {
  // The bounds: the request that reaches one is still run; the load core
  // sees stop_ and ends the run.
  ++issued_;
  // What a request costs when the run is summarised, not only its record: the
  // records' vector grows by doubling (up to twice the records while it
  // moves), and each token event becomes an 8-byte inter-token sample in the
  // summary. Counted so, resident memory tracks --max-memory-mb.
  memory_ += 2 * static_cast<int64_t>(sizeof(RequestRecord)) +
             (options_.token_events ? static_cast<int64_t>(std::max(spec.output_len, 0)) *
                                          static_cast<int64_t>(sizeof(TokenEvent) + sizeof(double))
                                    : 0);
  if (bound_.ok()) {
    if (issued_ > options_.max_requests) {
      bound_ = ResourceExhausted("the simulation reached its bound of " + std::to_string(options_.max_requests) +
                                 " requests (--max-requests) at " + VirtualSeconds(now_) +
                                 " of virtual time; shorten --duration or raise the bound");
    } else if (memory_ > options_.max_memory_bytes) {
      bound_ = ResourceExhausted("the simulation's request records reached their bound of " +
                                 std::to_string(options_.max_memory_bytes >> 20) + " MiB (--max-memory-mb) after " +
                                 std::to_string(issued_ - 1) + " requests, at " + VirtualSeconds(now_) +
                                 " of virtual time; shorten --duration, lower --num-prompts or --output-len, "
                                 "or raise the bound");
    }
    if (!bound_.ok()) stop_.store(true, std::memory_order_relaxed);
  }
  int32_t slot;
  if (free_.empty()) {
    slot = static_cast<int32_t>(flights_.size());
    flights_.emplace_back();
  } else {
    slot = free_.back();
    free_.pop_back();
  }
  Flight& f = flights_[static_cast<size_t>(slot)];
  f.live = true;
  f.input = spec.input_len;
  f.output = spec.output_len;
  f.in_engine = false;
  f.cancel_after_tokens = spec.cancel_after_tokens;
  f.hashes.clear();
  f.output_ids.clear();
  const bool ids = !spec.prompt_token_ids.empty();
  if (spec.want_output_ids || (ids && config_.prefix_caching)) {
    // A text prompt has no ids to derive the answer from: its id stands in.
    const int32_t own_key[1] = {static_cast<int32_t>(id)};
    const std::span<const int32_t> key =
        ids ? std::span<const int32_t>(spec.prompt_token_ids) : std::span<const int32_t>(own_key);
    std::vector<int32_t> answer = SyntheticOutputIds(key, std::max(spec.output_len, 0), config_.model.vocab);
    if (ids && config_.prefix_caching)
      f.hashes = workload::ChainedBlockHashes(spec.prompt_token_ids, answer, config_.block_size);
    if (spec.want_output_ids) f.output_ids = std::move(answer);
  }
  f.plain = f.output_ids.empty() && f.cancel_after_tokens <= 0;
  if (!f.plain) ++unplain_live_;
  RequestRecord& r = f.record;
  r.id = id;
  r.sent_ns = now_;
  r.prompt_tokens = spec.input_len;
  r.requested_output_tokens = spec.output_len;
  arriving_.push_back(Arrival{now_ + options_.client_rtt_ns, slot});
  ++in_flight_;
}

void SimTarget::Finish(int32_t slot, loadgen::CompletionSink& sink) {
  Flight& f = flights_[static_cast<size_t>(slot)];
  f.live = false;
  f.in_engine = false;
  if (!f.plain) --unplain_live_;
  RequestRecord done = std::move(f.record);
  f.record = RequestRecord{};
  if (busy_) {
    free_after_step_.push_back(slot);
  } else {
    free_.push_back(slot);
  }
  --in_flight_;
  sink.OnComplete(std::move(done));
}

bool SimTarget::Admit(bool inclusive, loadgen::CompletionSink& sink) {
  bool ended = false;
  while (!arriving_.empty()) {
    const Arrival a = arriving_.front();
    if (a.at > now_ || (a.at == now_ && !inclusive)) break;
    arriving_.pop_front();
    Flight& f = flights_[static_cast<size_t>(a.slot)];
    const Status s = engine_.Add(a.slot, f.input, f.output, std::move(f.hashes));
    if (s.ok()) {
      f.in_engine = true;
      if (options_.token_events) f.record.events.reserve(static_cast<size_t>(std::max(f.output, 0)));
      continue;
    }
    f.record.ok = false;
    f.record.failure = failure::kSimulatorRejected;
    f.record.failure_detail = s.message();
    f.record.end_ns = a.at;
    Finish(a.slot, sink);
    ended = true;
  }
  return ended;
}

void SimTarget::Account() {
  const BatchShape& shape = step_.shape;
  batch_tokens_ += static_cast<double>(shape.tokens());
  running_sum_ += static_cast<double>(shape.decode_seqs + shape.prefill_seqs);
  if (shape.prefill_tokens == 0) {
    if (shape.decode_seqs > stats_.busiest_decode.decode_seqs) stats_.busiest_decode = shape;
  } else if (shape.decode_seqs > 0) {
    stats_.typical_mixed = shape;
  }
  stats_.peak_kv_usage = std::max(stats_.peak_kv_usage, engine_.kv_usage());
  if (options_.trace == nullptr) return;
  int64_t emitted = 0, firsts = 0, finished = 0;
  for (const auto& e : step_.emissions) {
    emitted += e.tokens;
    firsts += e.first ? 1 : 0;
    finished += e.finished ? 1 : 0;
  }
  options_.trace->Record(shape, emitted, firsts, finished);
  if (step_.duration_ns <= options_.client_rtt_ns || engine_.disaggregated()) options_.trace->replayable = false;
}

void SimTarget::AccountRun(int64_t steps) {
  // The run's first step; the others differ from it only in their keys.
  const BatchShape& shape = step_.shape;
  // Whole numbers far below 2^53: adding the run's at once is exact, as step by step.
  batch_tokens_ += static_cast<double>(shape.tokens() * steps);
  running_sum_ += static_cast<double>((shape.decode_seqs + shape.prefill_seqs) * steps);
  if (shape.decode_seqs > stats_.busiest_decode.decode_seqs) stats_.busiest_decode = shape;
  // The run only takes pages (it frees and caches none): its last step's
  // usage is its peak.
  stats_.peak_kv_usage = std::max(stats_.peak_kv_usage, engine_.kv_usage());
}

void SimTarget::CancelSlot(int32_t slot, loadgen::CompletionSink& sink) {
  Flight& f = flights_[static_cast<size_t>(slot)];
  if (f.in_engine) engine_.Cancel(slot);
  for (auto it = arriving_.begin(); it != arriving_.end(); ++it)
    if (it->slot == slot) {
      arriving_.erase(it);
      break;
    }
  f.record.ok = false;
  f.record.cancelled = true;
  f.record.failure = failure::kCancelled;
  f.record.end_ns = now_;
  Finish(slot, sink);
}

bool SimTarget::Cancel(int64_t id, loadgen::CompletionSink& sink) {
  for (size_t i = 0; i < flights_.size(); ++i) {
    if (!flights_[i].live || flights_[i].record.id != id) continue;
    CancelSlot(static_cast<int32_t>(i), sink);
    clock_.Set(now_);
    return true;
  }
  return false;
}

bool SimTarget::Deliver(loadgen::CompletionSink& sink) {
  bool ended = false;
  for (int32_t slot : free_after_step_) free_.push_back(slot);
  free_after_step_.clear();
  const Nanos now = now_;
  for (const auto& e : step_.emissions) {
    Flight& f = flights_[static_cast<size_t>(e.id)];
    if (!f.live) continue;  // cancelled during the step
    RequestRecord& r = f.record;
    // Read before the record grows (which the compiler must assume could change them).
    const int32_t tokens = e.tokens;
    const bool plain = f.plain & !(e.first | e.finished);  // most tokens (no branches: all three are read anyway)
    if (options_.token_events) r.events.push_back(TokenEvent{now, tokens});
    if (plain) {
      r.output_tokens += tokens;
      continue;
    }
    if (!f.output_ids.empty()) {
      // The simulator generates no text: the answer's ids (SyntheticOutputIds,
      // the ones prefix caching hashed) arrive as their tokens are emitted,
      // so a session's next turn carries what was really delivered.
      const size_t from = std::min(static_cast<size_t>(std::max(r.output_tokens, 0)), f.output_ids.size());
      const size_t to = std::min(from + static_cast<size_t>(std::max(e.tokens, 0)), f.output_ids.size());
      r.output_token_ids.insert(r.output_token_ids.end(), f.output_ids.begin() + static_cast<std::ptrdiff_t>(from),
                                f.output_ids.begin() + static_cast<std::ptrdiff_t>(to));
    }
    r.output_tokens += e.tokens;
    if (e.first) r.first_token_ns = now_;
    if (!e.finished && f.cancel_after_tokens > 0 && r.output_tokens >= f.cancel_after_tokens) {
      CancelSlot(static_cast<int32_t>(e.id), sink);
      ended = true;
      continue;
    }
    if (!e.finished) continue;
    r.end_ns = now_;
    r.ok = true;
    r.usage_reported = true;
    Finish(static_cast<int32_t>(e.id), sink);
    ended = true;
  }
  return ended;
}

void SimTarget::DeliverRun() {
  for (int32_t slot : free_after_step_) free_.push_back(slot);
  free_after_step_.clear();
  // Each step's end, when its tokens are emitted.
  for (Nanos& t : run_steps_) t = now_ += t;
  const int32_t steps = static_cast<int32_t>(run_steps_.size());
  for (const auto& e : step_.emissions) {
    RequestRecord& r = flights_[static_cast<size_t>(e.id)].record;
    if (options_.token_events)
      for (const Nanos t : run_steps_) r.events.push_back(TokenEvent{t, 1});
    r.output_tokens += steps;
  }
}

void SimTarget::Poll(Nanos deadline, loadgen::CompletionSink& sink) {
  if (options_.stop != nullptr && options_.stop->load(std::memory_order_relaxed))
    stop_.store(true, std::memory_order_relaxed);
  const bool disagg = engine_.disaggregated();
  while (true) {
    if (!busy_) {
      // Virtual time has reached the deadline: the load core issues what is
      // due now before the next step is planned.
      if (now_ >= deadline) break;
      // The step starting now takes what arrived before now; an arrival at
      // now itself only wakes an idle engine (or makes it with an
      // instantaneous client; a disaggregated engine's idle prefill worker
      // takes it at once).
      if (!arriving_.empty() && Admit(options_.client_rtt_ns == 0 || disagg || engine_.Idle(), sink)) break;
      if (engine_.Idle()) {
        if (arriving_.empty() || arriving_.front().at > deadline) {
          now_ = std::max(now_, deadline);
          break;
        }
        if (options_.trace != nullptr) options_.trace->idle_ns += arriving_.front().at - now_;
        now_ = arriving_.front().at;
        continue;
      }
      if (disagg) {
        // Workers run side by side: stop the clock at an arrival or the
        // deadline before the next event, so an idle prefill worker starts then.
        const Nanos in = engine_.NextEventIn();
        Nanos due = deadline;
        if (!arriving_.empty()) due = std::min(due, arriving_.front().at);
        if (in == Engine::kNever || due - now_ < in) {
          engine_.Advance(due - now_);
          now_ = due;
          continue;
        }
        engine_.RunStep(&step_);
        Account();
        now_ += in;  // the engine's clock: the step's duration counts from its last event
        if (Deliver(sink)) break;
        continue;
      }
      if (options_.trace == nullptr && unplain_live_ == 0) {
        // Steady decode steps that end before the deadline and before the
        // next arrival, and end no request: the load core has nothing to do
        // between them, so they are planned and delivered as one run.
        Nanos before = deadline - now_;
        if (!arriving_.empty()) before = std::min(before, arriving_.front().at - now_);
        const int64_t steps = engine_.RunDecodeSteps(before, &step_, &run_steps_);
        if (steps > 0) {
          AccountRun(steps);
          DeliverRun();
          continue;
        }
      }
      engine_.RunStep(&step_);
      Account();
      step_end_ = now_ + step_.duration_ns;
      busy_ = true;
    }
    if (step_end_ > deadline) {
      now_ = std::max(now_, deadline);
      break;
    }
    now_ = step_end_;
    busy_ = false;
    if (Deliver(sink)) break;
  }
  clock_.Set(now_);
}

void SimTarget::AbortAll(const char* reason, loadgen::CompletionSink& sink) {
  arriving_.clear();
  for (size_t i = 0; i < flights_.size(); ++i) {
    Flight& f = flights_[i];
    if (!f.live) continue;
    if (f.in_engine) engine_.Cancel(static_cast<int64_t>(i));
    f.record.ok = false;
    f.record.failure = reason;
    f.record.end_ns = now_;
    Finish(static_cast<int32_t>(i), sink);
  }
  busy_ = false;  // the step in flight is dropped with its requests
}

void SimTarget::Describe(RunResult* run) const {
  run->source = RunSource::kSimulated;
  run->host = "frontier simulator";
  run->served_model = config_.model.name;
  for (auto& [k, v] : config_.EffectiveSettings()) run->effective_settings[k] = v;
  run->effective_settings["client_rtt_us"] =
      FormatSignificant(static_cast<double>(options_.client_rtt_ns) / kNanosPerMicro);
  run->band = options_.band;
  const EngineStats es = engine_.stats();
  ServerMetrics m;
  m.source = "simulator";
  m.kind = "frontier";
  if (config_.prefix_caching && config_.model.sliding_layers == 0) {
    m.prefix_cache_queries = static_cast<double>(es.prefix_queries);
    m.prefix_cache_hits = static_cast<double>(es.prefix_hits);
    m.prefix_cache_hit_rate = es.prefix_queries > 0 ? m.prefix_cache_hits / m.prefix_cache_queries : 0;
  }
  run->server_metrics = std::move(m);
}

SimulationStats SimTarget::stats() const {
  SimulationStats s = stats_;
  const EngineStats es = engine_.stats();
  s.steps = es.steps;
  s.preemptions = es.preemptions;
  s.prefix_queries = es.prefix_queries;
  s.prefix_hits = es.prefix_hits;
  s.evicted_blocks = es.evicted_blocks;
  if (es.steps > 0) {
    s.mean_batch_tokens = batch_tokens_ / static_cast<double>(es.steps);
    s.mean_running = running_sum_ / static_cast<double>(es.steps);
  }
  return s;
}

}  // namespace frontier::sim
