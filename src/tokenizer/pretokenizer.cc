// pretokenizer.cc: each pattern is a function that, given the text decoded to
// code points, says how long a match starting at position i is (0 = none).
// The alternatives are tried in the regex's order, and where a greedy part can
// give characters back (\s+(?!\S), \s*[\r\n]+, the o200k word classes) the
// backtracking is worked out in closed form, as the comments show.
#include "tokenizer/pretokenizer.h"

#include <array>
#include <string>
#include <utility>

#include "core/name_table.h"
#include "tokenizer/unicode.h"

namespace frontier::tokenizer {
namespace {

// The code points of a text (or of a stretch of it) with their categories:
// what every matcher reads. Indices are code points; n is the end, which
// the lookaheads ((?!\S), runs) see as the end of the text.
struct Chars {
  const char32_t* cp;
  const Cat* cat;
  size_t n;

  bool L(size_t i) const { return IsLetter(cat[i]); }
  bool N(size_t i) const { return cat[i] == Cat::kNumber; }
  bool S(size_t i) const { return IsWhiteSpace(cp[i]); }
  bool NL(size_t i) const { return cp[i] == '\r' || cp[i] == '\n'; }
  // [^\s\p{L}\p{N}]
  bool Other(size_t i) const { return !S(i) && !L(i) && !N(i); }
  // [^\r\n\p{L}\p{N}]
  bool NotNlLN(size_t i) const { return !NL(i) && !L(i) && !N(i); }
};

// A whole text decoded once: every split of a tokenizer's sequence (three
// for DeepSeek) reads these arrays instead of decoding its pieces again.
struct Decoded {
  std::vector<char32_t> cp;
  std::vector<Cat> cat;
  std::vector<size_t> off;  // byte offset of each code point, plus the end
  size_t n = 0;             // code points loaded (the arrays may be longer)

