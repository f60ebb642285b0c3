// pretokenizer.h: the regex splits that byte-level BPE tokenizers run before
// BPE, written by hand over Unicode categories (a general regex engine is
// several times slower and none in the standard library knows \p{L}).
//
// A tokenizer.json names its split by the regex text; Pattern() recognizes the
// ones the supported model families use and reports any other as unsupported:
//
//   kLlama3   Llama 3 / 3.1 / 3.2 / 3.3 (tiktoken cl100k-style, digits in 3s)
//   kQwen     Qwen 2 / 2.5 / 3 (the same, digits one by one)
//   kO200k    gpt-oss (tiktoken o200k: case-aware words, "/" after punctuation)
//   kDeepSeekWords, kDeepSeekDigits, kDeepSeekCjk
//             DeepSeek V3 / R1 (three splits applied in turn)
//   kGpt2     GPT-2 (ByteLevel's own regex, use_regex: true)
//
// Split behaviour is "Isolated": every match is a piece and so is every run of
// text between matches. Semantics follow the regexes as written (leftmost
// match, alternatives in order, greedy with backtracking), with \s meaning
// Unicode White_Space and (?i:...) folding ASCII letters.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace frontier::tokenizer {

enum class SplitPattern { kLlama3, kQwen, kO200k, kDeepSeekWords, kDeepSeekDigits, kDeepSeekCjk, kGpt2 };

// The pattern whose regex text is `regex`, or nullopt for one not supported.
std::optional<SplitPattern> PatternFromRegex(std::string_view regex);
const char* PatternName(SplitPattern p);

// Appends to `out` the pieces of `text` (views into it, in order, covering it
// exactly, none empty).
void Split(SplitPattern pattern, std::string_view text, std::vector<std::string_view>* out);
// The splits in turn, each over the pieces of the one before (as a
// tokenizer.json Sequence of Split pre-tokenizers), decoding the text once.
void SplitAll(std::span<const SplitPattern> patterns, std::string_view text, std::vector<std::string_view>* out);

}  // namespace frontier::tokenizer
