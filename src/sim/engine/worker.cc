#include "sim/engine/worker.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace frontier::sim {
namespace {

// The shape of a step in which `n` requests each decode one token over
// `keys` cached keys in all, with no draft tokens and nothing in prefill.
BatchShape DecodeOnlyShape(int64_t n, double keys) {
  BatchShape shape;  // every other field 0
  for (auto field : kDecodeCounts) shape.*field = n;
  for (auto field : kDecodeKeys) shape.*field = keys;
  return shape;
}

}  // namespace

Worker::Worker(SimConfig config, Role role) : model_(std::move(config)), role_(role) {
  const SimConfig& c = model_.config();
  budget_tokens_ = static_cast<int64_t>(c.max_num_batched_tokens) * c.dp;
  max_running_ = static_cast<int64_t>(c.max_num_seqs) * c.dp;
  chunked_ = c.chunked_prefill;
  mixed_ = c.mixed_prefill;
  spec_tokens_ = c.spec_tokens;
  acceptance_ = c.spec_tokens > 0 ? c.acceptance : 1.0;
  window_ = c.model.sliding_window;
  full_layers_ = c.model.full_attention_layers();
  swa_layers_ = c.model.sliding_layers;
  block_ = c.block_size;
  const double page_bytes = block_ * c.memory.kv_bytes_per_token / std::max(1, c.model.layers);
  if (page_bytes > 0 && c.memory.kv > 0)
    units_total_ = static_cast<int64_t>(c.memory.kv / page_bytes) * c.dp;
  // A cached block holds a page in every layer; with sliding-window layers a
  // request's pages are not one per block, which this cache does not model.
  caching_ = c.prefix_caching && swa_layers_ == 0 && role_ != Role::kDecode;
  reserve_all_ = c.stack.reserve_to_completion;
  block_units_ = full_layers_;
}

int64_t Worker::UnitsFor(int64_t tokens) const {
  const int64_t pages = (tokens + block_ - 1) / block_;
  int64_t units = pages * full_layers_;
  if (swa_layers_ > 0) units += std::min(pages, (window_ + block_ - 1) / block_ + 1) * swa_layers_;
  return units;
}

Status Worker::Check(int64_t id, int32_t input_len, int32_t output_len) const {
  if (input_len < 1 || output_len < 1)
    return InvalidArgument("request " + std::to_string(id) + ": input and output lengths must be at least 1");
  if (by_id_.count(id)) return InvalidArgument("request " + std::to_string(id) + " is already in the engine");
  const int64_t total = static_cast<int64_t>(input_len) + output_len;
  const int max_ctx = config().max_model_len > 0 ? config().max_model_len : config().model.max_context;
  if (max_ctx > 0 && total > max_ctx)
    return InvalidArgument("request " + std::to_string(id) + ": " + std::to_string(input_len) + " input + " +
                           std::to_string(output_len) + " output tokens exceed the engine's max_model_len of " +
                           std::to_string(max_ctx));
  if (!chunked_ && input_len > config().max_num_batched_tokens)
    return InvalidArgument("request " + std::to_string(id) + ": its " + std::to_string(input_len) +
                           "-token prompt exceeds the step budget of " +
                           std::to_string(config().max_num_batched_tokens) + " tokens, and " + config().stack.id() +
                           " runs prompts whole (raise --max-num-batched-tokens)");
  if (UnitsFor(total + spec_tokens_) > units_total_)
    return FailedPrecondition("request " + std::to_string(id) + ": " + std::to_string(total) +
                              " tokens need more KV cache than the deployment holds (" +
                              std::to_string(config().memory.kv_capacity_tokens) + " tokens)");
  return Status::Ok();
}

int32_t Worker::Slot() {
  int32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<int32_t>(seqs_.size());
    seqs_.emplace_back();
  }
  return slot;
}

Status Worker::Add(int64_t id, int32_t input_len, int32_t output_len, std::vector<uint64_t> block_hashes) {
  FRONTIER_RETURN_IF_ERROR(Check(id, input_len, output_len));
  Seq& s = Queue(id, input_len, output_len);
  if (caching_) {
    // Blocks past the request's last token would never fill.
    const size_t blocks = static_cast<size_t>((static_cast<int64_t>(input_len) + output_len) / block_);
    if (block_hashes.size() > blocks) block_hashes.resize(blocks);
    s.hashes = std::move(block_hashes);
  }
  return Status::Ok();
}

