// tokenizer.cc: encoding and decoding. Loading is in load_json.cc and
// load_gguf.cc.
#include "tokenizer/tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>

#include "tokenizer/unicode.h"
#include "tokenizer/word_cache.h"

namespace frontier::tokenizer {
namespace {

// Text with every malformed UTF-8 byte replaced by U+FFFD.
std::string ValidUtf8(std::string s) {
  size_t i = 0;
  while (i < s.size()) {
    char32_t cp = 0;
    const size_t len = DecodeUtf8(s, i, &cp);
    if (cp == 0xFFFD && len == 1 && static_cast<unsigned char>(s[i]) >= 0x80) break;
    i += len;
  }
  if (i == s.size()) return s;
  std::string out = s.substr(0, i);
  while (i < s.size()) {
    char32_t cp = 0;
    const size_t len = DecodeUtf8(s, i, &cp);
    if (cp == 0xFFFD && len == 1 && static_cast<unsigned char>(s[i]) >= 0x80) {
      AppendUtf8(0xFFFD, &out);
    } else {
      out.append(s, i, len);
    }
    i += len;
  }
  return out;
}

// Distinguishes tokenizers that a thread's cache may have seen at the same address.
std::atomic<uint64_t> next_generation{1};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace

Tokenizer::Tokenizer() : generation_(next_generation.fetch_add(1)) {}

bool Tokenizer::IsSpecial(int32_t id) const {
  return id >= 0 && static_cast<size_t>(id) < special_.size() && special_[id];
}

bool Tokenizer::IsOrdinary(int32_t id) const {
  if (id < 0 || id >= vocab_size() || id == unk_id_) return false;
  if (added_id_[id]) return false;
  return !pieces_[id].empty();
}

std::string Tokenizer::Describe() const {
  std::string split;
  for (SplitPattern p : splits_) split += std::string(split.empty() ? "" : "+") + PatternName(p);
  return fmt::format("{} BPE{}, {} tokens ({} merges, {} added), from {}",
                     kind_ == Kind::kByteLevel ? "byte-level" : "SentencePiece-style",
                     split.empty() ? "" : " (" + split + " split)", vocab_size(), merges_.size(), added_.size(),
                     source_);
}

std::vector<int32_t> Tokenizer::Encode(std::string_view text) const {
  std::vector<int32_t> out;
  out.reserve(text.size() / 2 + 16);  // prose has a token per 3 to 4 bytes: no regrowth (pages are touched as used)
  Encode(text, &out);
  return out;
}

const AddedToken* Tokenizer::AddedAt(std::string_view text, size_t i) const {
  const auto b0 = static_cast<unsigned char>(text[i]);
  if (!added_first_byte_[b0]) return nullptr;
  // Most bytes that start an added token ("<") do not start one here: the
  // first two bytes rule them out before any lookup.
  const bool two = i + 1 < text.size() && added_first_two_[(b0 << 8) | static_cast<unsigned char>(text[i + 1])];
  for (size_t len : added_lengths_) {  // longest first
    if (len > text.size() - i || (len >= 2 && !two)) continue;
    if (auto it = added_by_content_.find(text.substr(i, len)); it != added_by_content_.end()) return it->second;
  }
  return nullptr;
}

void Tokenizer::SplitAdded(std::string_view text, std::vector<std::pair<std::string_view, int32_t>>* parts) const {
  size_t seg = 0;
  for (size_t i = 0; i < text.size();) {
    const AddedToken* hit = AddedAt(text, i);
    if (hit == nullptr) {
      ++i;
      continue;
    }
    size_t before_end = i;
    if (hit->lstrip) {
      while (before_end > seg && IsSpace(text[before_end - 1])) --before_end;
    }
    if (before_end > seg) parts->push_back({text.substr(seg, before_end - seg), -1});
    parts->push_back({{}, hit->id});
    i += hit->content.size();
    if (hit->rstrip) {
      while (i < text.size() && IsSpace(text[i])) ++i;
    }
    seg = i;
  }
  if (seg < text.size()) parts->push_back({text.substr(seg), -1});
}

void Tokenizer::Encode(std::string_view text, std::vector<int32_t>* out) const {
  if (added_.empty()) {
    EncodeSegment(text, out);
    return;
  }
  std::vector<std::pair<std::string_view, int32_t>> parts;
  SplitAdded(text, &parts);
  for (const auto& [seg, id] : parts) {
    if (id >= 0) {
      out->push_back(id);
    } else {
      EncodeSegment(seg, out);
    }
  }
}

void Tokenizer::EncodeSegment(std::string_view text, std::vector<int32_t>* out) const {
  if (text.empty()) return;
  std::string norm;
  std::string_view t = text;
  if (nfc_ && MayNeedNfc(t)) {
    norm = Nfc(t);
    t = norm;
  }
  if (!prepend_.empty() || !replace_.empty() || byte_level_prefix_space_) {
    std::string s;
    s.reserve(t.size() + 8);
    s += prepend_;
    if (byte_level_prefix_space_ && t.front() != ' ') s += ' ';
    s.append(t);
    for (const auto& [from, to] : replace_) {
      std::string r;
      r.reserve(s.size() + s.size() / 2);
      size_t pos = 0;
      for (size_t hit; (hit = s.find(from, pos)) != std::string::npos; pos = hit + from.size()) {
        r.append(s, pos, hit - pos);
        r += to;
      }
      r.append(s, pos, std::string::npos);
      s = std::move(r);
    }
    norm = std::move(s);
    t = norm;
  }
  if (kind_ == Kind::kSentencePiece && split_before_space_) {
    constexpr std::string_view kSpace = "\xE2\x96\x81";
    size_t start = 0;
    for (size_t i = t.find(kSpace, 1); i != std::string_view::npos; i = t.find(kSpace, i + kSpace.size())) {
      if (i >= kSpace.size() && t.compare(i - kSpace.size(), kSpace.size(), kSpace) == 0) continue;  // a run of ▁
      EncodeWord(t.substr(start, i - start), out);
      start = i;
    }
    EncodeWord(t.substr(start), out);
    return;
  }
  if (kind_ == Kind::kSentencePiece || splits_.empty()) {
    EncodeWord(t, out);
    return;
  }
  thread_local std::vector<std::string_view> pieces;
  pieces.clear();
  SplitAll(splits_, t, &pieces);
  // `pieces` is thread_local and EncodeWord does not split: safe to iterate.
  for (std::string_view piece : pieces) EncodeWord(piece, out);
}

namespace {
// Words repeat: a per-thread cache of short words' ids (as Hugging Face's and
// transformers.js's BPE keep one), emptied when the thread turns to another
// tokenizer.
WordCache& CacheFor(const void* owner, uint64_t generation) {
  struct Cache {
    const void* owner = nullptr;
    uint64_t generation = 0;
    WordCache words;
  };
  thread_local Cache cache;
  if (cache.owner != owner || cache.generation != generation) {
    cache.words.Clear();
    cache.owner = owner;
    cache.generation = generation;
  }
  return cache.words;
}
}  // namespace

void Tokenizer::EncodeWord(std::string_view word, std::vector<int32_t>* out) const {
  if (word.empty()) return;
  if (kind_ == Kind::kByteLevel && ignore_merges_) {
    if (auto it = ids_.find(word); it != ids_.end()) {
      out->push_back(it->second);
      return;
    }
  }
  WordCache& cache = CacheFor(this, generation_);
  if (auto hit = cache.Find(word)) {
    out->insert(out->end(), hit->begin(), hit->end());
    return;
  }
  thread_local std::vector<int32_t> sym;
  sym.clear();
  if (kind_ == Kind::kByteLevel) {
    for (char c : word) sym.push_back(byte_ids_[static_cast<unsigned char>(c)]);
  } else {
    bool last_unk = false;
    for (size_t i = 0; i < word.size();) {
      char32_t cp = 0;
      const size_t len = DecodeUtf8(word, i, &cp);
      auto it = ids_.find(word.substr(i, len));
      if (it != ids_.end()) {
        sym.push_back(it->second);
        last_unk = false;
      } else if (byte_fallback_ && std::all_of(word.begin() + static_cast<std::ptrdiff_t>(i),
                                               word.begin() + static_cast<std::ptrdiff_t>(i + len),
                                               [&](char c) { return byte_ids_[static_cast<unsigned char>(c)] >= 0; })) {
        for (size_t k = i; k < i + len; ++k) sym.push_back(byte_ids_[static_cast<unsigned char>(word[k])]);
        last_unk = false;
      } else if (unk_id_ >= 0 && !(fuse_unk_ && last_unk)) {
        sym.push_back(unk_id_);
        last_unk = true;
      }
      i += len;
    }
  }
  merges_.Apply(&sym);
  out->insert(out->end(), sym.begin(), sym.end());
  cache.Insert(word, sym);
}

std::string Tokenizer::Decode(std::span<const int32_t> ids, bool skip_special) const {
  std::string s;
  for (int32_t id : ids) {
    if (id < 0 || id >= vocab_size()) continue;
    if (skip_special && IsSpecial(id)) continue;
    const std::string& p = pieces_[id];
    if (kind_ == Kind::kSentencePiece && !added_id_[id]) {
      if (p.size() == 6 && p[0] == '<' && p[1] == '0' && p[2] == 'x' && p[5] == '>' && HexDigit(p[3]) >= 0 &&
          HexDigit(p[4]) >= 0) {
        s.push_back(static_cast<char>(HexDigit(p[3]) * 16 + HexDigit(p[4])));
        continue;
      }
      s += p;
    } else {
      s += p;
    }
  }
  if (kind_ == Kind::kSentencePiece) {
    std::string r;
    r.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
      if (s.compare(i, 3, "\xE2\x96\x81") == 0) {  // ▁
        r.push_back(' ');
        i += 3;
      } else {
        r.push_back(s[i++]);
      }
    }
    s = std::move(r);
    for (int k = 0; k < strip_leading_ && !s.empty() && s.front() == ' '; ++k) s.erase(0, 1);
  }
  return ValidUtf8(std::move(s));
}

}  // namespace frontier::tokenizer
