// bpe.h: byte-pair encoding over token ids. A word arrives as the ids of its
// first symbols (bytes, or characters); BpeMerges joins the adjacent pair of
// lowest rank, leftmost first, until no pair has a rank: the algorithm of
// Hugging Face's BPE model (ranks from the merges list) and of SentencePiece's
// BPE (ranks from the merged piece's score).
//
// Thread safety: const methods are safe from any thread once built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace frontier::tokenizer {

class BpeMerges {
 public:
  // Adds the merge left+right -> merged with the given rank (lower merges
  // first). A pair added twice keeps the lower rank.
  void Add(int32_t left, int32_t right, int32_t rank, int32_t merged);
  size_t size() const { return count_; }

  // Merges the symbols of one word in place.
  void Apply(std::vector<int32_t>* symbols) const;

  // Calls f(left, right, merged) for every merge, in no particular order.
  template <typename F>
  void ForEach(F f) const {
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i] != kEmpty) {
        f(static_cast<int32_t>(keys_[i] >> 32), static_cast<int32_t>(keys_[i] & 0xFFFFFFFFu), hits_[i].merged);
      }
    }
  }

 private:
  struct Hit {
    int32_t rank;
    int32_t merged;
  };
  // Rank and result of left+right; rank < 0 when they do not merge.
  Hit Find(int32_t left, int32_t right) const;
  void Grow();
  void ApplyShort(std::vector<int32_t>* s) const;
  void ApplyLong(std::vector<int32_t>* s) const;

  // Open addressing: key (left << 32 | right), kEmpty where free.
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  std::vector<uint64_t> keys_;
  std::vector<Hit> hits_;
  size_t count_ = 0;
  int shift_ = 64;
};

}  // namespace frontier::tokenizer
