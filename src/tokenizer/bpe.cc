// bpe.cc: words of a few symbols (nearly all of them, after a regex split)
// are merged by rescanning a small array; a long word (SentencePiece-style
// tokenizers see a whole prompt as one word) goes through a heap over a
// linked list, so a 100 kB prompt costs n log n, not n squared.
#include "tokenizer/bpe.h"

#include <cstdint>
#include <queue>

namespace frontier::tokenizer {
namespace {
constexpr size_t kShortWord = 48;
uint64_t Key(int32_t a, int32_t b) { return (uint64_t{static_cast<uint32_t>(a)} << 32) | static_cast<uint32_t>(b); }
}  // namespace

BpeMerges::Hit BpeMerges::Find(int32_t left, int32_t right) const {
  if (count_ == 0) return {-1, -1};
  const uint64_t key = Key(left, right);
  const size_t mask = keys_.size() - 1;
  for (size_t i = (key * 0x9E3779B97F4A7C15ull) >> shift_;; i = (i + 1) & mask) {
    if (keys_[i] == key) return hits_[i];
    if (keys_[i] == kEmpty) return {-1, -1};
  }
}

void BpeMerges::Grow() {
  std::vector<uint64_t> old_keys = std::move(keys_);
  std::vector<Hit> old_hits = std::move(hits_);
  const size_t cap = old_keys.empty() ? 1024 : old_keys.size() * 2;
  keys_.assign(cap, kEmpty);
  hits_.assign(cap, Hit{-1, -1});
  shift_ = 64 - __builtin_ctzll(cap);
  count_ = 0;
  for (size_t i = 0; i < old_keys.size(); ++i) {
    if (old_keys[i] != kEmpty) {
      Add(static_cast<int32_t>(old_keys[i] >> 32), static_cast<int32_t>(old_keys[i] & 0xFFFFFFFFu),
          old_hits[i].rank, old_hits[i].merged);
    }
  }
}

void BpeMerges::Add(int32_t left, int32_t right, int32_t rank, int32_t merged) {
  if ((count_ + 1) * 2 > keys_.size()) Grow();
  const uint64_t key = Key(left, right);
  const size_t mask = keys_.size() - 1;
  for (size_t i = (key * 0x9E3779B97F4A7C15ull) >> shift_;; i = (i + 1) & mask) {
    if (keys_[i] == key) {
      if (rank < hits_[i].rank) hits_[i] = {rank, merged};
      return;
    }
    if (keys_[i] == kEmpty) {
      keys_[i] = key;
      hits_[i] = {rank, merged};
      ++count_;
      return;
    }
  }
}

void BpeMerges::Apply(std::vector<int32_t>* symbols) const {
  if (symbols->size() < 2) return;
  if (symbols->size() <= kShortWord) {
    ApplyShort(symbols);
  } else {
    ApplyLong(symbols);
  }
}

void BpeMerges::ApplyShort(std::vector<int32_t>* sp) const {
  std::vector<int32_t>& s = *sp;
  Hit pair[kShortWord];
  size_t n = s.size();
  for (size_t i = 0; i + 1 < n; ++i) pair[i] = Find(s[i], s[i + 1]);
  while (n > 1) {
    size_t best = SIZE_MAX;
    for (size_t i = 0; i + 1 < n; ++i) {
      if (pair[i].rank >= 0 && (best == SIZE_MAX || pair[i].rank < pair[best].rank)) best = i;
    }
    if (best == SIZE_MAX) break;
    s[best] = pair[best].merged;
    for (size_t i = best + 1; i + 1 < n; ++i) {
      s[i] = s[i + 1];
      pair[i] = pair[i + 1];
    }
    --n;
    if (best > 0) pair[best - 1] = Find(s[best - 1], s[best]);
    if (best + 1 < n) pair[best] = Find(s[best], s[best + 1]);
  }
  s.resize(n);
}

void BpeMerges::ApplyLong(std::vector<int32_t>* sp) const {
  std::vector<int32_t>& s = *sp;
  const size_t n = s.size();
  std::vector<int32_t> prev(n), next(n);
  std::vector<bool> alive(n, true);
  for (size_t i = 0; i < n; ++i) {
    prev[i] = static_cast<int32_t>(i) - 1;
    next[i] = i + 1 < n ? static_cast<int32_t>(i + 1) : -1;
  }
  // (rank, left position, left id, right id): stale entries are skipped when
  // either symbol has changed since the entry was pushed.
  struct Entry {
    int32_t rank, pos, left, right;
    bool operator>(const Entry& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  auto push = [&](int32_t i) {
    if (i < 0 || next[i] < 0) return;
    const Hit h = Find(s[i], s[next[i]]);
    if (h.rank >= 0) heap.push({h.rank, i, s[i], s[next[i]]});
  };
  for (size_t i = 0; i + 1 < n; ++i) push(static_cast<int32_t>(i));
  while (!heap.empty()) {
    const Entry e = heap.top();
    heap.pop();
    const int32_t i = e.pos;
    if (!alive[i] || next[i] < 0 || s[i] != e.left || s[next[i]] != e.right) continue;
    const int32_t j = next[i];
    s[i] = Find(e.left, e.right).merged;
    alive[j] = false;
    next[i] = next[j];
    if (next[j] >= 0) prev[next[j]] = i;
    push(prev[i]);
    push(i);
  }
  size_t w = 0;
  for (int32_t i = 0; i >= 0; i = next[i]) s[w++] = s[i];
  s.resize(w);
}

}  // namespace frontier::tokenizer
