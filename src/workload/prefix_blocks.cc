#include "workload/prefix_blocks.h"

#include <algorithm>

#include "workload/random_dataset.h"

namespace frontier::workload {
namespace {

// SplitMix64's finaliser: a fast, well-mixed 64-bit permutation.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<uint64_t> ChainedBlockHashes(std::span<const int32_t> tokens, int block_tokens) {
  return ChainedBlockHashes(tokens, {}, block_tokens);
}

std::vector<uint64_t> ChainedBlockHashes(std::span<const int32_t> head, std::span<const int32_t> tail,
                                         int block_tokens) {
  std::vector<uint64_t> out;
  if (block_tokens < 1) return out;
  const size_t b = static_cast<size_t>(block_tokens);
  const size_t n = head.size() + tail.size();
  out.reserve(n / b);
  uint64_t parent = 0x6a09e667f3bcc908ULL;  // the hash before the first block
  for (size_t start = 0; start + b <= n; start += b) {
    uint64_t h = Mix(parent ^ static_cast<uint64_t>(block_tokens));
    for (size_t i = start; i < start + b; ++i) {
      const int32_t token = i < head.size() ? head[i] : tail[i - head.size()];
      h = Mix(h ^ static_cast<uint32_t>(token));
    }
    out.push_back(h);
    parent = h;
  }
  return out;
}

std::vector<int32_t> HashIdTokens(int64_t hash_id, int32_t count, uint64_t salt, int32_t vocab_size) {
  std::vector<int32_t> out;
  if (count <= 0 || vocab_size <= kFirstTokenId) return out;
  out.reserve(static_cast<size_t>(count));
  const uint64_t span = static_cast<uint64_t>(vocab_size - kFirstTokenId);
  uint64_t state = Mix(static_cast<uint64_t>(hash_id) ^ Mix(salt ^ 0x243f6a8885a308d3ULL));
  for (int32_t i = 0; i < count; ++i) {
    state = Mix(state);
    out.push_back(kFirstTokenId + static_cast<int32_t>(state % span));
  }
  return out;
}

namespace {

uint64_t Key(uint64_t h) { return h == 0 ? 1 : h; }

}  // namespace

bool BlockHashSet::Contains(uint64_t h) const {
  if (slots_.empty()) return false;
  const uint64_t key = Key(h);
  const size_t mask = slots_.size() - 1;
  for (size_t i = static_cast<size_t>(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == key) return true;
    if (slots_[i] == 0) return false;
  }
}

void BlockHashSet::Insert(uint64_t h) {
  if (2 * (size_ + 1) > slots_.size()) {  // keep it at most half full: probes stay short
    std::vector<uint64_t> old = std::move(slots_);
    slots_.assign(std::max<size_t>(64, 2 * old.size()), 0);
    size_ = 0;
    for (uint64_t k : old)
      if (k != 0) Insert(k);
  }
  const uint64_t key = Key(h);
  const size_t mask = slots_.size() - 1;
  for (size_t i = static_cast<size_t>(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == key) return;
    if (slots_[i] == 0) {
      slots_[i] = key;
      ++size_;
      return;
    }
  }
}

int64_t PrefixHitCounter::Query(std::span<const int32_t> prompt) {
  const std::vector<uint64_t> h = ChainedBlockHashes(prompt, block_tokens_);
  const size_t n = prompt.size();
  const size_t can_hit = n == 0 ? 0 : std::min(h.size(), (n - 1) / static_cast<size_t>(block_tokens_));
  size_t hit = 0;
  while (hit < can_hit && cached_.Contains(h[hit])) ++hit;
  const int64_t hit_tokens = static_cast<int64_t>(hit) * block_tokens_;
  hit_tokens_ += hit_tokens;
  query_tokens_ += static_cast<int64_t>(n);
  ++queries_;
  for (uint64_t b : h) cached_.Insert(b);
  return hit_tokens;
}

void PrefixHitCounter::Insert(std::span<const int32_t> tokens) {
  for (uint64_t b : ChainedBlockHashes(tokens, block_tokens_)) cached_.Insert(b);
}

double IdealHitRate(std::span<const RequestSpec> specs, int block_tokens) {
  PrefixHitCounter c(block_tokens);
  int64_t extra = 0;  // text prompts: queried, never hit
  for (const RequestSpec& s : specs) {
    if (s.prompt_token_ids.empty()) {
      extra += s.input_len;
    } else {
      c.Query(s.prompt_token_ids);
    }
  }
  const int64_t q = c.query_tokens() + extra;
  return q > 0 ? static_cast<double>(c.hit_tokens()) / static_cast<double>(q) : 0.0;
}

}  // namespace frontier::workload
