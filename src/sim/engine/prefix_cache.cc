#include "sim/engine/prefix_cache.h"

#include <algorithm>

namespace frontier::sim {

PrefixCache::Match PrefixCache::Find(std::span<const uint64_t> hashes, int32_t max_blocks) const {
  Match m;
  const size_t n = std::min(hashes.size(), static_cast<size_t>(std::max(max_blocks, 0)));
  for (size_t i = 0; i < n; ++i) {
    auto it = blocks_.find(hashes[i]);
    if (it == blocks_.end()) break;
    ++m.blocks;
    if (it->second.holds == 0) ++m.evictable;
  }
  return m;
}

void PrefixCache::Acquire(std::span<const uint64_t> hashes, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    Block& b = blocks_.at(hashes[static_cast<size_t>(i)]);
    if (b.holds++ == 0) free_.erase(b.free_at);
  }
}

bool PrefixCache::Insert(uint64_t hash) {
  auto [it, added] = blocks_.try_emplace(hash);
  if (!added) return false;
  it->second.holds = 1;
  return true;
}

void PrefixCache::Release(std::span<const uint64_t> hashes) {
  for (const uint64_t h : hashes) {
    Block& b = blocks_.at(h);
    if (--b.holds == 0) b.free_at = free_.insert(free_.end(), h);
  }
}

bool PrefixCache::EvictOne() {
  if (free_.empty()) return false;
  blocks_.erase(free_.front());
  free_.pop_front();
  ++evictions_;
  return true;
}

}  // namespace frontier::sim
