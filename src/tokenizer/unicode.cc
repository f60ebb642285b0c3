// unicode.cc: one flat byte per code point (1.1 MB, built once) answers
// Category and the NFC quick check with a single load; NFC itself is the
// textbook decompose, reorder, compose over the generated tables, applied
// only to the short stretches of text around characters that are not stable.
#include "tokenizer/unicode.h"

#include <algorithm>
#include <array>
#include <memory>
#include <unordered_map>
#include <vector>

namespace frontier::tokenizer {
namespace {
#include "tokenizer/unicode_tables.inc"

// The code point is not "stable": it may change under NFC (NFC_Quick_Check
// No), may combine with what precedes it (Maybe), or is a non-starter (ccc >
// 0) that may be reordered. Text splits into independent NFC stretches just
// before every code point without the flag: it is a starter that nothing
// before it composes with or reorders across.
constexpr uint8_t kNfcFlag = 0x80;
constexpr char32_t kMaxCp = 0x10FFFF;
// Hangul syllables compose and decompose by arithmetic.
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr int kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

struct Tables {
  std::unique_ptr<uint8_t[]> flat{new uint8_t[kMaxCp + 1]()};
  std::unordered_map<char32_t, uint8_t> ccc;
  std::unordered_map<char32_t, std::pair<char32_t, char32_t>> decomposition;
  std::unordered_map<uint64_t, char32_t> composition;

  Tables() {
    for (const auto& r : kCategoryRanges) std::fill(flat.get() + r[0], flat.get() + r[1] + 1, static_cast<uint8_t>(r[2]));
    for (const auto& c : kCombiningClasses) {
      ccc[c[0]] = static_cast<uint8_t>(c[1]);
      flat[c[0]] |= kNfcFlag;
    }
    // NFC_Quick_Check=No: a canonical decomposition that is not recomposed
    // (singletons, exclusions). A primary composite (é) is stable.
    std::vector<bool> composite(kMaxCp + 1, false);
    for (const auto& c : kCompositions) composite[c[2]] = true;
    for (const auto& d : kDecompositions) {
      decomposition[d[0]] = {d[1], d[2]};
      if (!composite[d[0]]) flat[d[0]] |= kNfcFlag;
    }
    // Maybe: the second half of a composition.
    for (const auto& c : kCompositions) {
      composition[(uint64_t{c[0]} << 32) | c[1]] = c[2];
      flat[c[1]] |= kNfcFlag;
    }
    // Hangul: vowels and trailing consonants join what precedes them;
    // syllables (composed by arithmetic) are stable.
    for (char32_t cp = kVBase; cp < kVBase + kVCount; ++cp) flat[cp] |= kNfcFlag;
    for (char32_t cp = kTBase + 1; cp < kTBase + kTCount; ++cp) flat[cp] |= kNfcFlag;
    // A stable character whose decomposition starts with an unstable one
    // would not be a clean boundary: mark it too (none in current Unicode).
    for (const auto& d : kDecompositions) {
      if (!(flat[d[0]] & kNfcFlag) && (flat[d[1]] & kNfcFlag)) flat[d[0]] |= kNfcFlag;
    }
  }
};

const Tables& T() {
  static const Tables tables;
  return tables;
}

uint8_t Ccc(char32_t cp) {
  const auto& m = T().ccc;
  auto it = m.find(cp);
  return it == m.end() ? 0 : it->second;
}

void Decompose(char32_t cp, std::u32string* out) {
  if (cp >= kSBase && cp < kSBase + kSCount) {
    const char32_t s = cp - kSBase;
    out->push_back(kLBase + s / kNCount);
    out->push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount != 0) out->push_back(kTBase + s % kTCount);
    return;
  }
  const auto& m = T().decomposition;
  auto it = m.find(cp);
  if (it == m.end()) {
    out->push_back(cp);
    return;
  }
  Decompose(it->second.first, out);
  if (it->second.second != 0) Decompose(it->second.second, out);
}

char32_t Compose(char32_t a, char32_t b) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount) {
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  }
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase && b < kTBase + kTCount) {
    return a + (b - kTBase);
  }
  const auto& m = T().composition;
  auto it = m.find((uint64_t{a} << 32) | b);
  return it == m.end() ? 0 : it->second;
}
}  // namespace

const char* const kUnicodeVersion = FRONTIER_UNICODE_VERSION;

