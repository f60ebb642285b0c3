#include "sim/engine/engine.h"

#include <algorithm>

namespace frontier::sim {

struct Engine::Slot {
  explicit Slot(SimConfig c, Worker::Role role) : worker(std::move(c), role) {}
  Worker worker;
  Worker::Step step;       // in flight when busy
  bool busy = false;
  Nanos end = 0;           // when the step in flight ends
  Nanos link_free = 0;     // prefill workers: when their last hand-off is through
};

struct Engine::Transfer {
  Nanos lands = 0;
  int64_t id = 0;
  int32_t input = 0, output = 0;
};

Engine::Engine(SimConfig config) : config_(std::move(config)) {
  if (!config_.disagg) {
    single_ = std::make_unique<Worker>(config_);
    return;
  }
  const SimConfig pc = config_.PoolView(SimConfig::Pool::kPrefill);
  const SimConfig dc = config_.PoolView(SimConfig::Pool::kDecode);
  for (int i = 0; i < config_.disagg->prefill.workers; ++i)
    prefill_.push_back(std::make_unique<Slot>(pc, Worker::Role::kPrefill));
  for (int i = 0; i < config_.disagg->decode.workers; ++i)
    decode_.push_back(std::make_unique<Slot>(dc, Worker::Role::kDecode));
}

Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

Status Engine::AddToLeastLoaded(std::vector<std::unique_ptr<Slot>>& pool, int64_t id, int32_t in, int32_t out,
                                bool prefilled, std::vector<uint64_t> block_hashes) {
  Slot* best = nullptr;
  for (auto& s : pool)
    if (best == nullptr || s->worker.load() < best->worker.load()) best = s.get();
  return prefilled ? best->worker.AddPrefilled(id, in, out) : best->worker.Add(id, in, out, std::move(block_hashes));
}

Status Engine::Add(int64_t id, int32_t input_len, int32_t output_len, std::vector<uint64_t> block_hashes) {
  if (single_) return single_->Add(id, input_len, output_len, std::move(block_hashes));
  // A request must also fit a decode worker once its prompt is done.
  for (const auto& t : transfers_)
    if (t.id == id) return InvalidArgument("request " + std::to_string(id) + " is already in the engine");
  FRONTIER_RETURN_IF_ERROR(decode_.front()->worker.Check(-1, input_len, output_len));
  return AddToLeastLoaded(prefill_, id, input_len, output_len, false, std::move(block_hashes));
}

void Engine::Cancel(int64_t id) {
  if (single_) return single_->Cancel(id);
  for (auto& s : prefill_) s->worker.Cancel(id);
  for (auto& s : decode_) s->worker.Cancel(id);
  transfers_.erase(std::remove_if(transfers_.begin(), transfers_.end(), [&](const Transfer& t) { return t.id == id; }),
                   transfers_.end());
}

bool Engine::PoolsIdle() const {
  if (!transfers_.empty()) return false;
  for (const auto& s : prefill_)
    if (s->busy || !s->worker.Idle()) return false;
  for (const auto& s : decode_)
    if (s->busy || !s->worker.Idle()) return false;
  return true;
}

void Engine::StartIdle() {
  for (auto* pool : {&prefill_, &decode_}) {
    for (auto& s : *pool) {
      if (s->busy || s->worker.Idle()) continue;
      s->worker.RunStep(&s->step);
      if (s->step.duration_ns <= 0) continue;
      s->busy = true;
      s->end = now_ + s->step.duration_ns;
    }
  }
}

Nanos Engine::NextEventIn() {
  if (single_) return kNever;
  StartIdle();
  Nanos next = kNever;
  for (auto* pool : {&prefill_, &decode_})
    for (auto& s : *pool)
      if (s->busy) next = std::min(next, s->end);
  if (!transfers_.empty()) next = std::min(next, transfers_.front().lands);
  return next == kNever ? kNever : next - now_;
}

void Engine::Advance(Nanos ns) { now_ += std::max<Nanos>(0, ns); }

void Engine::RunPools(Step* out) {
  out->duration_ns = 0;
  out->emissions.clear();
  out->handoffs.clear();
  out->shape = BatchShape{};
  out->preempted = 0;
  out->pool = 0;
  const Nanos in = NextEventIn();
  if (in == kNever) return;
  now_ += in;
  out->duration_ns = now_ - last_event_;
  last_event_ = now_;
  const DisaggConfig& d = *config_.disagg;
  // Each worker of `pool` whose step ends now is freed, reports its step as
  // pool `id`'s, then `then` takes what the step produced.
  const auto end_steps = [&](std::vector<std::unique_ptr<Slot>>& pool, int id, auto then) {
    for (auto& s : pool) {
      if (!s->busy || s->end != now_) continue;
      s->busy = false;
      out->shape = s->step.shape;
      out->pool = id;
      out->preempted += s->step.preempted;
      then(*s);
    }
  };
  // Prefill workers hand their finished prompts on.
  end_steps(prefill_, 1, [&](Slot& s) {
    for (const auto& h : s.step.handoffs) {
      const double bytes = static_cast<double>(h.input) * d.kv_bytes_per_token;
      const Nanos took = static_cast<Nanos>(config_.stack.params.kv_transfer_us * 1e3 +
                                            bytes / (d.kv_gbps * 1e9) * 1e9);
      const Nanos start = std::max(now_, s.link_free);
      s.link_free = start + took;
      Transfer t{s.link_free, h.id, h.input, h.output};
      transfers_.insert(std::upper_bound(transfers_.begin(), transfers_.end(), t,
                                         [](const Transfer& a, const Transfer& b) { return a.lands < b.lands; }),
                        t);
    }
  });
  // Decode workers emit.
  end_steps(decode_, 2, [&](Slot& s) {
    out->emissions.insert(out->emissions.end(), s.step.emissions.begin(), s.step.emissions.end());
  });
  // Caches that land now: the request's first token, then decoding.
  while (!transfers_.empty() && transfers_.front().lands <= now_) {
    const Transfer t = transfers_.front();
    transfers_.erase(transfers_.begin());
    Emission e;
    e.id = t.id;
    e.tokens = 1;
    e.first = true;
    e.finished = t.output <= 1;
    out->emissions.push_back(e);
    if (!e.finished) {
      // Add() checked that it fits a decode worker alone.
      (void)AddToLeastLoaded(decode_, t.id, t.input, t.output, true);
    }
  }
}

StepCost Engine::Explain(const BatchShape& shape, int pool) const {
  if (single_) return single_->Explain(shape);
  const auto& slots = pool == 1 ? prefill_ : decode_;
  return slots.front()->worker.Explain(shape);
}

EngineStats Engine::stats() const {
  if (single_) return single_->stats();
  EngineStats out;
  for (auto* pool : {&prefill_, &decode_}) {
    for (const auto& s : *pool) {
      const EngineStats w = s->worker.stats();
      out.running += w.running;
      out.waiting += w.waiting;
      out.steps += w.steps;
      out.preemptions += w.preemptions;
      out.finished += w.finished;
      out.prefix_queries += w.prefix_queries;
      out.prefix_hits += w.prefix_hits;
      out.cached_blocks += w.cached_blocks;
      out.evicted_blocks += w.evicted_blocks;
      if (pool == &decode_) {
        out.kv_blocks_used += w.kv_blocks_used;
        out.kv_blocks_total += w.kv_blocks_total;
      }
    }
  }
  out.waiting += static_cast<int64_t>(transfers_.size());
  return out;
}

}  // namespace frontier::sim
