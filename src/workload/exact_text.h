// exact_text.h: prompts as text that the model's own tokenizer turns into
// exactly the number of tokens asked for, made the way vLLM's random dataset
// makes them: sample ordinary token ids, decode them to text, encode that text
// again, and cut or extend the ids until the text re-encodes to the target
// (BPE does not in general give back the ids it was decoded from).
//
//   FRONTIER_RETURN_IF_ERROR(TokenizePrompts(path, specs, prefix_len, seed, &settings));
//
// A server that tokenizes with the same vocabulary counts each prompt as its
// input_len (plus the BOS token it adds itself). Where the loop cannot reach
// the target in kExactTextRounds rounds, the prompt keeps the closest length
// and `stats` says how many missed and by how much; none should in practice.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "tokenizer/tokenizer.h"
#include "workload/request_spec.h"

namespace frontier::workload {

inline constexpr int kExactTextRounds = 10;

struct ExactTextStats {
  int64_t prompts = 0;     // prompts made
  int64_t exact = 0;       // of which re-encode to exactly their input_len
  int64_t max_abs_deviation = 0;  // largest |re-encoded length - input_len|
};

// Text of `n` tokens by `tok`, starting from the ids `seed_ids` (sampled
// ordinary ids, at least n of them are not needed); `rng` draws any extra ids.
// *tokens is the re-encoded length (n unless the rounds ran out).
std::string ExactText(const tokenizer::Tokenizer& tok, std::vector<int32_t> seed_ids, int32_t n, std::mt19937_64* rng,
                      int32_t* tokens);

// Fills each spec's prompt_text with text of input_len tokens: a prefix of
// `prefix_len` tokens, the same text in every request, then text of
// input_len - prefix_len tokens of its own; prompt_token_ids are cleared.
// InvalidArgument when the vocabulary has too few ordinary tokens.
Status MakeExactTextPrompts(std::span<RequestSpec> specs, int32_t prefix_len, const tokenizer::Tokenizer& tok,
                            uint64_t seed, ExactTextStats* stats);

// Loads the tokenizer at `path` (tokenizer::Tokenizer::Load), makes the specs'
// prompts with it as MakeExactTextPrompts does, and records in `settings` the
// tokenizer ("tokenizer") and how the prompts came out
// ("tokenizer_exact_prompts": "N/M re-encode to input_len; max deviation D
// tokens"). What `frontier bench --tokenizer` and a plan's `tokenizer:` do.
Status TokenizePrompts(const std::string& path, std::span<RequestSpec> specs, int32_t prefix_len, uint64_t seed,
                       std::map<std::string, std::string>* settings);

}  // namespace frontier::workload
