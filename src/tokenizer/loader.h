// loader.h: the parts a tokenizer file is read into, and their assembly into
// a Tokenizer. Internal to src/tokenizer/ (load_json.cc, load_gguf.cc).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace frontier::tokenizer {

struct Loader {
  struct Parts {
    std::string origin;
    bool byte_level = false;  // byte-level BPE; else SentencePiece-style
    bool prefix_space = false;
    bool nfc = false;
    std::string prepend;
    std::vector<std::pair<std::string, std::string>> replace;
    std::vector<SplitPattern> splits;
    int strip_leading = 0;
    bool byte_fallback = false, ignore_merges = false, fuse_unk = false;
    std::string unk;
    std::vector<std::pair<std::string, int32_t>> written;  // tokens as the file spells them
    std::vector<std::pair<std::string, int32_t>> bytes;    // byte-level: the same as bytes
    std::vector<std::pair<std::string, std::string>> merges;  // as written, in rank order
    // Instead of `merges`: SentencePiece scores (one per id), the merge of a
    // pair ranked by the score of the piece it makes (higher first).
    std::vector<float> scores;
    std::vector<int32_t> merge_targets;  // ids that scores may merge into
    std::vector<AddedToken> added;
    std::optional<int32_t> bos;
  };
  static Result<std::unique_ptr<Tokenizer>> Assemble(Parts parts);

 private:
  // Assemble's steps (Loader is Tokenizer's friend).
  static Status SetMerges(const Parts& p, const std::unordered_map<std::string, int32_t>& by_written, Tokenizer* t);
  static void IndexAdded(std::vector<AddedToken> added, Tokenizer* t);
  static bool SafeToSplitBeforeSpace(const Tokenizer& t);
};

Result<std::unique_ptr<Tokenizer>> LoadGguf(const std::string& path);

}  // namespace frontier::tokenizer