Status Worker::AddPrefilled(int64_t id, int32_t input_len, int32_t output_len) {
  FRONTIER_RETURN_IF_ERROR(Check(id, input_len, output_len));
  Seq& s = Queue(id, input_len, output_len);
  s.generated = 1;         // the first token came with the KV cache,
  s.computed = input_len;  // which holds the prompt
  return Status::Ok();
}

Worker::Seq& Worker::Queue(int64_t id, int32_t input_len, int32_t output_len) {
  const int32_t slot = Slot();
  Seq& s = seqs_[slot];
  s = Seq{};
  s.id = id;
  s.input = input_len;
  s.output = output_len;
  s.live = true;
  by_id_.emplace(id, slot);
  waiting_.push_back(slot);
  plain_decodes_ = false;
  return s;
}

void Worker::DropPages(Seq& s) {
  units_used_ -= s.units;
  s.units = 0;
  s.unit_tokens = 0;
  // Tail first: the prompt's head stays cached longest.
  std::reverse(s.held.begin(), s.held.end());
  cache_.Release(s.held);
  s.held.clear();
  s.hashed = 0;
  s.cache_due = 0;
}

bool Worker::Reserve(int64_t need) {
  while (need > units_total_ - units_used_) {
    if (!cache_.EvictOne()) return false;
    units_used_ -= block_units_;
  }
  return true;
}

void Worker::OfferFilled(Seq& s) {
  const int64_t filled = std::min<int64_t>(s.computed / block_, static_cast<int64_t>(s.hashes.size()));
  for (; s.hashed < filled; ++s.hashed) {
    const uint64_t h = s.hashes[static_cast<size_t>(s.hashed)];
    // A block computed twice (two requests with the same prefix in flight
    // together) stays private to the second.
    if (!cache_.Insert(h)) continue;
    s.held.push_back(h);
    s.units -= block_units_;  // the page moves from the request to the cache
  }
  s.cache_due = static_cast<size_t>(s.hashed) < s.hashes.size() ? (static_cast<int64_t>(s.hashed) + 1) * block_
                                                                   : std::numeric_limits<int64_t>::max();
}

void Worker::Free(int32_t slot) {
  Seq& s = seqs_[slot];
  DropPages(s);
  s.live = false;
  s.running = false;
  by_id_.erase(s.id);
  free_slots_.push_back(slot);
}

void Worker::Cancel(int64_t id) {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return;
  plain_decodes_ = false;
  const int32_t slot = it->second;
  if (seqs_[slot].running) {
    running_.erase(std::find(running_.begin(), running_.end(), slot));
  } else {
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), slot));
  }
  Free(slot);
}

void Worker::Preempt(int32_t slot) {
  plain_decodes_ = false;
  Seq& s = seqs_[slot];
  DropPages(s);
  s.computed = 0;
  s.running = false;
  waiting_.push_front(slot);
  ++stats_.preemptions;
}

