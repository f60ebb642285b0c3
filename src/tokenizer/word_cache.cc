// word_cache.cc: linear probing over a power-of-two table; the hash mixes
// eight bytes at a time (words are short: most are one or two words of 8).
#include "tokenizer/word_cache.h"

#include <algorithm>
#include <cstring>

namespace frontier::tokenizer {
namespace {
constexpr size_t kSlots = WordCache::kMaxWords * 2;
// Room for kMaxWords words of a typical length; past it the cache empties.
constexpr size_t kMaxBytes = WordCache::kMaxWords * 16;
constexpr size_t kMaxIds = WordCache::kMaxWords * 8;

uint64_t Mix(uint64_t h) {
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ull;
  h ^= h >> 32;
  return h;
}
}  // namespace

WordCache::WordCache() : slots_(kSlots) {}

uint64_t WordCache::Hash(std::string_view s) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t v;
    std::memcpy(&v, s.data() + i, 8);
    h = Mix(h ^ v) * 0x9E3779B97F4A7C15ull;
  }
  if (i < s.size()) {
    uint64_t v = 0;
    std::memcpy(&v, s.data() + i, s.size() - i);
    h = Mix(h ^ v) * 0x9E3779B97F4A7C15ull;
  }
  return Mix(h);
}

size_t WordCache::Probe(std::string_view word, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (!s.used) return i;
    if (s.hash == hash && s.key_len == word.size() &&
        std::memcmp(bytes_.data() + s.key, word.data(), word.size()) == 0) {
      return i;
    }
  }
}

std::optional<std::span<const int32_t>> WordCache::Find(std::string_view word) const {
  if (word.size() > kMaxWordBytes || count_ == 0) return std::nullopt;
  const Slot& s = slots_[Probe(word, Hash(word))];
  if (!s.used) return std::nullopt;
  return std::span<const int32_t>(ids_.data() + s.ids, s.ids_len);
}

void WordCache::Insert(std::string_view word, std::span<const int32_t> ids) {
  if (word.size() > kMaxWordBytes || ids.size() > kMaxWordBytes) return;
  if (count_ >= kMaxWords || bytes_.size() + word.size() > kMaxBytes ||
      ids_.size() + ids.size() > kMaxIds)
    Clear();
  const uint64_t hash = Hash(word);
  Slot& s = slots_[Probe(word, hash)];
  if (s.used) return;
  s.used = true;
  s.hash = hash;
  s.key = static_cast<uint32_t>(bytes_.size());
  s.key_len = static_cast<uint16_t>(word.size());
  s.ids = static_cast<uint32_t>(ids_.size());
  s.ids_len = static_cast<uint16_t>(ids.size());
  bytes_.append(word);
  ids_.insert(ids_.end(), ids.begin(), ids.end());
  ++count_;
}

void WordCache::Clear() {
  if (count_ > 0) std::fill(slots_.begin(), slots_.end(), Slot{});
  bytes_.clear();
  ids_.clear();
  count_ = 0;
}

}  // namespace frontier::tokenizer
