// load_json.cc: a Hugging Face tokenizer.json into a Tokenizer. Every field
// that would change the ids is read; one this code does not implement is an
// error naming it, never silently ignored.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tokenizer/loader.h"
#include "tokenizer/unicode.h"

namespace frontier::tokenizer {
namespace {
using nlohmann::json;

// GPT-2's printable stand-ins for bytes: bytes that are printable Latin-1
// stand for themselves, the rest map to U+0100 upwards, in order.
std::vector<char32_t> ByteToChar() {
  std::vector<char32_t> m(256);
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    m[b] = printable ? static_cast<char32_t>(b) : next++;
  }
  return m;
}

// A byte-level token as written (e.g. "Ġworld") to its bytes (" world").
Result<std::string> FromByteLevel(const std::string& s, const std::unordered_map<char32_t, int>& inverse) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    i += DecodeUtf8(s, i, &cp);
    auto it = inverse.find(cp);
    if (it == inverse.end()) return InvalidArgument("");
    out.push_back(static_cast<char>(it->second));
  }
  return out;
}

Status Unsupported(const std::string& origin, const std::string& field, const std::string& what) {
  return InvalidArgument(fmt::format("{}: {} {} is not supported (supported: BPE models with byte-level or "
                                     "SentencePiece-style pipelines, as in Llama 2/3, Qwen, DeepSeek V3, gpt-oss)",
                                     origin, field, what));
}

// The readers of one normalizer, pre-tokenizer or decoder `n` of `type` into
// `p`: false when this code does not read that type (EachComponent names it).
using ComponentReader = Result<bool> (*)(const json& n, const std::string& type, const std::string& origin,
                                         Loader::Parts* p);

Result<bool> ReadNormalizer(const json& n, const std::string& type, const std::string&, Loader::Parts* p) {
  if (type == "NFC") {
    p->nfc = true;
  } else if (type == "Prepend") {
    p->prepend = n.at("prepend").get<std::string>();
  } else if (type == "Replace" && n.at("pattern").contains("String")) {
    p->replace.emplace_back(n.at("pattern").at("String").get<std::string>(), n.at("content").get<std::string>());
  } else {
    return false;
  }
  return true;
}

Result<bool> ReadPreTokenizer(const json& n, const std::string& type, const std::string& origin, Loader::Parts* p) {
  if (type == "Split") {
    if (!n.at("pattern").contains("Regex")) return Unsupported(origin, "pre_tokenizer Split", "with a String pattern");
    if (n.value("behavior", "") != "Isolated" || n.value("invert", false)) {
      return Unsupported(origin, "pre_tokenizer Split behavior", "\"" + n.value("behavior", "") + "\"");
    }
    const std::string re = n.at("pattern").at("Regex").get<std::string>();
    auto pattern = PatternFromRegex(re);
    if (!pattern) return Unsupported(origin, "pre_tokenizer Split regex", "\"" + re + "\"");
    p->splits.push_back(*pattern);
  } else if (type == "ByteLevel") {
    p->byte_level = true;
    p->prefix_space = n.value("add_prefix_space", false);
    if (n.value("use_regex", true)) p->splits.push_back(SplitPattern::kGpt2);
  } else {
    return false;
  }
  return true;
}

Result<bool> ReadDecoder(const json& n, const std::string& type, const std::string& origin, Loader::Parts* p) {
  if (type == "Strip") {
    if (n.value("content", " ") != " " || n.value("stop", 0) != 0) return Unsupported(origin, "decoder Strip", "");
    p->strip_leading = n.value("start", 0);
    return true;
  }
  return type == "ByteLevel" || type == "ByteFallback" || type == "Fuse" || type == "Replace";
}

// Reads each component j[key] stands for with `read`: none when it is absent
// or null, the elements of its `list_key` (recursively) when a Sequence, else
// the one. A type `read` does not read is an error naming `key` and the type.
Status EachComponent(const json& j, const char* key, const char* list_key, ComponentReader read,
                     const std::string& origin, Loader::Parts* p) {
  const std::function<Status(const json&)> each = [&](const json& n) -> Status {
    if (n.is_null()) return Status::Ok();
    const std::string type = n.value("type", "");
    if (type == "Sequence") {
      for (const json& s : n.at(list_key)) FRONTIER_RETURN_IF_ERROR(each(s));
      return Status::Ok();
    }
    FRONTIER_ASSIGN_OR_RETURN(const bool known, read(n, type, origin, p));
    return known ? Status::Ok() : Unsupported(origin, key, "\"" + type + "\"");
  };
  return each(j.value(key, json()));
}