void Worker::RunStep(Step* out) {
  out->duration_ns = 0;
  out->handoffs.clear();
  out->preempted = 0;
  // The decode step overwrites the emissions in place (a batch of the same
  // size constructs none) and sets the whole shape; every other step starts
  // from none and an empty shape.
  if (!Idle() && RunDecodeStep(out)) return;
  static const BatchShape kEmpty{};
  out->shape = kEmpty;  // a copy: cheaper than zeroing with a string instruction
  out->emissions.clear();
  if (Idle()) return;
  plain_decodes_ = false;
  scheduled_.clear();
  int64_t budget = budget_tokens_;
  const int64_t preempted_before = stats_.preemptions;

  // The step's shape is built as requests are scheduled: a request scheduled
  // here is never preempted later in the same step (victims come from the
  // back of the running list, past the one being scheduled).
  BatchShape& shape = out->shape;
  // The common decode step (one token, no window) is summed in locals and
  // added to the shape once.
  int64_t plain_decodes = 0;
  double plain_keys = 0;
  auto add_to_shape = [&](const Seq& s, int64_t pending, int64_t q) {
    if (pending > 1) {
      shape.AddPrefill(s.computed, q, window_, s.computed + q >= s.input + s.generated);
    } else if (q == 1 && window_ == 0) {
      ++plain_decodes;
      plain_keys += static_cast<double>(s.computed) + 1;
    } else {
      shape.AddDecode(s.computed, q, window_);
    }
  };

  // A prompt runs whole unless the engine chunks it (or it is a recompute
  // longer than a whole step's budget, which could never run otherwise).
  auto must_wait = [&](int64_t pending, int64_t q) { return !chunked_ && q < pending && pending <= budget_tokens_; };
  // An engine that keeps prompts and decodes apart runs a step of prompts
  // whenever one can be scheduled, else a step of decodes.
  const bool prompts_only = !mixed_ && PromptSchedulable();

  // 1. Running requests, oldest first.
  for (size_t i = 0; i < running_.size() && budget > 0; ++i) {
    const int32_t slot = running_[i];
    Seq& s = seqs_[slot];
    const int64_t pending = static_cast<int64_t>(s.input) + s.generated - s.computed;
    if (!mixed_ && (pending > 1) != prompts_only) continue;
    const int64_t q = pending > 1 ? std::min(pending, budget) : std::min<int64_t>(1 + spec_tokens_, budget);
    if (pending > 1 && must_wait(pending, q)) continue;
    const int64_t need = PagesNeeded(s, s.computed + q);
    if (!ReserveOrPreempt(need, slot)) break;
    if (need > 0) {
      s.units += need;
      units_used_ += need;
      // Pages hold block_ tokens: the request needs no more until it passes them.
      s.unit_tokens = (s.computed + q + block_ - 1) / block_ * block_;
    }
    scheduled_.emplace_back(slot, static_cast<int32_t>(q));
    add_to_shape(s, pending, q);
    budget -= q;
  }
  out->preempted = stats_.preemptions - preempted_before;

  // 2. Waiting requests, first come first served.
  if (out->preempted == 0 && (mixed_ || prompts_only)) {
    int64_t promised = reserve_all_ ? Promised() : 0;
    while (budget > 0 && static_cast<int64_t>(running_.size()) < max_running_ && !waiting_.empty()) {
      const int32_t slot = waiting_.front();
      Seq& s = seqs_[slot];
      const int64_t known = static_cast<int64_t>(s.input) + s.generated;
      // Cached leading blocks, short of the last known token's block.
      PrefixCache::Match hit;
      if (caching_ && s.computed == 0 && !s.hashes.empty())
        hit = cache_.Find(s.hashes, static_cast<int32_t>(std::min<int64_t>((known - 1) / block_, INT32_MAX)));
      const int64_t computed = s.computed + static_cast<int64_t>(hit.blocks) * block_;
      const int64_t pending = known - computed;
      const int64_t q = std::min(pending, budget);
      if (must_wait(pending, q)) break;
      const int64_t need = std::max<int64_t>(0, UnitsFor(computed + q) - s.units - hit.blocks * block_units_);
      // What it must find free: the pages it needs now, or with
      // reserve_to_completion every page to its last token beside what the
      // running requests were promised.
      const int64_t full = reserve_all_ ? std::max(need, FullUnits(s) - s.units - hit.blocks * block_units_) : need;
      // Free pages, and cached ones no request holds (bar those it hits).
      if (full + promised > units_total_ - units_used_ + (cache_.evictable() - hit.evictable) * block_units_) break;
      promised += full - need;
      waiting_.pop_front();
      if (caching_ && !s.admitted_before) {
        stats_.prefix_queries += known;
        stats_.prefix_hits += computed;
      }
      s.admitted_before = true;
      if (hit.blocks > 0) {
        cache_.Acquire(s.hashes, hit.blocks);
        s.held.assign(s.hashes.begin(), s.hashes.begin() + hit.blocks);
        s.hashed = hit.blocks;
        s.computed = static_cast<int32_t>(computed);
      }
      (void)Reserve(need);  // cannot fail: checked above
      s.running = true;
      s.units += need;
      units_used_ += need;
      s.unit_tokens = (s.computed + q + block_ - 1) / block_ * block_;
      running_.push_back(slot);
      scheduled_.emplace_back(slot, static_cast<int32_t>(q));
      add_to_shape(s, pending, q);
      budget -= q;
    }
  }
  if (scheduled_.empty()) return;  // cannot happen while Add() guarantees every request fits alone

  // 3. Cost. 4. Progress and emissions at the step's end.
  CostStep(plain_decodes, plain_keys, out);
  Progress(out);
}

