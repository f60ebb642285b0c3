// The binary's result files against golden copies (tests/golden/data/): seeded
// runs of `simulate` (one point, and a sweep of concurrencies), `search`, a
// small `sweep` plan and `bench` against `frontier serve --profile fixed`,
// compared key by key. They pin what the commands write while their code
// moves between layers: a refactoring that changes a key, a value, a stored
// row or a printed table fails here.
//
// Every file is flattened to path -> value (objects by ".key", arrays by
// "[i]", and JSON held in a string, such as a stored point's summary_json,
// flattened in place), with the scratch folder's path and the server's port
// replaced by <tmp> and <port>. The paths must be the same; the values too,
// except the keys kVolatile lists (and, for the real bench, kWallClock), whose
// presence alone is compared. Numbers are equal within 1e-9 of their size, so
// a compiler's choice of fused multiply-add does not fail a build.
//
// To write the golden files again after a change meant to alter the output:
//   FRONTIER_GOLDEN_UPDATE=1 ctest --test-dir build -R Golden   (ctest sets the paths)
// and review the diff of tests/golden/data/ before committing it.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_test_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier {
namespace {

using json = nlohmann::json;
using testing_util::ScratchDir;
using testing_util::Slurp;

// Keys whose values differ from run to run whatever the code does.
const std::vector<std::regex>& Volatile() {
  static const std::vector<std::regex> kVolatile = {
      std::regex(R"((^|\.)date$)"),            // the result JSON's wall-clock date
      std::regex(R"(start_time_utc$)"),        // provenance: when the run started
      std::regex(R"(created_utc$)"),           // the store's row times
      std::regex(R"(started_utc$)"),           // the stored run's provenance time
      std::regex(R"(provenance\.host$)"),      // the machine the test runs on, stored with every run
  };
  return kVolatile;
}

// The real bench's figures that come from the wall clock (latencies, rates,
// durations, the time slices and the server's scraped samples): they depend on
// the machine's load. Counts, tokens, settings and the keys present do not.
const std::vector<std::regex>& WallClock() {
  static const std::vector<std::regex> kWallClock = {
      std::regex(R"(_ms$)"),                     // TTFT, TPOT, ITL, ICL, E2EL, queue time: every statistic
      std::regex(R"(throughput)"),               // every rate per second (and per GPU)
      std::regex(R"(tput_per_gpu$)"),            // the stored point's per-GPU rates
      std::regex(R"((^|\.)duration$)"),          // the run's wall-clock length
      std::regex(R"((^|\.)interactivity$)"),     // tokens per second per user
      std::regex(R"(goodput)"),                  // requests within the SLO per second
      std::regex(R"(timeslices)"),               // windows of wall-clock time
      std::regex(R"(server_metrics\.samples)"),  // scrapes at wall-clock times
      std::regex(R"(server_metrics\.scrape)"),   // how many scrapes the run's length allowed
      std::regex(R"(burstiness_measured)"),      // from the measured send times
      std::regex(R"(^\.frontier\.host$)"),        // the machine measured from (a simulation names the simulator)
  };
  return kWallClock;
}

bool Matches(const std::vector<std::regex>& patterns, const std::string& path) {
  for (const auto& re : patterns)
    if (std::regex_search(path, re)) return true;
  return false;
}

// Strings with the run's own scratch folder and port replaced.
struct Normalizer {
  std::string tmp;
  int port = -1;
  std::string operator()(std::string s) const {
    for (size_t at; !tmp.empty() && (at = s.find(tmp)) != std::string::npos;) s.replace(at, tmp.size(), "<tmp>");
    if (port > 0) {
      const std::string p = "127.0.0.1:" + std::to_string(port);
      for (size_t at; (at = s.find(p)) != std::string::npos;) s.replace(at, p.size(), "127.0.0.1:<port>");
    }
    return s;
  }
};

json Normalize(const json& j, const Normalizer& n) {
  if (j.is_object()) {
    json out = json::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[n(it.key())] = Normalize(it.value(), n);
    return out;
  }
  if (j.is_array()) {
    json out = json::array();
    for (const auto& v : j) out.push_back(Normalize(v, n));
    return out;
  }
  if (j.is_string()) return n(j.get<std::string>());
  return j;
}

void Flatten(const json& j, const std::string& path, std::map<std::string, json>* out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) Flatten(it.value(), path + "." + it.key(), out);
    if (j.empty()) (*out)[path] = json::object();
    return;
  }
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) Flatten(j[i], path + "[" + std::to_string(i) + "]", out);
    if (j.empty()) (*out)[path] = json::array();
    return;
  }
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (!s.empty() && (s.front() == '{' || s.front() == '[')) {
      const json inner = json::parse(s, nullptr, /*allow_exceptions=*/false);
      if (!inner.is_discarded()) return Flatten(inner, path + "<json>", out);
    }
  }
  (*out)[path] = j;
}

bool SameValue(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return x == y || std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y));
  }
  return a == b;
}

