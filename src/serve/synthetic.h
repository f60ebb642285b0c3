// synthetic.h: the synthetic "model" behind `frontier serve`: deterministic
// generated tokens, and the rule that turns a text prompt into a token count.
//
// Generated tokens: token i of a request is one word from a fixed list of
// short English words, each written with a leading space (" the", " of", ...).
// Which word is a pure function of (server seed, request seed, i), so the same
// prompt sent to a server started with the same --seed yields the same text.
//
// Text token-count rule (documented in docs/serve.md): split the text on ASCII
// whitespace; each piece counts ceil(bytes / 8) tokens. Every word that
// workload/random_dataset.h writes is at most 7 bytes, so its text prompts
// count exactly one token per word, the same as their token-id form.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace frontier::serve {

// Tokens in `text` under the rule above (0 for an empty or all-space text).
int64_t CountTextTokens(std::string_view text);

// Token ids for a text, one per token the rule above counts: each 8-byte
// piece of a word gets a hash of its bytes, in [0, 2^31). The prefix cache
// keys on them (sim/engine/worker.h), so text prompts that share leading words share
// blocks, and a generated answer sent back in the next turn's prompt gets
// the ids it was generated with (SyntheticTokenId).
void AppendTextTokenIds(std::string_view text, std::vector<int32_t>& out);

// The id of generated token `index`: AppendTextTokenIds of its word.
int32_t SyntheticTokenId(uint64_t request_seed, int64_t index);

// A well-mixed 64-bit hash step (SplitMix64 finaliser).
uint64_t Mix64(uint64_t x);

// FNV-1a over bytes, for seeding a request's tokens from its prompt.
uint64_t HashBytes(std::string_view bytes, uint64_t seed = 0);

// The text of generated token `index` (from 0) for a request seeded with
// `request_seed`: a leading space and one word, no characters that need JSON
// escaping.
std::string_view SyntheticToken(uint64_t request_seed, int64_t index);

// A number in [0, 1) drawn from (seed, stream, index), for seeded choices.
double UnitDraw(uint64_t seed, uint64_t stream, uint64_t index);

}  // namespace frontier::serve
