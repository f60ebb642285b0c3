// store_cli_util.h: running the frontier binary against a results database
// (a SQLite file or a PostgreSQL URL) from the tests of tests/store/.
#pragma once

#include <regex>
#include <string>
#include <utility>

#include "store/store.h"
#include "tests/cli_test_util.h"
#include "util/test_paths.h"

namespace frontier::testing_store {

inline std::string Binary() {
  const char* other = std::getenv("FRONTIER_TEST_BIN");
  return other != nullptr && *other != '\0' ? other : testing_util::TestPath("FRONTIER_BIN");
}

// Runs the binary with a shell command line of arguments; (exit status, output).
inline std::pair<int, std::string> Frontier(const std::string& args) {
  return testing::RunCommand(Binary() + " " + args);
}

// A shell word: `s` in single quotes (URLs hold '&' and '?').
inline std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `text` with every UTC time stamp (2026-12-01T09:00:00Z) replaced by "<time>":
// two imports of one file a second apart differ only there.
inline std::string WithoutTimes(const std::string& text) {
  static const std::regex kTime(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)");
  return std::regex_replace(text, kTime, "<time>");
}

// Points stored in `db` (-1 when it cannot be read).
inline int64_t StoredPoints(const std::string& db) {
  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  if (!s.ok()) return -1;
  auto p = (*s)->ListPoints(0);
  return p.ok() ? static_cast<int64_t>(p->size()) : -1;
}

// A small simulated plan named `name`: 2 systems x 3 concurrencies x 2 repetitions = 12 points.
inline std::string SmallPlan(const std::string& name) {
  return "name: " + name + R"(
systems:
  - {name: h200, hardware: h200, gpus: 8, sim: {model: llama-3.1-70b, tp: 8, precision: fp8}}
  - {name: mi325x, hardware: mi325x, gpus: 8, sim: {model: llama-3.1-70b, tp: 8, precision: fp8}}
workloads:
  - {name: w, input_len: 512, output_len: 256}
load:
  concurrency: [8, 16, 32]
  prompts_per_concurrency: 4
repetitions: 2
)";
}
inline constexpr int kSmallPlanPoints = 12;
// Requests of one SmallPlan: (8 + 16 + 32) x 4 prompts x 2 repetitions x 2 systems.
inline constexpr int kSmallPlanRequests = (8 + 16 + 32) * 4 * 2 * 2;

}  // namespace frontier::testing_store