bool Worker::ReserveOrPreempt(int64_t need, int32_t slot) {
  while (!Reserve(need)) {
    const int32_t victim = running_.back();
    running_.pop_back();
    Preempt(victim);
    if (victim == slot) return false;
  }
  return true;
}

void Worker::CostStep(int64_t plain_decodes, double plain_keys, Step* out) {
  BatchShape& shape = out->shape;
  shape.decode_seqs += plain_decodes;
  shape.decode_tokens += plain_decodes;
  shape.sampled += plain_decodes;
  shape.decode_keys_full += plain_keys;
  shape.decode_keys_swa += plain_keys;
  shape.decode_pairs_full += plain_keys;
  shape.decode_pairs_swa += plain_keys;
  if (shape.prefill_tokens == 0 && plain_decodes == shape.decode_seqs && spec_tokens_ == 0) {
    // A decode-only step: the batch's fixed costs are cached, only the keys vary.
    if (decode_cost_.seqs != plain_decodes) decode_cost_ = model_.DecodeStep(plain_decodes);
    out->duration_ns = std::max<Nanos>(1, decode_cost_.At(shape.decode_keys_full, shape.decode_keys_swa));
  } else {
    out->duration_ns = std::max<Nanos>(1, model_.StepNanos(shape));
  }
  ++stats_.steps;
}

void Worker::Progress(Step* out) {
  bool any_finished = false;
  for (const auto& [slot, q] : scheduled_) {
    Seq& s = seqs_[slot];
    const int64_t known = static_cast<int64_t>(s.input) + s.generated;
    const int64_t pending = known - s.computed;
    int32_t emitted = 0;
    if (pending > 1) {
      s.computed += q;
      CacheFilled(s);
      if (s.computed >= known) {
        if (role_ == Role::kPrefill) {
          // The prompt is done: the request leaves with its KV cache.
          out->handoffs.push_back(Handoff{s.id, s.input, s.output});
          s.generated = s.output;  // leaves this worker below
          any_finished = true;
          continue;
        }
        emitted = 1;
      }
    } else {
      int32_t accepted = 1;
      if (q > 1) {
        const double before = s.accepted;
        s.accepted += std::min<double>(acceptance_, q);
        accepted = static_cast<int32_t>(std::floor(s.accepted) - std::floor(before));
        accepted = std::clamp<int32_t>(accepted, 1, q);
      }
      s.computed += accepted;
      CacheFilled(s);
      emitted = accepted;
    }
    if (emitted == 0) continue;
    emitted = std::min(emitted, s.output - s.generated);
    Emission e;
    e.id = s.id;
    e.tokens = emitted;
    e.first = s.generated == 0;
    s.generated += emitted;
    e.finished = s.generated >= s.output;
    if (e.finished) any_finished = true;
    out->emissions.push_back(e);
  }
  if (any_finished) RetireFinished();
}

void Worker::RetireFinished() {
  size_t w = 0;
  for (size_t r = 0; r < running_.size(); ++r) {
    const int32_t slot = running_[r];
    if (seqs_[slot].generated >= seqs_[slot].output) {
      Free(slot);
      if (role_ != Role::kPrefill) ++stats_.finished;
    } else {
      running_[w++] = slot;
    }
  }
  running_.resize(w);
}

