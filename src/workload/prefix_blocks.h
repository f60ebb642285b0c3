// prefix_blocks.h: the block hashes a prefix cache keys on.
//
// A prompt is cut into blocks of `block_tokens` tokens; block i's hash covers
// its own tokens and block i-1's hash, so two prompts share block i's hash
// exactly when they share every token up to the end of block i. This is how
// vLLM's automatic prefix caching names KV-cache blocks (block size 16 by
// default); the simulator's cache (sim/prefix_cache.h), `frontier serve` and
// the ideal hit rate a workload allows all key on these hashes, so they see
// the same sharing. A trailing partial block has no hash (it cannot be shared).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace frontier::workload {

// One hash per full block of `tokens`, in order (tokens.size() / block_tokens
// of them). REQUIRES: block_tokens >= 1. The hashes are a pure function of the
// tokens and the block size, stable across runs and machines.
std::vector<uint64_t> ChainedBlockHashes(std::span<const int32_t> tokens, int block_tokens);

}  // namespace frontier::workload
