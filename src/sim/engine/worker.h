// worker.h: one engine instance, a stepping continuous-batching scheduler
// (like vLLM's and SGLang's). Engine (engine.h) drives one of them for an
// aggregated deployment, or pools of them for disaggregated prefill / decode.
//
// Each RunStep() plans one engine iteration and returns its modelled
// duration and the tokens each request emits at the iteration's end. The
// caller owns time: it adds requests when they arrive, calls RunStep(),
// waits (or advances virtual time by) duration_ns, then delivers emissions.
//
// Roles: a kServing worker takes a request from prompt to last token. A
// kPrefill worker computes prompts only: a request whose prompt is done
// leaves it (its KV cache to be shipped) and is reported in Step::handoffs
// instead of emitting a token. A kDecode worker takes requests whose prompt
// was computed elsewhere (AddPrefilled) and generates their remaining tokens.
//
// Scheduling per step (vLLM v1's policy; the stack's prefill mode varies it,
// stack.h PrefillMode):
//   1. Running requests in admission order get their next tokens: a prompt
//      chunk (chunked prefill) or 1 + draft tokens when decoding, while the
//      step's token budget (max_num_batched_tokens x dp) lasts. A request
//      that needs a KV page when none is free preempts the most recently
//      admitted running request (recompute: its cache is dropped and it goes
//      back to the head of the queue, keeping the tokens it already emitted).
//   2. If nothing was preempted, waiting requests are admitted first-come
//      first-served while the budget, max_num_seqs x dp and free KV pages
//      allow; the first that does not fit stops admission (no overtaking).
// With the stack's reserve_to_completion (TensorRT-LLM's GUARANTEED_NO_EVICT
// capacity scheduler) step 2 admits a request only when the pages for its
// whole prompt and output (its output length standing for the max_tokens the
// engine reserves) are free beside what every running request may still
// take (Promised), so running requests always find their pages and nothing
// is preempted.
// Without chunked prefill a prompt is scheduled whole or waits for a step
// with room for it (a request too long for any step is rejected by Add()).
// Without mixed steps a step runs prompts only whenever a prompt can be
// scheduled (a running prompt, or a waiting request that would be admitted),
// else the decodes of every running request: SGLang's default and vLLM V0's
// scheduler without chunked prefill.
// KV pages hold block_size tokens of one layer; full-attention layers keep
// every token, sliding-window layers at most a window (+1 page). The whole
// deployment is one engine: DP ranks are assumed evenly loaded.
//
// Prefix caching (config.prefix_caching; prefix_cache.h): a request may come
// with the chained hashes of the full blocks of its tokens (prompt, then
// output). When it is admitted from the queue, the longest run of its leading
// blocks already cached, up to but not including the block of its last known
// token (vLLM recomputes at least one token), is taken as computed: those
// tokens skip prefill, and their pages are shared, counted once. Each block a
// step fills joins the cache. A finished or preempted request's blocks stay
// cached, free, until a page is needed and no free page is left: then the
// least recently freed is evicted, before any request is preempted. Queries
// and hits count tokens at a request's first admission (as vLLM's
// vllm:prefix_cache_queries / _hits; re-admissions after preemption apart).
// KV usage counts pages running requests hold; cached free pages are
// reclaimable, as vLLM's vllm:kv_cache_usage_perc counts them. kDecode
// workers keep no cache (their requests arrive with their KV).
//
// Emissions: a request's final prompt chunk emits its first token; each
// decode step emits 1 token, or with k draft tokens the acceptance length
// (fractional acceptance is spread deterministically: 2.5 emits 2, 3, 2, 3...).
//
// Thread safety: not thread-safe; one owner thread calls every method.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "sim/engine/config.h"
#include "sim/engine/prefix_cache.h"
#include "sim/engine/step_model.h"