Cat Category(char32_t cp) { return cp > kMaxCp ? Cat::kOther : static_cast<Cat>(T().flat[cp] & 0x0F); }

bool IsWhiteSpace(char32_t cp) {
  if (cp <= 0x20) return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D);
  if (cp < 0x85) return false;
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

size_t DecodeUtf8(std::string_view s, size_t i, char32_t* cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  auto cont = [&](size_t k) { return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80; };
  auto bits = [&](size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k]) & 0x3F); };
  if (b0 >= 0xC2 && b0 < 0xE0 && cont(1)) {
    *cp = (char32_t{b0 & 0x1Fu} << 6) | bits(1);
    return 2;
  }
  if (b0 >= 0xE0 && b0 < 0xF0 && cont(1) && cont(2)) {
    const char32_t c = (char32_t{b0 & 0x0Fu} << 12) | (bits(1) << 6) | bits(2);
    if (c >= 0x800 && (c < 0xD800 || c > 0xDFFF)) {
      *cp = c;
      return 3;
    }
  }
  if (b0 >= 0xF0 && b0 < 0xF5 && cont(1) && cont(2) && cont(3)) {
    const char32_t c = (char32_t{b0 & 0x07u} << 18) | (bits(1) << 12) | (bits(2) << 6) | bits(3);
    if (c >= 0x10000 && c <= kMaxCp) {
      *cp = c;
      return 4;
    }
  }
  *cp = 0xFFFD;
  return 1;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool MayNeedNfc(std::string_view s) {
  const uint8_t* flat = T().flat.get();
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    char32_t cp = 0;
    i += DecodeUtf8(s, i, &cp);
    if (flat[cp] & kNfcFlag) return true;
  }
  return false;
}

namespace {
// NFC of a stretch that starts at a boundary and ends before one.
void NfcStretch(std::string_view s, std::string* out) {
  std::u32string d;
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    i += DecodeUtf8(s, i, &cp);
    Decompose(cp, &d);
  }
  // Canonical ordering: a stable sort of each run of non-starters by class.
  for (size_t i = 0; i < d.size();) {
    if (Ccc(d[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < d.size() && Ccc(d[j]) != 0) ++j;
    std::stable_sort(d.begin() + static_cast<std::ptrdiff_t>(i), d.begin() + static_cast<std::ptrdiff_t>(j),
                     [](char32_t a, char32_t b) { return Ccc(a) < Ccc(b); });
    i = j;
  }
  // Canonical composition: each character joins the last starter unless a
  // character of the same or higher class (or a starter) stands between them.
  std::u32string c;
  size_t starter = std::u32string::npos;
  int last_ccc = -1;
  for (char32_t cp : d) {
    const int cc = Ccc(cp);
    if (starter != std::u32string::npos && (last_ccc < cc || (last_ccc == 0 && c.size() == starter + 1))) {
      if (char32_t composed = Compose(c[starter], cp); composed != 0) {
        c[starter] = composed;
        continue;
      }
    }
    if (cc == 0) starter = c.size();
    last_ccc = cc;
    c.push_back(cp);
  }
  for (char32_t cp : c) AppendUtf8(cp, out);
}
}  // namespace

std::string Nfc(std::string_view s) {
  const uint8_t* flat = T().flat.get();
  std::string out;
  out.reserve(s.size());
  size_t copied = 0;       // s[0, copied) is in out
  size_t boundary = 0;     // the last boundary seen: the start of a stable character
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {  // ASCII is stable
      boundary = i++;
      continue;
    }
    char32_t cp = 0;
    const size_t len = DecodeUtf8(s, i, &cp);
    if (!(flat[cp] & kNfcFlag)) {
      boundary = i;
      i += len;
      continue;
    }
    // An unstable character: normalize from the last boundary to the next.
    size_t end = i + len;
    while (end < s.size()) {
      if (static_cast<unsigned char>(s[end]) < 0x80) break;
      char32_t next = 0;
      const size_t n = DecodeUtf8(s, end, &next);
      if (!(flat[next] & kNfcFlag)) break;
      end += n;
    }
    out.append(s, copied, boundary - copied);
    NfcStretch(s.substr(boundary, end - boundary), &out);
    copied = boundary = i = end;
  }
  out.append(s, copied, std::string_view::npos);
  return out;
}

}  // namespace frontier::tokenizer