// "a.b[3].c" -> "a.b[].c": the presence of an excluded key, whatever the length of its list.
std::string WithoutIndexes(const std::string& path) { return std::regex_replace(path, std::regex(R"(\[\d+\])"), "[]"); }

// Compares `got` with the golden file `name`, or writes it when
// FRONTIER_GOLDEN_UPDATE is set.
void ExpectGolden(const std::string& name, const json& got, bool wall_clock) {
  const std::string path = testing_util::TestPath("FRONTIER_SOURCE_DIR") + "/tests/golden/data/" + name;
  const char* update = std::getenv("FRONTIER_GOLDEN_UPDATE");
  if (update != nullptr && *update != '\0') {
    std::ofstream(path) << got.dump(2) << "\n";
    return;
  }
  const json want = json::parse(Slurp(path), nullptr, false);
  ASSERT_FALSE(want.is_discarded()) << "golden file " << path << " missing or not JSON";
  std::map<std::string, json> w, g;
  Flatten(want, "", &w);
  Flatten(got, "", &g);
  auto excluded = [&](const std::string& key) {
    return Matches(Volatile(), key) || (wall_clock && Matches(WallClock(), key));
  };
  std::set<std::string> w_excluded, g_excluded;
  for (const auto& [k, v] : w) {
    if (excluded(k)) {
      w_excluded.insert(WithoutIndexes(k));
    } else if (!g.count(k)) {
      ADD_FAILURE() << name << ": key " << k << " missing (golden " << v.dump() << ")";
    } else {
      EXPECT_TRUE(SameValue(v, g.at(k))) << name << ": " << k << " is " << g.at(k).dump() << ", golden " << v.dump();
    }
  }
  for (const auto& [k, v] : g) {
    if (excluded(k)) {
      g_excluded.insert(WithoutIndexes(k));
    } else if (!w.count(k)) {
      ADD_FAILURE() << name << ": key " << k << " = " << v.dump() << " is not in the golden file";
    }
  }
  EXPECT_EQ(w_excluded, g_excluded) << name << ": the excluded keys present differ";
}

// A text output (a command's stdout) against its golden copy, line by line.
void ExpectGoldenText(const std::string& name, const std::string& got) {
  std::vector<std::string> lines;
  std::istringstream in(got);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ExpectGolden(name, json(lines), /*wall_clock=*/false);
}

json ReadJson(const std::string& path) {
  const json j = json::parse(Slurp(path), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << path << " missing or not JSON";
  return j;
}

json ReadJsonl(const std::string& path) {
  json lines = json::array();
  std::istringstream in(Slurp(path));
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line, nullptr, false));
  return lines;
}

// Runs the binary with `args` (shell words); returns the exit status. `out`
// gets stdout and stderr together (RunCommand adds 2>&1 after `2> err`, which
// stays empty), in the order the binary's buffering writes them.
int Frontier(const std::string& args, const std::string& out, const std::string& err) {
  return testing::RunCommand(testing_util::TestPath("FRONTIER_BIN") + " " + args + " > " + out + " 2> " + err).first;
}

// Exported as JSON, the database's runs and points as stored.
json Exported(const ScratchDir& tmp, const std::string& db, const Normalizer& n) {
  const std::string out = tmp.Path("export.json");
  auto [rc, text] = testing::RunCommand(testing_util::TestPath("FRONTIER_BIN") + " db export --db " + db + " -o " + out);
  EXPECT_EQ(rc, 0) << text;
  return Normalize(ReadJson(out), n);
}

const char* kSystem = "--model llama-3.1-70b --hardware h200 --gpus 8 --tp 8 --precision fp8";

TEST(GoldenCli, SimulateOnePoint) {
  ScratchDir tmp("golden_sim1");
  const Normalizer n{tmp.dir.string()};
  const std::string db = tmp.Path("f.db");
  const int rc = Frontier(std::string("simulate ") + kSystem +
                              " --max-concurrency 4 --num-prompts 12 --input-len 256 --output-len 64 --seed 7"
                              " --result-json " + tmp.Path("r.json") + " --requests-jsonl " + tmp.Path("r.jsonl") +
                              " --db " + db,
                          tmp.Path("out"), tmp.Path("err"));
  ASSERT_EQ(rc, 0) << Slurp(tmp.Path("out"));
  ExpectGolden("simulate_point.json", Normalize(ReadJson(tmp.Path("r.json")), n), false);
  ExpectGolden("simulate_point.requests.json", Normalize(ReadJsonl(tmp.Path("r.jsonl")), n), false);
  ExpectGoldenText("simulate_point.stdout.json", n(Slurp(tmp.Path("out"))));
  ExpectGolden("simulate_point.db.json", Exported(tmp, db, n), false);
}

