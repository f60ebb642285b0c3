#include "serve/synthetic.h"

#include <algorithm>

namespace frontier::serve {
namespace {

// Short words with a leading space: one word per generated token.
constexpr std::string_view kWords[] = {
    " the",   " of",    " and",   " to",    " in",    " is",    " it",    " that",  " for",
    " on",    " was",   " with",  " as",    " at",    " by",    " be",    " this",  " from",
    " or",    " an",    " are",   " not",   " but",   " had",   " his",   " they",  " you",
    " were",  " her",   " she",   " there", " can",   " all",   " one",   " their", " we",
    " him",   " been",  " has",   " when",  " who",   " will",  " more",  " no",    " if",
    " out",   " so",    " said",  " what",  " up",    " its",   " about", " into",  " than",
    " them",  " only",  " other", " new",   " some",  " could", " time",  " these", " two",
    " may",   " then",  " do",    " first", " any",   " my",    " now",   " such",  " like",
    " our",   " over",  " man",   " me",    " even",  " most",  " made",  " after", " also",
    " did",   " many",  " before", " must", " back",  " years", " where", " much",  " your",
    " way",   " well",  " down",  " should", " each", " just",  " those", " people", " how",
    " too",   " little", " state", " good", " very",  " make",  " world", " still", " own",
    " see",   " men",   " work",  " long",  " get",   " here",  " both",  " life",  " being",
    " under", " never", " day",   " same",  " know",  " while", " last",  " might", " us",
    " great", " old",   " year",  " off",   " come",  " since", " go",    " came",  " right",
    " used",  " take"};
constexpr uint64_t kNumWords = sizeof(kWords) / sizeof(kWords[0]);

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

int64_t CountTextTokens(std::string_view text) {
  int64_t tokens = 0;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && !IsSpace(text[i])) ++i;
    const size_t len = i - start;
    if (len > 0) tokens += static_cast<int64_t>((len + 7) / 8);
  }
  return tokens;
}

namespace {
int32_t PieceId(std::string_view piece) { return static_cast<int32_t>(HashBytes(piece, 4) & 0x7fffffff); }
}  // namespace

void AppendTextTokenIds(std::string_view text, std::vector<int32_t>& out) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !IsSpace(text[i])) ++i;
    for (size_t p = start; p < i; p += 8) out.push_back(PieceId(text.substr(p, std::min<size_t>(8, i - p))));
  }
}

int32_t SyntheticTokenId(uint64_t request_seed, int64_t index) {
  std::string_view word = SyntheticToken(request_seed, index);
  word.remove_prefix(1);  // the leading space
  return PieceId(word);
}

uint64_t Mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

uint64_t HashBytes(std::string_view bytes, uint64_t seed) {
  uint64_t h = 1469598103934665603ULL ^ Mix64(seed);
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string_view SyntheticToken(uint64_t request_seed, int64_t index) {
  return kWords[Mix64(request_seed ^ Mix64(static_cast<uint64_t>(index))) % kNumWords];
}

double UnitDraw(uint64_t seed, uint64_t stream, uint64_t index) {
  const uint64_t x = Mix64(Mix64(seed ^ Mix64(stream)) ^ index);
  return static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);  // 2^53
}

}  // namespace frontier::serve
