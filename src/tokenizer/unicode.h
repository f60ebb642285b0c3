// unicode.h: what a tokenizer needs to know about Unicode: UTF-8 decoding,
// the general category of a code point (the \p{L}, \p{N}, ... classes of the
// pre-tokenizer regexes), White_Space, and NFC normalization.
//
// The tables are generated from the Unicode Character Database by
// scripts/gen-unicode-tables.py (unicode_tables.inc); kUnicodeVersion says
// which version. Characters assigned after it count as "other".
//
// Thread safety: every function is safe to call from any thread (the lookup
// table is built once, on first use).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace frontier::tokenizer {

extern const char* const kUnicodeVersion;

// General categories, grouped as the pre-tokenizers ask for them.
enum class Cat : uint8_t { kOther = 0, kLu, kLl, kLt, kLm, kLo, kMark, kNumber, kPunct, kSymbol };

Cat Category(char32_t cp);
inline bool IsLetter(Cat c) { return c >= Cat::kLu && c <= Cat::kLo; }
// Unicode's White_Space property (what \s means in the regexes).
bool IsWhiteSpace(char32_t cp);

// Decodes the code point at s[i] and returns its length in bytes (1..4). A
// malformed sequence decodes as U+FFFD of length 1, so every byte belongs to
// exactly one code point and splitting never loses bytes.
size_t DecodeUtf8(std::string_view s, size_t i, char32_t* cp);
void AppendUtf8(char32_t cp, std::string* out);

// True when NFC could change `s` (a character with a decomposition, a
// combining mark, or a second half of a composition); false means Nfc(s) == s.
bool MayNeedNfc(std::string_view s);
// Canonical composition (Unicode normalization form C) of UTF-8 text.
std::string Nfc(std::string_view s);

}  // namespace frontier::tokenizer