TEST(GoldenCli, SimulateConcurrencySweep) {
  ScratchDir tmp("golden_simc");
  const Normalizer n{tmp.dir.string()};
  const std::string db = tmp.Path("f.db");
  const int rc = Frontier(std::string("simulate ") + kSystem +
                              " --concurrency 1,8 --num-prompts 16 --input-len 256 --output-len 64 --seed 7"
                              " --explain --result-json " + tmp.Path("r.json") + " --db " + db,
                          tmp.Path("out"), tmp.Path("err"));
  ASSERT_EQ(rc, 0) << Slurp(tmp.Path("out"));
  ExpectGolden("simulate_sweep.c1.json", Normalize(ReadJson(tmp.Path("r.c1.json")), n), false);
  ExpectGolden("simulate_sweep.c8.json", Normalize(ReadJson(tmp.Path("r.c8.json")), n), false);
  ExpectGoldenText("simulate_sweep.stdout.json", n(Slurp(tmp.Path("out"))));
  ExpectGolden("simulate_sweep.db.json", Exported(tmp, db, n), false);
}

TEST(GoldenCli, SearchOnTheSimulator) {
  ScratchDir tmp("golden_search");
  const Normalizer n{tmp.dir.string()};
  const std::string db = tmp.Path("f.db");
  const int rc = Frontier("search --model llama-3.1-8b --hardware h100-sxm --input-len 256 --output-len 64"
                          " --num-prompts 64 --seed 5 --slo ttft_p99:100 tpot_p99:40 --min-interactivity 25"
                          " --result-json " + tmp.Path("r.json") + " --db " + db,
                          tmp.Path("out"), tmp.Path("err"));
  ASSERT_EQ(rc, 0) << Slurp(tmp.Path("out"));
  ExpectGolden("search.json", Normalize(ReadJson(tmp.Path("r.json")), n), false);
  ExpectGoldenText("search.stdout.json", n(Slurp(tmp.Path("out"))));
  ExpectGolden("search.db.json", Exported(tmp, db, n), false);
}

TEST(GoldenCli, SweepPlanOfSimulatedSystems) {
  ScratchDir tmp("golden_sweep");
  const Normalizer n{tmp.dir.string()};
  const std::string db = tmp.Path("f.db");
  const std::string plan = tmp.Write("plan.yaml",
                                     "name: golden\n"
                                     "systems:\n"
                                     "  - {name: h200-8b, hardware: h200, gpus: 1, sim: {model: llama-3.1-8b}}\n"
                                     "  - {name: h100-70b-tp4, hardware: h100-sxm, gpus: 4,\n"
                                     "     sim: {model: llama-3.1-70b, tp: 4, precision: fp8}}\n"
                                     "workloads:\n"
                                     "  - {name: chat, dataset: random, input_len: 256, output_len: 32}\n"
                                     "  - {name: long, dataset: random, input_len: 1024, output_len: 16}\n"
                                     "load:\n"
                                     "  concurrency: [1, 4]\n"
                                     "  prompts_per_concurrency: 4\n");
  const int rc = Frontier("sweep " + plan + " --db " + db, tmp.Path("out"), tmp.Path("err"));
  ASSERT_EQ(rc, 0) << Slurp(tmp.Path("out"));
  ExpectGolden("sweep.db.json", Exported(tmp, db, n), false);
}

// `frontier serve --profile fixed` on a free loopback port, stopped at the end.
struct FixedServe {
  pid_t pid = -1;
  int port = -1;
  FixedServe() {
    const std::string bin = testing_util::TestPath("FRONTIER_BIN");  // before the fork: a missing one fails here
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid = ::fork();
    if (pid == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::close(fds[1]);
      ::execl(bin.c_str(), bin.c_str(), "serve", "--profile", "fixed", "--port", "0", "--ttft-ms", "2", "--itl-ms",
              "1", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    FILE* out = ::fdopen(fds[0], "r");
    char line[1024];
    std::smatch m;
    const std::string first = std::fgets(line, sizeof line, out) != nullptr ? line : "";
    if (std::regex_search(first, m, std::regex(R"(listening on http://127\.0\.0\.1:(\d+))"))) port = std::stoi(m[1]);
    std::fclose(out);
  }
  ~FixedServe() {
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    int st = 0;
    ::waitpid(pid, &st, 0);
  }
};

TEST(GoldenCli, BenchAgainstServeFixed) {
  ScratchDir tmp("golden_bench");
  FixedServe serve;
  ASSERT_GT(serve.port, 0) << "frontier serve did not say its port";
  const Normalizer n{tmp.dir.string(), serve.port};
  const std::string db = tmp.Path("f.db");
  const int rc = Frontier("bench --base-url http://127.0.0.1:" + std::to_string(serve.port) +
                              " --model fixed --num-prompts 8 --warmup 1 --max-concurrency 2 --input-len 16"
                              " --output-len 8 --seed 3 --num-gpus 2 --no-progress --result-json " +
                              tmp.Path("r.json") + " --db " + db,
                          tmp.Path("out"), tmp.Path("err"));
  ASSERT_EQ(rc, 0) << Slurp(tmp.Path("out"));
  ExpectGolden("bench.json", Normalize(ReadJson(tmp.Path("r.json")), n), true);
  ExpectGolden("bench.db.json", Exported(tmp, db, n), true);
}

}  // namespace
}  // namespace frontier
