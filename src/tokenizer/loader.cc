// loader.cc: Parts into a Tokenizer: the id tables, the merge table (from the
// merges list, or from SentencePiece scores), the byte tokens, added tokens.
#include "tokenizer/loader.h"

#include <algorithm>
#include <fmt/format.h>

#include "tokenizer/unicode.h"

namespace frontier::tokenizer {

// The merge table: from SentencePiece scores when given, else from the merges list as written.
Status Loader::SetMerges(const Parts& p, const std::unordered_map<std::string, int32_t>& by_written, Tokenizer* t) {
  if (!p.scores.empty()) {
    // SentencePiece BPE: a pair merges into the piece it spells, ranked by
    // that piece's score (equal scores share a rank: leftmost first).
    std::vector<float> distinct;
    for (int32_t id : p.merge_targets) distinct.push_back(p.scores[id]);
    std::sort(distinct.begin(), distinct.end(), std::greater<>());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (int32_t id : p.merge_targets) {
      const std::string& s = t->pieces_[id];
      const auto rank = static_cast<int32_t>(
          std::lower_bound(distinct.begin(), distinct.end(), p.scores[id], std::greater<>()) - distinct.begin());
      for (size_t k = 0; k < s.size();) {
        char32_t cp = 0;
        k += DecodeUtf8(s, k, &cp);
        if (k >= s.size()) break;
        auto a = t->ids_.find(std::string_view(s).substr(0, k));
        auto b = t->ids_.find(std::string_view(s).substr(k));
        if (a != t->ids_.end() && b != t->ids_.end()) t->merges_.Add(a->second, b->second, rank, id);
      }
    }
  } else {
    int32_t rank = 0;
    for (const auto& [a, b] : p.merges) {
      auto ia = by_written.find(a), ib = by_written.find(b), im = by_written.find(a + b);
      if (ia == by_written.end() || ib == by_written.end() || im == by_written.end()) {
        return InvalidArgument(fmt::format("{}: model.merges entry {} (\"{} {}\") names a token not in the vocabulary",
                                           p.origin, rank, a, b));
      }
      t->merges_.Add(ia->second, ib->second, rank++, im->second);
    }
  }
  return Status::Ok();
}

// The added tokens, longest first, and the indexes that find them in text.
void Loader::IndexAdded(std::vector<AddedToken> added, Tokenizer* t) {
  t->added_ = std::move(added);
  std::stable_sort(t->added_.begin(), t->added_.end(),
                   [](const AddedToken& x, const AddedToken& y) { return x.content.size() > y.content.size(); });
  std::erase_if(t->added_, [](const AddedToken& a) { return a.content.empty(); });
  t->added_first_two_.assign(1 << 16, false);
  for (const AddedToken& a : t->added_) {
    const auto b0 = static_cast<unsigned char>(a.content[0]);
    t->added_first_byte_[b0] = true;
    if (a.content.size() >= 2) t->added_first_two_[(b0 << 8) | static_cast<unsigned char>(a.content[1])] = true;
    t->added_by_content_.emplace(a.content, &a);  // the first of equal contents wins, as in the ordered list
    if (std::find(t->added_lengths_.begin(), t->added_lengths_.end(), a.content.size()) == t->added_lengths_.end()) {
      t->added_lengths_.push_back(a.content.size());
    }
  }
  std::sort(t->added_lengths_.begin(), t->added_lengths_.end(), std::greater<>());
}

// SentencePiece: whether text may be cut before a ▁ that follows another character.
bool Loader::SafeToSplitBeforeSpace(const Tokenizer& t) {
  // Safe to cut before a ▁ that follows another character when ▁ has a
  // piece and no merge joins a left piece that is not all ▁ to a right
  // piece that starts with ▁ (so no token ever spans such a cut).
  constexpr std::string_view kSpace = "\xE2\x96\x81";
  auto all_space = [&](const std::string& piece) {
    if (piece.empty() || piece.size() % kSpace.size() != 0) return false;
    for (size_t k = 0; k < piece.size(); k += kSpace.size()) {
      if (piece.compare(k, kSpace.size(), kSpace) != 0) return false;
    }
    return true;
  };
  bool safe = t.ids_.count(kSpace) > 0;
  t.merges_.ForEach([&](int32_t left, int32_t right, int32_t) {
    const std::string& r = t.pieces_[right];
    if (r.compare(0, kSpace.size(), kSpace) == 0 && !all_space(t.pieces_[left])) safe = false;
  });
  return safe;
}

Result<std::unique_ptr<Tokenizer>> Loader::Assemble(Parts p) {
  auto t = std::unique_ptr<Tokenizer>(new Tokenizer());
  t->source_ = p.origin;
  t->kind_ = p.byte_level ? Tokenizer::Kind::kByteLevel : Tokenizer::Kind::kSentencePiece;
  t->nfc_ = p.nfc;
  t->prepend_ = p.prepend;
  t->replace_ = p.replace;
  t->splits_ = p.splits;
  t->byte_level_prefix_space_ = p.byte_level && p.prefix_space;
  t->strip_leading_ = p.strip_leading;
  t->byte_fallback_ = p.byte_fallback;
  t->ignore_merges_ = p.ignore_merges;
  t->fuse_unk_ = p.fuse_unk;
  t->bos_id_ = p.bos;

  int32_t max_id = -1;
  for (const auto& [w, id] : p.written) max_id = std::max(max_id, id);
  for (const AddedToken& a : p.added) max_id = std::max(max_id, a.id);
  if (max_id < 0) return InvalidArgument(p.origin + ": the vocabulary is empty");
  t->pieces_.assign(static_cast<size_t>(max_id) + 1, std::string());
  const auto& model_pieces = p.byte_level ? p.bytes : p.written;
  for (const auto& [piece, id] : model_pieces) t->pieces_[id] = piece;
  t->special_.assign(t->pieces_.size(), false);
  t->added_id_.assign(t->pieces_.size(), false);
  for (const AddedToken& a : p.added) {
    t->pieces_[a.id] = a.content;
    t->special_[a.id] = a.special;
    t->added_id_[a.id] = true;
  }
  // Views into pieces_, which no longer changes size. A byte string spelled
  // by two ids keeps the lower one.
  for (int32_t id = 0; id <= max_id; ++id) {
    if (!t->pieces_[id].empty() && !t->added_id_[id]) t->ids_.emplace(t->pieces_[id], id);
  }
  std::unordered_map<std::string, int32_t> by_written;
  by_written.reserve(p.written.size());
  for (const auto& [w, id] : p.written) by_written.emplace(w, id);

  if (!p.unk.empty()) {
    auto it = by_written.find(p.unk);
    if (it == by_written.end()) return InvalidArgument(p.origin + ": model.unk_token \"" + p.unk + "\" is not in the vocabulary");
    t->unk_id_ = it->second;
  }
  std::fill(std::begin(t->byte_ids_), std::end(t->byte_ids_), -1);
  for (int b = 0; b < 256; ++b) {
    if (p.byte_level) {
      const char c = static_cast<char>(b);
      auto it = t->ids_.find(std::string_view(&c, 1));
      if (it == t->ids_.end()) {
        return InvalidArgument(fmt::format("{}: byte-level vocabulary has no token for byte 0x{:02X}", p.origin, b));
      }
      t->byte_ids_[b] = it->second;
    } else {
      auto it = by_written.find(fmt::format("<0x{:02X}>", b));
      if (it != by_written.end()) t->byte_ids_[b] = it->second;
    }
  }

  FRONTIER_RETURN_IF_ERROR(SetMerges(p, by_written, t.get()));
  IndexAdded(std::move(p.added), t.get());
  if (!p.byte_level) t->split_before_space_ = SafeToSplitBeforeSpace(*t);
  return t;
}

}  // namespace frontier::tokenizer
