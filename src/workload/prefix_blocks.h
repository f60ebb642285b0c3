// prefix_blocks.h: block hashes of token prompts, deterministic token blocks
// for trace hash ids, and the ideal prefix-cache hit rate of a workload.
//
// Chained block hashes, as vLLM's automatic prefix caching keys its KV
// blocks (the simulator's cache, sim/engine/prefix_cache.h, frontier serve and the
// ideal hit rate all key on them, so they see the same sharing): a prompt is cut into full blocks of `block_tokens` tokens (a
// trailing partial block has no hash), and block i's hash covers its own
// tokens and block i-1's hash, so equal hashes mean equal prefixes.
//
//   std::vector<uint64_t> h = ChainedBlockHashes(spec.prompt_token_ids, 16);
//   std::vector<uint64_t> both = ChainedBlockHashes(prompt, answer, 16);  // prompt + answer
//
// Trace token blocks: a trace names prompt blocks by integer hash ids
// (Mooncake's `hash_ids`); HashIdTokens(id, n) gives the same n tokens for
// the same id and, with overwhelming probability, different tokens for
// different ids, so a server's prefix cache sees exactly the sharing the
// trace describes.
//
// Ideal hit rate (PrefixHitCounter): an infinite prefix cache fed the
// prompts in the order they are sent. A prompt of n tokens hits the longest
// run of its leading full blocks already cached, counted in tokens; as in
// vLLM, the last prompt token is always computed, so only the first
// floor((n - 1) / B) blocks can hit. Every full block of the prompt (and of
// the answer, when Insert is given it) is then cached. The rate is hit
// tokens over prompt tokens, vLLM's prefix_cache_hits / prefix_cache_queries.
//
// Thread safety: pure functions; a PrefixHitCounter is a plain value.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "workload/request_spec.h"

namespace frontier::workload {

// The block size the ideal hit rate uses unless told otherwise: vLLM's
// default KV block of 16 tokens.
inline constexpr int kIdealHitBlockTokens = 16;

// Hashes of the full blocks of `tokens`, chained. REQUIRES: block_tokens >= 1.
std::vector<uint64_t> ChainedBlockHashes(std::span<const int32_t> tokens, int block_tokens);
// The hashes of `head` followed by `tail` (a prompt and its answer) as one
// sequence: equal to those of their concatenation, without making it.
std::vector<uint64_t> ChainedBlockHashes(std::span<const int32_t> head, std::span<const int32_t> tail,
                                         int block_tokens);

// `count` token ids in [kFirstTokenId, vocab_size) determined by (hash_id,
// salt) alone. REQUIRES: vocab_size > kFirstTokenId.
std::vector<int32_t> HashIdTokens(int64_t hash_id, int32_t count, uint64_t salt = 0, int32_t vocab_size = 32000);

// A set of block hashes in one flat table (open addressing, linear probing):
// no allocation per block, which is what an ideal hit rate over a run's
// prompts spends its time on otherwise. 0 marks a free slot, so the hash 0
// is kept as 1 (a collision as likely as any other of 64-bit hashes).
class BlockHashSet {
 public:
  bool Contains(uint64_t h) const;
  void Insert(uint64_t h);
  size_t size() const { return size_; }

 private:
  std::vector<uint64_t> slots_;  // a power of two long, at most half full; empty before the first insert
  size_t size_ = 0;
};

class PrefixHitCounter {
 public:
  explicit PrefixHitCounter(int block_tokens = kIdealHitBlockTokens) : block_tokens_(block_tokens) {}

  // Counts the prompt as one query (its hit tokens against what is cached),
  // then caches its full blocks. Returns the hit tokens.
  int64_t Query(std::span<const int32_t> prompt);
  // Caches the full blocks of `tokens` without counting a query (a prompt
  // followed by its answer, as an engine keeps the blocks it decoded).
  void Insert(std::span<const int32_t> tokens);

  int64_t hit_tokens() const { return hit_tokens_; }
  int64_t query_tokens() const { return query_tokens_; }
  int64_t queries() const { return queries_; }
  // hit_tokens / query_tokens; 0 before any query.
  double HitRate() const {
    return query_tokens_ > 0 ? static_cast<double>(hit_tokens_) / static_cast<double>(query_tokens_) : 0.0;
  }
  int block_tokens() const { return block_tokens_; }

 private:
  int block_tokens_;
  BlockHashSet cached_;
  int64_t hit_tokens_ = 0, query_tokens_ = 0, queries_ = 0;
};

// The ideal hit rate of `specs` sent in order (token-id prompts; a spec
// without token ids counts as a query of input_len tokens that never hits).
double IdealHitRate(std::span<const RequestSpec> specs, int block_tokens = kIdealHitBlockTokens);

}  // namespace frontier::workload