bool Worker::RunDecodeStep(Step* out) {
  // The steady state of a decoding batch: every running request decodes one
  // token, nothing waits that could be admitted, and the pages the batch
  // needs are free (so the general path would preempt nobody). This is the
  // general path's step, without its per-request bookkeeping; its shape, its
  // duration, its page accounting and its emissions are the same.
  if (spec_tokens_ != 0 || window_ != 0) return false;
  if (!waiting_.empty() && static_cast<int64_t>(running_.size()) < max_running_) return false;
  const int64_t n = static_cast<int64_t>(running_.size());
  if (n > budget_tokens_) return false;
  // After a step of this kind, with no request added, cancelled or preempted
  // since, every running request is still a plain decode; and when every one
  // of them could take a new page in every layer, none can run short.
  const bool known_plain = plain_decodes_ && (units_total_ - units_used_) >= n * (full_layers_ + swa_layers_);
  if (!known_plain) {
    // Read-only: all plain decodes, and the pages they need are free.
    int64_t need_total = 0;
    for (const int32_t slot : running_) {
      const Seq& s = seqs_[slot];
      if (static_cast<int64_t>(s.input) + s.generated - s.computed != 1) return false;
      const int64_t tokens = static_cast<int64_t>(s.computed) + 1;
      if (tokens > s.unit_tokens) need_total += DecodePages(s, tokens).units - s.units;
    }
    if (need_total > units_total_ - units_used_) return false;
  }

  // Pages, progress and emissions, in admission order. Keys are whole
  // numbers far below 2^53, so their sum is exact in any order, as a double
  // or as an integer.
  bool any_finished = false;
  int64_t keys = 0;
  out->emissions.resize(static_cast<size_t>(n));  // every field of each is set below
  Emission* e = out->emissions.data();
  for (const int32_t slot : running_) {
    Seq& s = seqs_[slot];
    const int64_t tokens = static_cast<int64_t>(s.computed) + 1;
    keys += tokens;
    if (tokens > s.unit_tokens) {
      const Pages p = DecodePages(s, tokens);
      units_used_ += p.units - s.units;
      s.units = p.units;
      s.unit_tokens = p.unit_tokens;
    }
    s.computed += 1;
    CacheFilled(s);  // a filled answer block joins the cache, as on the general path
    // The request's fields read before the emission is written (its stores
    // could alias them, which would cost a reload each).
    const int64_t id = s.id;
    const int32_t generated = s.generated, left = s.output - generated;
    const int32_t emitted = std::min<int32_t>(1, left);
    const bool finished = emitted >= left;
    s.generated = generated + emitted;
    e->id = id;
    e->tokens = emitted;
    e->first = generated == 0;
    e->finished = finished;
    ++e;
    any_finished |= finished;
  }
  const double k = static_cast<double>(keys);
  out->shape = DecodeOnlyShape(n, k);
  if (decode_cost_.seqs != n) decode_cost_ = model_.DecodeStep(n);
  out->duration_ns = std::max<Nanos>(1, decode_cost_.At(k, k));
  ++stats_.steps;
  plain_decodes_ = true;
  if (any_finished) RetireFinished();
  return true;
}

Worker::Pages Worker::DecodePages(const Seq& s, int64_t tokens) const {
  Pages p{s.units, s.unit_tokens};
  // The request's blocks that moved to the prefix cache are still its pages
  // (Holds), though not in s.units: the general path counts them the same way.
  const int64_t cached = static_cast<int64_t>(s.held.size()) * block_units_;
  // A step looks for pages only past those the request's pages cover, and
  // UnitsFor changes only where a block begins: one look per block.
  int64_t t = std::max<int64_t>(static_cast<int64_t>(s.computed) + 1, p.unit_tokens + 1);
  while (t <= tokens) {
    const int64_t end_of_block = (t + block_ - 1) / block_ * block_;
    const int64_t need = std::max<int64_t>(0, UnitsFor(t) - p.units - cached);
    if (need > 0) {
      p.units += need;
      p.unit_tokens = end_of_block;
    }
    t = end_of_block + 1;
  }
  return p;
}