  void Load(std::string_view s) {
    static const std::array<Cat, 128> kAscii = [] {
      std::array<Cat, 128> a{};
      for (char32_t c = 0; c < 128; ++c) a[c] = Category(c);
      return a;
    }();
    // Grown, never shrunk: resizing down and up again would zero the arrays
    // on every call.
    if (cp.size() < s.size()) {
      cp.resize(s.size());
      cat.resize(s.size());
      off.resize(s.size() + 1);
    }
    n = 0;
    for (size_t i = 0; i < s.size();) {
      const auto b = static_cast<unsigned char>(s[i]);
      off[n] = i;
      if (b < 0x80) {
        cp[n] = b;
        cat[n] = kAscii[b];
        ++i;
      } else {
        char32_t c = 0;
        i += DecodeUtf8(s, i, &c);
        cp[n] = c;
        cat[n] = Category(c);
      }
      ++n;
    }
    off[n] = s.size();
  }
  Chars Range(size_t begin, size_t end) const { return {cp.data() + begin, cat.data() + begin, end - begin}; }
};

char32_t Lower(char32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

// (?i:'s|'t|'re|'ve|'m|'ll|'d)
size_t Contraction(const Chars& c, size_t i) {
  if (i + 1 >= c.n || c.cp[i] != '\'') return 0;
  const char32_t a = Lower(c.cp[i + 1]);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 >= c.n) return 0;
  const char32_t b = Lower(c.cp[i + 2]);
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

// \s*[\r\n]+ : the whitespace run gives characters back until a newline ends
// the match, so it ends just after the run's last \r or \n.
// \s+(?!\S) : the whole run at the end of the text, else all but its last
// character (which stays to lead the next piece).
// \s+ : the whole run.
size_t Whitespace(const Chars& c, size_t i) {
  if (!c.S(i)) return 0;
  size_t k = i;
  size_t last_nl = SIZE_MAX;
  while (k < c.n && c.S(k)) {
    if (c.NL(k)) last_nl = k;
    ++k;
  }
  if (last_nl != SIZE_MAX) return last_nl + 1 - i;
  if (k == c.n) return k - i;
  if (k - i >= 2) return k - 1 - i;
  return 1;
}

size_t Run(const Chars& c, size_t i, bool (Chars::*pred)(size_t) const) {
  size_t k = i;
  while (k < c.n && (c.*pred)(k)) ++k;
  return k - i;
}

// Llama 3 and Qwen:
// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,D}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
size_t MatchCl100k(const Chars& c, size_t i, size_t max_digits) {
  if (size_t m = Contraction(c, i)) return m;
  if (c.L(i)) return Run(c, i, &Chars::L);
  if (c.NotNlLN(i) && i + 1 < c.n && c.L(i + 1)) return 1 + Run(c, i + 1, &Chars::L);
  if (c.N(i)) {
    size_t k = i;
    while (k < c.n && k - i < max_digits && c.N(k)) ++k;
    return k - i;
  }
  size_t j = i;
  if (c.cp[i] == ' ' && i + 1 < c.n && c.Other(i + 1)) j = i + 1;
  if (c.Other(j)) {
    j += Run(c, j, &Chars::Other);
    j += Run(c, j, &Chars::NL);
    return j - i;
  }
  return Whitespace(c, i);
}

// GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
size_t MatchGpt2(const Chars& c, size_t i) {
  if (c.cp[i] == '\'' && i + 1 < c.n) {
    const char32_t a = c.cp[i + 1];
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if (i + 2 < c.n) {
      const char32_t b = c.cp[i + 2];
      if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
    }
  }
  const size_t j = (c.cp[i] == ' ' && i + 1 < c.n) ? i + 1 : i;
  if (c.L(j)) return j - i + Run(c, j, &Chars::L);
  if (c.N(j)) return j - i + Run(c, j, &Chars::N);
  if (c.Other(j)) return j - i + Run(c, j, &Chars::Other);
  if (!c.S(i)) return 0;
  size_t k = i;
  while (k < c.n && c.S(k)) ++k;
  if (k == c.n || k - i == 1) return k - i;
  return k - 1 - i;
}

// o200k (gpt-oss):
//   [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|...)?
//  |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|...)?
//  |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
bool Upper(const Chars& c, size_t i) {
  const Cat k = c.cat[i];
  return k == Cat::kLu || k == Cat::kLt || k == Cat::kLm || k == Cat::kLo || k == Cat::kMark;
}
bool LowerCls(const Chars& c, size_t i) {
  const Cat k = c.cat[i];
  return k == Cat::kLl || k == Cat::kLm || k == Cat::kLo || k == Cat::kMark;
}
// The end of U*W+ starting at j, or 0 if none. U* takes its longest run to u;
// W+ then runs on from u if it can; otherwise U* gives back characters until
// one of them is in W, and the match ends just after the last such one.
size_t UpperStarLowerPlus(const Chars& c, size_t j) {
  size_t u = j;
  while (u < c.n && Upper(c, u)) ++u;
  if (u < c.n && LowerCls(c, u)) {
    while (u < c.n && LowerCls(c, u)) ++u;
    return u;
  }
  for (size_t p = u; p > j; --p) {
    if (LowerCls(c, p - 1)) return p;
  }
  return 0;
}
size_t UpperPlusLowerStar(const Chars& c, size_t j) {
  size_t u = j;
  while (u < c.n && Upper(c, u)) ++u;
  if (u == j) return 0;
  while (u < c.n && LowerCls(c, u)) ++u;
  return u;
}
size_t MatchO200k(const Chars& c, size_t i) {
  for (auto word : {&UpperStarLowerPlus, &UpperPlusLowerStar}) {
    size_t end = 0;
    if (c.NotNlLN(i) && i + 1 < c.n) end = word(c, i + 1);
    if (end == 0) end = word(c, i);
    if (end != 0) return end + Contraction(c, end) - i;
  }
  if (c.N(i)) {
    size_t k = i;
    while (k < c.n && k - i < 3 && c.N(k)) ++k;
    return k - i;
  }
  size_t j = i;
  if (c.cp[i] == ' ' && i + 1 < c.n && c.Other(i + 1)) j = i + 1;
  if (c.Other(j)) {
    j += Run(c, j, &Chars::Other);
    while (j < c.n && (c.NL(j) || c.cp[j] == '/')) ++j;
    return j - i;
  }
  return Whitespace(c, i);
}

// DeepSeek V3's third split:
//   [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
//  | ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
bool AsciiPunct(char32_t c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
}
bool AsciiAlpha(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
size_t MatchDeepSeekWords(const Chars& c, size_t i) {
  auto lm = [&](size_t k) { return c.L(k) || c.cat[k] == Cat::kMark; };
  auto ps = [&](size_t k) { return c.cat[k] == Cat::kPunct || c.cat[k] == Cat::kSymbol; };
  if (AsciiPunct(c.cp[i]) && i + 1 < c.n && AsciiAlpha(c.cp[i + 1])) {
    size_t k = i + 1;
    while (k < c.n && AsciiAlpha(c.cp[k])) ++k;
    return k - i;
  }
  const bool prefix = !c.NL(i) && !c.L(i) && !ps(i);
  if (prefix && i + 1 < c.n && lm(i + 1)) {
    size_t k = i + 1;
    while (k < c.n && lm(k)) ++k;
    return k - i;
  }
  if (lm(i)) {
    size_t k = i;
    while (k < c.n && lm(k)) ++k;
    return k - i;
  }
  size_t j = (c.cp[i] == ' ' && i + 1 < c.n && ps(i + 1)) ? i + 1 : i;
  if (ps(j)) {
    while (j < c.n && ps(j)) ++j;
    while (j < c.n && c.NL(j)) ++j;
    return j - i;
  }
  return Whitespace(c, i);
}

// \p{N}{1,3}
size_t MatchDigits(const Chars& c, size_t i) {
  size_t k = i;
  while (k < c.n && k - i < 3 && c.N(k)) ++k;
  return k - i;
}

// [\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+
size_t MatchCjk(const Chars& c, size_t i) {
  auto cjk = [&](size_t k) {
    const char32_t x = c.cp[k];
    return (x >= 0x4E00 && x <= 0x9FA5) || (x >= 0x3040 && x <= 0x309F) || (x >= 0x30A0 && x <= 0x30FF);
  };
  size_t k = i;
  while (k < c.n && cjk(k)) ++k;
  return k - i;
}

size_t Match(SplitPattern p, const Chars& c, size_t i) {
  switch (p) {
    case SplitPattern::kLlama3: return MatchCl100k(c, i, 3);
    case SplitPattern::kQwen: return MatchCl100k(c, i, 1);
    case SplitPattern::kO200k: return MatchO200k(c, i);
    case SplitPattern::kDeepSeekWords: return MatchDeepSeekWords(c, i);
    case SplitPattern::kDeepSeekDigits: return MatchDigits(c, i);
    case SplitPattern::kDeepSeekCjk: return MatchCjk(c, i);
    case SplitPattern::kGpt2: return MatchGpt2(c, i);
  }
  return 0;
}

// The regexes exactly as the tokenizer.json files spell them.
constexpr std::string_view kLlama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwenRegex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kO200kRegex =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kDeepSeekWordsRegex =
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| "
    "?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";
constexpr std::string_view kDigitsRegex = R"(\p{N}{1,3})";
constexpr std::string_view kCjkRegex = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+";

}  // namespace

std::optional<SplitPattern> PatternFromRegex(std::string_view regex) {
  if (regex == kLlama3Regex) return SplitPattern::kLlama3;
  if (regex == kQwenRegex) return SplitPattern::kQwen;
  if (regex == kO200kRegex) return SplitPattern::kO200k;
  if (regex == kDeepSeekWordsRegex) return SplitPattern::kDeepSeekWords;
  if (regex == kDigitsRegex) return SplitPattern::kDeepSeekDigits;
  if (regex == kCjkRegex) return SplitPattern::kDeepSeekCjk;
  return std::nullopt;
}

constexpr NameEntry<SplitPattern> kPatternNames[] = {
    {SplitPattern::kLlama3, "llama3"},          {SplitPattern::kQwen, "qwen"},
    {SplitPattern::kO200k, "o200k"},            {SplitPattern::kDeepSeekWords, "deepseek-words"},
    {SplitPattern::kDeepSeekDigits, "digits"},  {SplitPattern::kDeepSeekCjk, "cjk"},
    {SplitPattern::kGpt2, "gpt2"}};

const char* PatternName(SplitPattern p) { return NameOf(kPatternNames, p); }

namespace {
// Appends the pieces of code points [begin, end) as [begin, end) ranges.
void SplitRange(SplitPattern pattern, const Decoded& d, size_t begin, size_t end,
                std::vector<std::pair<size_t, size_t>>* out) {
  const Chars c = d.Range(begin, end);
  size_t gap = 0;  // start of the unmatched run before i
  for (size_t i = 0; i < c.n;) {
    const size_t m = Match(pattern, c, i);
    if (m == 0) {
      ++i;
      continue;
    }
    if (gap < i) out->push_back({begin + gap, begin + i});
    out->push_back({begin + i, begin + i + m});
    i += m;
    gap = i;
  }
  if (gap < c.n) out->push_back({begin + gap, end});
}
}  // namespace

void Split(SplitPattern pattern, std::string_view text, std::vector<std::string_view>* out) {
  SplitAll(std::span<const SplitPattern>(&pattern, 1), text, out);
}

void SplitAll(std::span<const SplitPattern> patterns, std::string_view text, std::vector<std::string_view>* out) {
  if (patterns.empty()) {
    if (!text.empty()) out->push_back(text);
    return;
  }
  thread_local Decoded d;
  thread_local std::vector<std::pair<size_t, size_t>> a, b;
  d.Load(text);
  a.clear();
  a.push_back({0, d.n});
  for (SplitPattern p : patterns) {
    b.clear();
    for (const auto& [begin, end] : a) SplitRange(p, d, begin, end, &b);
    std::swap(a, b);
  }
  for (const auto& [begin, end] : a) out->push_back(text.substr(d.off[begin], d.off[end] - d.off[begin]));
}

}  // namespace frontier::tokenizer
