// load_gguf.cc: the vocabulary of a GGUF model (llama.cpp's format) as a
// SentencePiece-style tokenizer, so `--tokenizer model.gguf` gives the ids
// llama.cpp gives. Only the metadata is read: the tensors are never touched.
//
// Supported: tokenizer.ggml.model "llama" (SentencePiece BPE with scores and
// byte tokens). llama.cpp's SPM tokenizer escapes spaces as "▁", prefixes one
// (add_space_prefix, default on), merges the adjacent pair whose joined piece
// has the highest score (leftmost on ties), and spells characters with no
// piece as <0xXX> byte tokens; control tokens in the text are parsed as such.
#include <fmt/format.h>

#include <cstring>
#include <fstream>

#include "tokenizer/loader.h"

namespace frontier::tokenizer {
namespace {

enum GgufType : uint32_t { kU8, kI8, kU16, kI16, kU32, kI32, kF32, kBool, kString, kArray, kU64, kI64, kF64 };
enum TokenType : int32_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

class Reader {
 public:
  explicit Reader(const std::string& path) : in_(path, std::ios::binary) {}
  bool ok() const { return static_cast<bool>(in_); }
  template <typename T>
  T Get() {
    T v{};
    in_.read(reinterpret_cast<char*>(&v), sizeof v);
    return v;
  }
  std::string Str() {
    const auto n = Get<uint64_t>();
    if (n > (1u << 24)) {
      in_.setstate(std::ios::failbit);
      return {};
    }
    std::string s(n, '\0');
    in_.read(s.data(), static_cast<std::streamsize>(n));
    return s;
  }
  void Skip(uint64_t n) { in_.seekg(static_cast<std::streamoff>(n), std::ios::cur); }
  static size_t Size(uint32_t type) {
    switch (type) {
      case kU8: case kI8: case kBool: return 1;
      case kU16: case kI16: return 2;
      case kU32: case kI32: case kF32: return 4;
      case kU64: case kI64: case kF64: return 8;
      default: return 0;
    }
  }
  void SkipValue(uint32_t type) {
    if (type == kString) {
      Skip(Get<uint64_t>());
    } else if (type == kArray) {
      const auto et = Get<uint32_t>();
      const auto n = Get<uint64_t>();
      if (et == kString) {
        for (uint64_t i = 0; i < n && ok(); ++i) Skip(Get<uint64_t>());
      } else {
        Skip(n * Size(et));
      }
    } else {
      Skip(Size(type));
    }
  }
  uint64_t Int(uint32_t type) {
    switch (type) {
      case kU8: case kI8: case kBool: return Get<uint8_t>();
      case kU16: case kI16: return Get<uint16_t>();
      case kU32: case kI32: return Get<uint32_t>();
      default: return Get<uint64_t>();
    }
  }

 private:
  std::ifstream in_;
};
}  // namespace

Result<std::unique_ptr<Tokenizer>> LoadGguf(const std::string& path) {
  Reader r(path);
  char magic[4] = {};
  const auto m = r.Get<uint32_t>();
  std::memcpy(magic, &m, 4);
  if (!r.ok() || std::memcmp(magic, "GGUF", 4) != 0) return InvalidArgument("--tokenizer " + path + ": not a GGUF file");
  const auto version = r.Get<uint32_t>();
  if (version < 2) return InvalidArgument(fmt::format("--tokenizer {}: GGUF version {} is too old (2 or later)", path, version));
  r.Get<uint64_t>();  // tensor count
  const auto kv_count = r.Get<uint64_t>();
  std::string model;
  std::vector<std::string> tokens;
  std::vector<float> scores;
  std::vector<int32_t> types;
  std::optional<int32_t> bos;
  bool add_space_prefix = true;
  for (uint64_t k = 0; k < kv_count && r.ok(); ++k) {
    const std::string key = r.Str();
    const auto type = r.Get<uint32_t>();
    if (key == "tokenizer.ggml.model" && type == kString) {
      model = r.Str();
    } else if (key == "tokenizer.ggml.tokens" && type == kArray) {
      r.Get<uint32_t>();
      const auto n = r.Get<uint64_t>();
      for (uint64_t i = 0; i < n && r.ok(); ++i) tokens.push_back(r.Str());
    } else if (key == "tokenizer.ggml.scores" && type == kArray) {
      r.Get<uint32_t>();
      const auto n = r.Get<uint64_t>();
      for (uint64_t i = 0; i < n && r.ok(); ++i) scores.push_back(r.Get<float>());
    } else if (key == "tokenizer.ggml.token_type" && type == kArray) {
      r.Get<uint32_t>();
      const auto n = r.Get<uint64_t>();
      for (uint64_t i = 0; i < n && r.ok(); ++i) types.push_back(r.Get<int32_t>());
    } else if (key == "tokenizer.ggml.bos_token_id" && type != kString && type != kArray) {
      bos = static_cast<int32_t>(r.Int(type));
    } else if (key == "tokenizer.ggml.add_space_prefix" && type == kBool) {
      add_space_prefix = r.Get<uint8_t>() != 0;
    } else {
      r.SkipValue(type);
    }
  }
  if (!r.ok()) return InvalidArgument("--tokenizer " + path + ": the GGUF metadata is truncated or malformed");
  if (model.empty() || tokens.empty()) return InvalidArgument("--tokenizer " + path + ": the GGUF file has no tokenizer.ggml.model/tokens");
  if (model != "llama") {
    return InvalidArgument("--tokenizer " + path + ": GGUF tokenizer.ggml.model \"" + model +
                           "\" is not supported (\"llama\" is; for byte-level models give their tokenizer.json)");
  }
  if (scores.size() != tokens.size() || types.size() != tokens.size()) {
    return InvalidArgument("--tokenizer " + path + ": tokenizer.ggml.scores/token_type do not match tokens in length");
  }
  Loader::Parts p;
  p.origin = path;
  p.byte_level = false;
  p.byte_fallback = true;
  if (add_space_prefix) p.prepend = "\xE2\x96\x81";
  p.replace.emplace_back(" ", "\xE2\x96\x81");
  p.strip_leading = add_space_prefix ? 1 : 0;
  p.scores = scores;
  p.bos = bos;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const auto id = static_cast<int32_t>(i);
    p.written.emplace_back(tokens[i], id);
    if (types[i] == kControl || types[i] == kUserDefined) {
      AddedToken a;
      a.content = tokens[i];
      a.id = id;
      a.special = types[i] == kControl;
      p.added.push_back(std::move(a));
    } else if (types[i] == kUnknown) {
      p.unk = tokens[i];
    } else if (types[i] == kNormal || types[i] == kByte || types[i] == kUnused) {
      p.merge_targets.push_back(id);
    }
  }
  return Loader::Assemble(std::move(p));
}

}  // namespace frontier::tokenizer