int64_t Worker::RunDecodeSteps(Nanos before, Step* out, std::vector<Nanos>* durations) {
  durations->clear();
  // RunDecodeStep's conditions, which nothing in the run changes.
  if (spec_tokens_ != 0 || window_ != 0 || running_.empty()) return 0;
  if (!waiting_.empty() && static_cast<int64_t>(running_.size()) < max_running_) return 0;
  const int64_t n = static_cast<int64_t>(running_.size());
  if (n > budget_tokens_) return 0;
  // Steps before a request emits its last token or fills a block for the
  // cache; none if one is to emit its first or is not decoding.
  int64_t steps = std::numeric_limits<int64_t>::max(), keys = 0;
  for (const int32_t slot : running_) {
    const Seq& s = seqs_[slot];
    if (static_cast<int64_t>(s.input) + s.generated - s.computed != 1 || s.generated == 0) return 0;
    steps = std::min<int64_t>(steps, s.output - s.generated - 1);
    steps = std::min<int64_t>(steps, s.cache_due - s.computed - 1);
    keys += static_cast<int64_t>(s.computed) + 1;
  }
  if (steps <= 0) return 0;
  // Each step's duration, as RunDecodeStep computes it: the keys grow by one
  // per request per step.
  if (decode_cost_.seqs != n) decode_cost_ = model_.DecodeStep(n);
  Nanos elapsed = 0;
  for (int64_t j = 0; j < steps; ++j) {
    const double k = static_cast<double>(keys + j * n);
    const Nanos d = std::max<Nanos>(1, decode_cost_.At(k, k));
    if (elapsed + d >= before) break;
    elapsed += d;
    durations->push_back(d);
  }
  const int64_t run = static_cast<int64_t>(durations->size());
  if (run == 0) return 0;
  // Pages: when the whole run's are free, every step's are (RunDecodeStep
  // would take each); otherwise plan step by step.
  int64_t need = 0;
  for (const int32_t slot : running_) {
    const Seq& s = seqs_[slot];
    need += DecodePages(s, static_cast<int64_t>(s.computed) + run).units - s.units;
  }
  if (need > units_total_ - units_used_) {
    durations->clear();
    return 0;
  }
  out->emissions.resize(static_cast<size_t>(n));
  Emission* e = out->emissions.data();
  for (const int32_t slot : running_) {
    Seq& s = seqs_[slot];
    const Pages p = DecodePages(s, static_cast<int64_t>(s.computed) + run);
    units_used_ += p.units - s.units;
    s.units = p.units;
    s.unit_tokens = p.unit_tokens;
    s.computed += static_cast<int32_t>(run);
    s.generated += static_cast<int32_t>(run);
    *e++ = Emission{s.id, 1, false, false};
  }
  const double k = static_cast<double>(keys);
  out->shape = DecodeOnlyShape(n, k);  // the first step's
  out->duration_ns = elapsed;
  out->handoffs.clear();
  out->preempted = 0;
  stats_.steps += run;
  plain_decodes_ = true;
  return run;
}

bool Worker::PromptSchedulable() const {
  for (const int32_t slot : running_) {
    const Seq& s = seqs_[slot];
    if (static_cast<int64_t>(s.input) + s.generated - s.computed > 1) return true;
  }
  if (waiting_.empty() || static_cast<int64_t>(running_.size()) >= max_running_) return false;
  const Seq& s = seqs_[waiting_.front()];
  const int64_t pending = static_cast<int64_t>(s.input) + s.generated - s.computed;
  const int64_t q = std::min(pending, budget_tokens_);
  const int64_t need = UnitsFor(s.computed + q) - s.units;
  const int64_t full = reserve_all_ ? std::max(need, FullUnits(s) - s.units) + Promised() : need;
  return full <= units_total_ - units_used_ + cache_.evictable() * block_units_;
}

int64_t Worker::Promised() const {
  int64_t promised = 0;
  for (const int32_t slot : running_) {
    const Seq& s = seqs_[slot];
    promised += std::max<int64_t>(0, FullUnits(s) - Holds(s));
  }
  return promised;
}

EngineStats Worker::stats() const {
  EngineStats s = stats_;
  s.running = static_cast<int64_t>(running_.size());
  s.waiting = static_cast<int64_t>(waiting_.size());
  s.kv_blocks_used = units_used_ - cache_.evictable() * block_units_;
  s.kv_blocks_total = units_total_;
  s.cached_blocks = cache_.blocks();
  s.evicted_blocks = cache_.evictions();
  return s;
}

}  // namespace frontier::sim