namespace frontier::sim {

struct EngineStats {
  int64_t running = 0;
  int64_t waiting = 0;
  int64_t kv_blocks_used = 0;    // pages of one layer
  int64_t kv_blocks_total = 0;
  int64_t steps = 0;
  int64_t preemptions = 0;
  int64_t finished = 0;
  // Prefix cache: tokens looked up and found at first admission, blocks
  // cached (held or free) and blocks evicted.
  int64_t prefix_queries = 0, prefix_hits = 0;
  int64_t cached_blocks = 0, evicted_blocks = 0;
  double kv_usage() const { return kv_blocks_total > 0 ? double(kv_blocks_used) / kv_blocks_total : 0; }
};

class Worker {
 public:
  struct Emission {
    int64_t id = 0;
    int32_t tokens = 0;     // tokens emitted at the end of the step (>= 1)
    bool first = false;     // includes the request's first token
    bool finished = false;  // the request has all its output tokens and left the engine
  };
  struct Handoff {          // a request whose prompt a kPrefill worker finished
    int64_t id = 0;
    int32_t input = 0, output = 0;
  };
  struct Step {
    Nanos duration_ns = 0;
    std::vector<Emission> emissions;
    std::vector<Handoff> handoffs;  // kPrefill workers only
    BatchShape shape;       // what ran
    int64_t preempted = 0;  // requests preempted while planning this step
  };
  enum class Role { kServing, kPrefill, kDecode };

  explicit Worker(SimConfig config, Role role = Role::kServing);

  // Queues a request. Fails (and queues nothing) when the id is already in
  // the engine, a length is below 1, the request exceeds the model's context,
  // or it could never fit in the KV cache even alone.
  // `block_hashes`: workload::ChainedBlockHashes of the request's tokens
  // (prompt then output) with config().block_size; empty: nothing to share.
  Status Add(int64_t id, int32_t input_len, int32_t output_len, std::vector<uint64_t> block_hashes = {});
  // kDecode workers: a request whose prompt (and first token) was computed
  // elsewhere; its KV cache arrives with it. Same failures as Add().
  Status AddPrefilled(int64_t id, int32_t input_len, int32_t output_len);
  // Whether Add() would take this request (the same checks, nothing queued).
  Status Check(int64_t id, int32_t input_len, int32_t output_len) const;
  // Drops a running or waiting request at once, freeing its KV pages. No-op
  // for unknown ids.
  void Cancel(int64_t id);
  // Nothing running or waiting.
  bool Idle() const { return running_.empty() && waiting_.empty(); }

  // Plans and accounts one iteration into `out`, reusing its storage (the
  // simulator's hot path; NextStep below returns a new Step). An idle engine
  // returns a zero step.
  void RunStep(Step* out);
  // A run of steady decode steps planned at once: steps RunStep would plan
  // one by one, each of which has every running request decode one token,
  // none its first or its last, admits, preempts and evicts nothing, offers
  // no block to the prefix cache and finds the pages it needs free. Plans as
  // many as end before `before` ns from now; sets out->emissions to one
  // one-token emission per running request (each emits that in every step),
  // out->shape to the first step's and `durations` to each step's, and
  // returns how many. Returns 0, changing nothing, when not even the next
  // step is such a step (RunStep then plans it).
  int64_t RunDecodeSteps(Nanos before, Step* out, std::vector<Nanos>* durations);
  // The cost breakdown of a step shape (for --explain).
  StepCost Explain(const BatchShape& shape) const { return model_.Cost(shape); }

  EngineStats stats() const;
  // Requests running or waiting (the load Engine balances on).
  int64_t load() const { return static_cast<int64_t>(running_.size() + waiting_.size()); }
  // Fraction of KV pages in use (stats().kv_usage() without building the stats).
  double kv_usage() const {
    return units_total_ > 0 ? double(units_used_ - cache_.evictable() * block_units_) / double(units_total_) : 0;
  }
  const PrefixCache& prefix_cache() const { return cache_; }
  const SimConfig& config() const { return model_.config(); }
  const StepModel& step_model() const { return model_; }

