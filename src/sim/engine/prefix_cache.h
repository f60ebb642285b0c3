// prefix_cache.h: the KV-cache blocks an engine keeps after the requests that
// computed them, keyed by chained block hash (workload/prefix_blocks.h), as
// vLLM's automatic prefix caching keeps them. One implementation serves the
// simulator's worker (worker.h) and, through it, `frontier serve`.
//
// A cached block is either held (by one or more running requests: never
// evicted) or free (no request holds it: its KV stays until the memory is
// needed). Free blocks are evicted least recently freed first; a request
// frees its blocks tail first, so its prompt's head outlives its tail, as in
// vLLM's free-block queue.
//
//   PrefixCache cache;
//   PrefixCache::Match m = cache.Find(hashes, max_blocks);  // leading blocks present
//   cache.Acquire(hashes, m.blocks);                        // hold them
//   ...                                                     // compute the rest
//   if (cache.Insert(hashes[i])) held.push_back(hashes[i]); // a block just filled
//   cache.Release(held_tail_first);                          // request done
//   while (short_of_memory && cache.EvictOne()) ...
//
// The cache counts blocks; what a block costs in memory is the owner's
// business (the worker charges each one a page in every layer).
//
// Thread safety: not thread-safe; one owner thread calls every method.
#pragma once

#include <cstdint>
#include <list>
#include <span>
#include <unordered_map>

namespace frontier::sim {

class PrefixCache {
 public:
  struct Match {
    int32_t blocks = 0;     // leading hashes present
    int32_t evictable = 0;  // how many of those no request holds now
  };

  // The longest run of leading `hashes` present, at most `max_blocks`.
  Match Find(std::span<const uint64_t> hashes, int32_t max_blocks) const;
  // Holds the first `n` blocks of `hashes`. REQUIRES: Find() returned >= n.
  void Acquire(std::span<const uint64_t> hashes, int32_t n);
  // Adds a just-computed block, held once. Returns false (and adds nothing)
  // when that hash is cached already: the caller keeps its copy private.
  bool Insert(uint64_t hash);
  // Drops one hold on each block, in the order given; a block no request
  // holds any more becomes the most recently freed. REQUIRES: each is held.
  void Release(std::span<const uint64_t> hashes);
  // Evicts the least recently freed block no request holds. Returns false
  // when there is none.
  bool EvictOne();

  bool Contains(uint64_t hash) const { return blocks_.count(hash) > 0; }
  int64_t blocks() const { return static_cast<int64_t>(blocks_.size()); }
  int64_t evictable() const { return static_cast<int64_t>(free_.size()); }
  int64_t evictions() const { return evictions_; }

 private:
  struct Block {
    int32_t holds = 0;
    std::list<uint64_t>::iterator free_at;  // valid when holds == 0
  };
  std::unordered_map<uint64_t, Block> blocks_;
  std::list<uint64_t> free_;  // front: least recently freed
  int64_t evictions_ = 0;
};

}  // namespace frontier::sim
