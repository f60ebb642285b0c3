#include "workload/prefix_blocks.h"

namespace frontier::workload {
namespace {

// SplitMix64's finaliser: a well-mixed step, so nearby token ids and chain
// positions give unrelated hashes.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<uint64_t> ChainedBlockHashes(std::span<const int32_t> tokens, int block_tokens) {
  std::vector<uint64_t> out;
  if (block_tokens < 1) return out;
  const size_t block = static_cast<size_t>(block_tokens);
  out.reserve(tokens.size() / block);
  // The chain starts from the block size, so caches with different block
  // sizes never share a hash.
  uint64_t parent = Mix(0x70726566697800ULL ^ block);
  for (size_t start = 0; start + block <= tokens.size(); start += block) {
    uint64_t h = Mix(parent);
    for (size_t i = start; i < start + block; ++i) h = Mix(h ^ static_cast<uint32_t>(tokens[i]));
    out.push_back(h);
    parent = h;
  }
  return out;
}

}  // namespace frontier::workload