Result<std::unique_ptr<Tokenizer>> Build(const json& j, const std::string& origin) {
  Loader::Parts parts;
  parts.origin = origin;
  FRONTIER_RETURN_IF_ERROR(EachComponent(j, "normalizer", "normalizers", ReadNormalizer, origin, &parts));
  FRONTIER_RETURN_IF_ERROR(EachComponent(j, "pre_tokenizer", "pretokenizers", ReadPreTokenizer, origin, &parts));
  FRONTIER_RETURN_IF_ERROR(EachComponent(j, "decoder", "decoders", ReadDecoder, origin, &parts));
  const json& m = j.at("model");
  const std::string type = m.value("type", "BPE");
  if (type != "BPE") return Unsupported(origin, "model.type", "\"" + type + "\"");
  if (m.contains("continuing_subword_prefix") && !m["continuing_subword_prefix"].is_null() &&
      m["continuing_subword_prefix"] != "") {
    return Unsupported(origin, "model.continuing_subword_prefix", "");
  }
  parts.byte_fallback = m.value("byte_fallback", false);
  parts.ignore_merges = m.value("ignore_merges", false);
  parts.fuse_unk = m.value("fuse_unk", false);
  if (m.contains("unk_token") && m["unk_token"].is_string()) parts.unk = m["unk_token"].get<std::string>();

  const std::vector<char32_t> b2c = ByteToChar();
  std::unordered_map<char32_t, int> c2b;
  for (int b = 0; b < 256; ++b) c2b[b2c[b]] = b;

  // Tokens as written, then (byte-level) as bytes.
  const json& vocab = m.at("vocab");
  parts.written.reserve(vocab.size());
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    const int64_t id = it.value().get<int64_t>();
    if (id < 0 || id > 10'000'000) return InvalidArgument(origin + ": model.vocab id " + std::to_string(id) + " out of range");
    parts.written.emplace_back(it.key(), static_cast<int32_t>(id));
  }
  for (const json& a : j.value("added_tokens", json::array())) {
    AddedToken t;
    t.content = a.at("content").get<std::string>();
    t.id = a.at("id").get<int32_t>();
    t.special = a.value("special", false);
    t.lstrip = a.value("lstrip", false);
    t.rstrip = a.value("rstrip", false);
    parts.added.push_back(std::move(t));
  }
  if (parts.byte_level) {
    for (auto& [w, id] : parts.written) {
      auto bytes = FromByteLevel(w, c2b);
      // A token outside the byte alphabet (an added token spelled in plain
      // text) keeps its spelling.
      parts.bytes.emplace_back(bytes.ok() ? *bytes : w, id);
    }
  }
  for (const json& mg : m.at("merges")) {
    std::string a, b;
    if (mg.is_string()) {
      const std::string s = mg.get<std::string>();
      const size_t sp = s.find(' ');
      if (sp == std::string::npos) return InvalidArgument(origin + ": model.merges entry \"" + s + "\" has no space");
      a = s.substr(0, sp);
      b = s.substr(sp + 1);
    } else {
      a = mg.at(0).get<std::string>();
      b = mg.at(1).get<std::string>();
    }
    parts.merges.emplace_back(std::move(a), std::move(b));
  }
  return Loader::Assemble(std::move(parts));
}
}  // namespace

Result<std::unique_ptr<Tokenizer>> Tokenizer::FromJson(std::string_view text, const std::string& origin) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgument(origin + ": not a JSON object (a tokenizer.json was expected)");
  if (!j.contains("model")) return InvalidArgument(origin + ": no \"model\" field (a Hugging Face tokenizer.json was expected)");
  return CatchExceptions(origin, [&]() -> Result<std::unique_ptr<Tokenizer>> {
    try {
      return Build(j, origin);
    } catch (const nlohmann::json::exception& e) {
      return InvalidArgument(origin + ": malformed tokenizer.json: " + e.what());
    }
  });
}

Result<std::unique_ptr<Tokenizer>> Tokenizer::Load(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = path;
  if (fs::is_directory(p, ec)) p /= "tokenizer.json";
  if (!fs::exists(p, ec)) {
    return NotFound("--tokenizer " + path + ": no such file" +
                    (p.string() != path ? " (looked for " + p.string() + ")" : std::string()) +
                    "; give a tokenizer.json, a directory holding one, or a .gguf model");
  }
  if (p.extension() == ".gguf") return LoadGguf(p.string());
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (!in) return IoError("--tokenizer " + p.string() + ": cannot read");
  return FromJson(ss.str(), p.string());
}

}  // namespace frontier::tokenizer
