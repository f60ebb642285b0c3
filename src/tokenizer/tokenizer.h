// tokenizer.h: a model's own tokenizer, loaded from a Hugging Face
// tokenizer.json (or a directory holding one) or from a GGUF file's vocabulary,
// so that prompts can be built to an exact token count and streamed text
// counted in tokens.
//
//   FRONTIER_ASSIGN_OR_RETURN(auto tok, Tokenizer::Load("Llama-3.1-8B/"));
//   std::vector<int32_t> ids = tok->Encode("Hello world");   // {9906, 1917}
//   std::string text = tok->Decode(ids);                     // "Hello world"
//
// Supported: BPE models, either byte-level (Llama 3, Qwen 2/3, DeepSeek V3,
// gpt-oss, GPT-2: a regex split, then BPE over bytes) or SentencePiece-style
// (Llama 2, Mistral, a GGUF "llama" vocabulary: "▁" for spaces, BPE over
// characters, byte fallback), with the normalizers and decoders those use,
// and added tokens (special or not) matched in the text before anything else.
// Anything else is refused at Load with the field that is not supported.
//
// Encode adds no BOS/EOS (post-processors are not applied): the ids are the
// text's own, as `add_special_tokens=False` gives them.
//
// Thread safety: a loaded Tokenizer is immutable; Encode and Decode may be
// called from any number of threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "tokenizer/bpe.h"
#include "tokenizer/pretokenizer.h"

namespace frontier::tokenizer {

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool special = false;  // Decode(skip_special) drops it; prompts never sample it
  bool lstrip = false;   // swallows whitespace on its left
  bool rstrip = false;   // swallows whitespace on its right
};

class Tokenizer {
 public:
  // PATH: a tokenizer.json, a directory holding tokenizer.json, or a .gguf
  // file. NotFound / InvalidArgument naming the file and the field otherwise.
  static Result<std::unique_ptr<Tokenizer>> Load(const std::string& path);
  // The same from the text of a tokenizer.json (`origin` names it in errors).
  static Result<std::unique_ptr<Tokenizer>> FromJson(std::string_view json, const std::string& origin);

  // The ids of `text` (added tokens recognized, no BOS), appended to *out.
  void Encode(std::string_view text, std::vector<int32_t>* out) const;
  std::vector<int32_t> Encode(std::string_view text) const;
  size_t CountTokens(std::string_view text) const { return Encode(text).size(); }

  // The text of `ids`, always valid UTF-8 (bytes that do not form a character
  // become U+FFFD). Ids outside the vocabulary are skipped.
  std::string Decode(std::span<const int32_t> ids, bool skip_special = false) const;

  // One more than the largest id.
  int32_t vocab_size() const { return static_cast<int32_t>(pieces_.size()); }
  // True for an added token marked special, or a GGUF control token.
  bool IsSpecial(int32_t id) const;
  // True for ids a prompt may be made of: in the vocabulary, not special, not
  // an added token, not the unknown token.
  bool IsOrdinary(int32_t id) const;
  std::optional<int32_t> bos_id() const { return bos_id_; }
  // A line for logs and results: kind, split, vocabulary size, source.
  std::string Describe() const;

 Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

 private:
  friend struct Loader;
  Tokenizer();
  enum class Kind { kByteLevel, kSentencePiece };
  void EncodeSegment(std::string_view text, std::vector<int32_t>* out) const;
  void EncodeWord(std::string_view word, std::vector<int32_t>* out) const;
  void SplitAdded(std::string_view text, std::vector<std::pair<std::string_view, int32_t>>* parts) const;
  // The added token that starts text[i..] (the longest), or nullptr.
  const AddedToken* AddedAt(std::string_view text, size_t i) const;

  uint64_t generation_;  // unique per tokenizer: keys the per-thread word cache
  Kind kind_ = Kind::kByteLevel;
  std::string source_;
  // Normalizers, in order.
  bool nfc_ = false;
  std::string prepend_;                                         // Prepend
  std::vector<std::pair<std::string, std::string>> replace_;    // Replace (String pattern)
  // Pre-tokenizer: the splits in turn (byte-level only).
  std::vector<SplitPattern> splits_;
  bool byte_level_prefix_space_ = false;
  // Model.
  std::vector<std::string> pieces_;  // id -> the token's bytes (byte-level: decoded; SentencePiece: as written)
  std::unordered_map<std::string_view, int32_t> ids_;  // the inverse (views into pieces_)
  BpeMerges merges_;
  int32_t byte_ids_[256];          // byte-level: the single-byte tokens; SentencePiece: <0xXX> or -1
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  int32_t unk_id_ = -1;
  bool fuse_unk_ = false;
  // Decoder (SentencePiece-style): ▁ back to space, then strip this many leading spaces.
  int strip_leading_ = 0;
  std::optional<int32_t> bos_id_;
  std::vector<AddedToken> added_;
  std::vector<bool> special_;   // by id
  std::vector<bool> added_id_;  // by id
  bool added_first_byte_[256] = {};
  std::vector<bool> added_first_two_;  // by (first byte << 8 | second byte); one-byte tokens match by the first
  std::unordered_map<std::string_view, const AddedToken*> added_by_content_;  // views into added_
  std::vector<size_t> added_lengths_;  // the distinct lengths of added tokens, longest first
  // SentencePiece-style: no merge joins a piece that ends in anything but ▁
  // to one that starts with ▁, so the text can be cut before every ▁ that
  // follows another character and each word encoded (and cached) alone.
  bool split_before_space_ = false;
};

}  // namespace frontier::tokenizer