 private:
  struct Seq {
    int64_t id = 0;
    int32_t input = 0, output = 0;
    int32_t generated = 0;  // tokens emitted so far
    int32_t computed = 0;   // tokens whose KV is cached
    int64_t units = 0;      // KV pages held
    int64_t unit_tokens = 0;  // tokens those pages cover (no new page needed up to here)
    int64_t cache_due = 0;    // `computed` at which the next hashed block is full (0: look now)
    double accepted = 0;    // running sum of acceptance, for fractional acceptance lengths
    bool running = false;
    bool live = false;
    bool admitted_before = false;  // counted in the prefix-cache queries already
    std::vector<uint64_t> hashes;  // of its full blocks (prompt, then output)
    std::vector<uint64_t> held;    // cached blocks it holds (not in `units`)
    int32_t hashed = 0;            // leading blocks offered to the cache
  };
  int64_t UnitsFor(int64_t tokens) const;
  // The pages a request holds once one-token decode steps have taken it to
  // `tokens` tokens computed: s.units and s.unit_tokens grown as each step
  // grows them (a page in every layer each time it passes the pages it holds,
  // its cached blocks included, as Holds counts them).
  struct Pages {
    int64_t units = 0, unit_tokens = 0;
  };
  Pages DecodePages(const Seq& s, int64_t tokens) const;
  // Plans and accounts a step in which every running request decodes one
  // token and nothing else can run (the common step), exactly as the general
  // path would; returns false, changing nothing, for any other step.
  bool RunDecodeStep(Step* out);
  // RunStep's parts. ReserveOrPreempt reserves `need` pages, preempting from
  // the back of the running list until they fit; false when that preempted
  // `slot` itself. CostStep adds the plain decodes (summed apart) to the
  // step's shape and prices it. Progress advances each scheduled request and
  // emits its tokens at the step's end.
  bool ReserveOrPreempt(int64_t need, int32_t slot);
  void CostStep(int64_t plain_decodes, double plain_keys, Step* out);
  void Progress(Step* out);
  // Whether a step of prompts could schedule anything now.
  bool PromptSchedulable() const;
  void Preempt(int32_t slot);
  void Free(int32_t slot);
  // Frees every running request that has generated all its tokens (after a
  // step), keeping the others in admission order.
  void RetireFinished();
  // Drops the request's pages: private ones freed, cached ones released.
  void DropPages(Seq& s);
  // Pages the request covers, private and cached.
  int64_t Holds(const Seq& s) const { return s.units + static_cast<int64_t>(s.held.size()) * block_units_; }
  // KV pages a request needs for `tokens` (0 while within the pages it holds).
  int64_t PagesNeeded(const Seq& s, int64_t tokens) const {
    if (tokens <= s.unit_tokens) return 0;
    return std::max<int64_t>(0, UnitsFor(tokens) - Holds(s));
  }
  // With reserve_to_completion: the pages the request will hold at its last
  // token (prompt, output and draft tokens), and what the running requests
  // may still take beyond what they hold.
  int64_t FullUnits(const Seq& s) const { return UnitsFor(static_cast<int64_t>(s.input) + s.output + spec_tokens_); }
  int64_t Promised() const;
  // Frees `need` pages, evicting free cached blocks as needed. False (having
  // evicted what it could) when even that is not enough.
  bool Reserve(int64_t need);
  // Offers the blocks the request has filled to the cache. Inline and one
  // comparison until the request's next hashed block is full (it runs per
  // request per step; a request without hashes never offers any).
  void CacheFilled(Seq& s) {
    if (s.computed >= s.cache_due) OfferFilled(s);
  }
  // Sets s.cache_due past what it offers.
  void OfferFilled(Seq& s);

  int32_t Slot();
  // A new sequence in a free slot, at the back of the waiting queue.
  Seq& Queue(int64_t id, int32_t input_len, int32_t output_len);

  StepModel model_;
  Role role_;
  int64_t budget_tokens_, max_running_;
  bool chunked_ = true, mixed_ = true;
  int32_t spec_tokens_;
  double acceptance_;
  int64_t window_, full_layers_, swa_layers_, block_;
  int64_t units_total_ = 0, units_used_ = 0;  // used: private pages + every cached block's
  bool caching_ = false;
  bool reserve_all_ = false;  // stack.reserve_to_completion
  int64_t block_units_ = 0;  // pages one cached block holds (one per layer)
  PrefixCache cache_;
  std::vector<Seq> seqs_;
  std::vector<int32_t> free_slots_;
  std::vector<int32_t> running_;      // admission order
  std::deque<int32_t> waiting_;
  std::unordered_map<int64_t, int32_t> by_id_;
  std::vector<std::pair<int32_t, int32_t>> scheduled_;  // (slot, tokens) of the step being planned
  DecodeStepCost decode_cost_;  // of the last decode-only batch size seen
  // The last step was RunDecodeStep's and no request was added, cancelled or
  // preempted since: every running request is a plain decode.
  bool plain_decodes_ = false;
  EngineStats stats_;
};

// One RunStep of `model` (a Worker or an Engine) as a new Step, for callers
// that do not reuse a Step's storage.
template <class Model>
typename Model::Step NextStep(Model& model) {
  typename Model::Step step;
  model.RunStep(&step);
  return step;
}

}  // namespace frontier::sim
