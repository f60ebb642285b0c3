// word_cache.h: the ids of words already encoded, so that a word seen again
// costs one hash and one copy instead of a BPE. Keys and ids live in two
// arenas and the table is open-addressed, so a lookup allocates nothing.
//
//   WordCache cache;
//   if (auto ids = cache.Find(word)) { use(*ids); } else { cache.Insert(word, Bpe(word)); }
//
// Bounded: words longer than kMaxWordBytes are not kept, and once the cache
// holds kMaxWords words (or its arenas their share of bytes) it empties
// itself before the next insert, so memory stays under a few MB whatever the
// text.
//
// Thread safety: none; the tokenizer keeps one per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace frontier::tokenizer {

class WordCache {
 public:
  static constexpr size_t kMaxWordBytes = 64;
  static constexpr size_t kMaxWords = size_t{1} << 16;

  WordCache();

  // The ids stored for `word`, or nullopt. The span is valid until the next
  // Insert or Clear.
  std::optional<std::span<const int32_t>> Find(std::string_view word) const;
  // Stores ids for `word` (a word already present, or longer than
  // kMaxWordBytes, is ignored). May empty the cache first to stay bounded.
  void Insert(std::string_view word, std::span<const int32_t> ids);
  void Clear();
  size_t size() const { return count_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t key = 0;  // offset into bytes_
    uint32_t ids = 0;  // offset into ids_
    uint16_t key_len = 0;
    uint16_t ids_len = 0;
    bool used = false;
  };
  static uint64_t Hash(std::string_view s);
  size_t Probe(std::string_view word,
               uint64_t hash) const;  // the slot holding word, or the empty one to use

  std::vector<Slot> slots_;  // twice kMaxWords: at most half full
  std::string bytes_;
  std::vector<int32_t> ids_;
  size_t count_ = 0;
};

}  // namespace frontier::tokenizer
