// Runs the frontier binary: a sweep SIGKILLed mid-way and resumed, plan
// errors, import, report and compare exit codes.
#include <gtest/gtest.h>

#include <signal.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "store/store.h"
#include "testing/scripted_server.h"
#include "sweep_test_util.h"
#include "util/test_paths.h"

namespace frontier {
namespace {

using namespace testing_cli;

const char* kPlan = R"(name: killme
systems:
  - {name: h200, hardware: h200, gpus: 8, sim: {model: llama-3.1-70b, tp: 8, precision: fp8}}
workloads:
  - {name: w, input_len: 512, output_len: 512}
load:
  concurrency: [64, 96, 128, 160, 192, 224, 256]
  prompts_per_concurrency: 4
repetitions: 2
)";
constexpr int kTotal = 14;

TEST(SweepCli, ResumeAfterSigkillNeitherLosesNorDuplicatesAPoint) {
  Tmp tmp("kill");
  const std::string plan = tmp.Write("plan.yaml", kPlan);
  const std::string db = (tmp.dir / "f.db").string();

  // Kill it once a few points are stored, while more are to come.
  const int st = SweepAndKill(plan, db, 3);
  ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << "the sweep ended before it could be killed";
  const int64_t before = StoredPoints(db);
  ASSERT_GE(before, 3);
  ASSERT_LT(before, kTotal) << "the sweep finished before the kill; the test proves nothing";
  std::set<std::pair<int64_t, std::string>> kept;
  {
    auto s = store::OpenStore(db);
    auto stored = (*s)->ListPoints(0);
    for (const auto& p : *stored) kept.insert({p.id, p.key});
  }

  auto [rc, out] = Frontier("sweep " + plan + " --db " + db + " --resume --quiet");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(std::to_string(kTotal - before) + " points run, " + std::to_string(before) +
                     " already stored, 0 failed, of " + std::to_string(kTotal)),
            std::string::npos)
      << out;
  auto s = store::OpenStore(db);
  auto points = (*s)->ListPoints(0);
  ASSERT_EQ(points->size(), static_cast<size_t>(kTotal));
  std::set<std::string> keys;
  for (const auto& p : *points) {
    EXPECT_TRUE(keys.insert(p.key).second) << "duplicate " << p.key;
    EXPECT_GT(p.metrics.completed, 0);
  }
  // The points stored before the kill are the same rows, untouched.
  for (const auto& k : kept) {
    bool found = false;
    for (const auto& p : *points) found |= (p.id == k.first && p.key == k.second);
    EXPECT_TRUE(found) << k.second;
  }
  EXPECT_EQ((*s)->ListRuns()->size(), 1u);  // resumed the same run
}

// SIGTERM while the sweep is still reading its plan (a FIFO the test writes
// only after the signal, so the moment is certain): the sweep runs nothing
// and ends with 130, like a sweep stopped between points, never 0 with
// "0 failed" and never killed by the signal.
TEST(SweepCli, ASigtermBeforeTheFirstPointEndsWith130) {
  Tmp tmp("sigterm_early");
  const std::string plan = (tmp.dir / "plan.fifo").string();
  ASSERT_EQ(::mkfifo(plan.c_str(), 0600), 0);
  const std::string db = (tmp.dir / "f.db").string();
  const std::string log = (tmp.dir / "out.txt").string();
  const std::string bin = Binary();  // before fork: an unset FRONTIER_BIN fails the test, not the child
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execl(bin.c_str(), bin.c_str(), "sweep", plan.c_str(), "--db", db.c_str(), nullptr);
    ::_exit(127);
  }
  ASSERT_GT(pid, 0);
  // Opening the FIFO for writing returns once the sweep has opened it to read its plan.
  const int w = ::open(plan.c_str(), O_WRONLY);
  ASSERT_GE(w, 0);
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  const std::string text = kPlan;
  ASSERT_EQ(::write(w, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(w);
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  const std::string out = Slurp(log);
  ASSERT_TRUE(WIFEXITED(st)) << "ended by signal " << (WIFSIGNALED(st) ? WTERMSIG(st) : 0) << ":\n" << out;
  EXPECT_EQ(WEXITSTATUS(st), 130) << out;
  EXPECT_NE(out.find("interrupted"), std::string::npos) << out;
  EXPECT_NE(out.find("--resume` continues"), std::string::npos) << out;
  EXPECT_LE(StoredPoints(db), 0);
}

TEST(SweepCli, PlanErrorsNameFileLineAndField) {
  Tmp tmp("plan");
  std::string text = kPlan;
  text.replace(text.find("gpus: 8"), 7, "gpus: lots");
  const std::string plan = tmp.Write("bad.yaml", text);
  auto [rc, out] = Frontier("sweep " + plan + " --db " + (tmp.dir / "x.db").string());
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(out, "frontier sweep: " + plan + ":3: systems[0].gpus: must be an integer in [1, 100000], got 'lots'\n");
}

// The example search plan through the binary: one search per system, each
// run holding its trials and its answer; --resume runs none again; a bad
// search setting is a usage error naming the plan's field.
TEST(SweepCli, TheExampleSearchPlanStoresEachSystemsAnswerAndResumes) {
  Tmp tmp("search");
  const std::string plan = testing_util::TestPath("FRONTIER_SOURCE_DIR") + "/data/plans/search-interactive.yaml";
  const std::string db = (tmp.dir / "s.db").string();
  auto [rc, out] = Frontier("sweep " + plan + " --db " + db);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("sweep search-interactive: 2 searches run, 0 already finished, 0 failed, of 2"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("trial  elapsed"), std::string::npos) << out;
  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok());
  auto runs = (*s)->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  for (const auto& run : *runs) {
    EXPECT_NE(run.search_json.find("\"max_valid_qps\":"), std::string::npos) << run.search_json;
    EXPECT_NE(run.search_json.find("\"stop_reason\":\"converged"), std::string::npos) << run.search_json;
    auto points = (*s)->ListPoints(run.id);
    ASSERT_TRUE(points.ok());
    EXPECT_GE(points->size(), 3u);
    for (const auto& p : *points) EXPECT_FALSE(p.verdict_json.empty()) << p.key;
  }
  auto [rc2, again] = Frontier("sweep " + plan + " --db " + db + " --resume");
  EXPECT_EQ(rc2, 0) << again;
  EXPECT_NE(again.find("0 searches run, 2 already finished"), std::string::npos) << again;

  std::string text = Slurp(plan);
  text.replace(text.find("max_trials: 16"), 14, "max_trials: 0 ");
  const std::string bad = tmp.Write("bad.yaml", text);
  auto [rc3, err] = Frontier("sweep " + bad + " --db " + db);
  EXPECT_EQ(rc3, 2);
  EXPECT_NE(err.find(bad + ":28: search.max_trials: must be in [1, 10000], got 0"), std::string::npos) << err;
}

TEST(SweepCli, ImportReportAndCompareThroughTheBinary) {
  Tmp tmp("flow");
  const std::string db = (tmp.dir / "f.db").string();
  const std::string data = testing_util::TestPath("FRONTIER_SOURCE_DIR") + "/src/store/testdata/";
  auto [rc, out] = Frontier("db import " + data + "agg_llama70b_fp8.json --db " + db);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("as run 1 (h200-vllm-fp8)"), std::string::npos) << out;
  std::tie(rc, out) = Frontier("db import " + data + "vllm_bench_serve.json --gpus 2 --hardware h100 --db " + db);
  ASSERT_EQ(rc, 0) << out;
  std::tie(rc, out) = Frontier("db ls --db " + db);
  EXPECT_NE(out.find("3 runs, 6 points"), std::string::npos) << out;
  std::tie(rc, out) = Frontier("db export --format csv --db " + db);
  EXPECT_EQ(rc, 0);
  EXPECT_NE(out.find("mi325x-sglang-fp8"), std::string::npos);

  const std::string html = (tmp.dir / "r.html").string();
  std::tie(rc, out) = Frontier("report --db " + db + " -o " + html + " --price mi325x=2.5");
  ASSERT_EQ(rc, 0) << out;
  std::ifstream in(html);
  std::stringstream ss;
  ss << in.rdbuf();
  for (const char* name : {"h200-vllm-fp8", "mi325x-sglang-fp8", "vllm:meta-llama/Llama-3.1-8B-Instruct"})
    EXPECT_NE(ss.str().find(name), std::string::npos) << name;
  EXPECT_NE(out.find("--price"), std::string::npos);  // the price source is shown

  // Same run against itself: no regression (exit 0); unknown run: exit 2.
  std::tie(rc, out) = Frontier("compare --baseline 1 --candidate 1 --db " + db);
  EXPECT_EQ(rc, 0) << out;
  std::tie(rc, out) = Frontier("compare --baseline 1 --candidate 42 --db " + db);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("--candidate: run 42 is not in"), std::string::npos) << out;
  std::tie(rc, out) = Frontier("report --db " + db + " --price h200");
  EXPECT_EQ(rc, 2);
}

TEST(SweepCli, CompareFlagsASlowerSystemAndPassesARepeatOfTheSame) {
  Tmp tmp("compare");
  const std::string plan = tmp.Write("plan.yaml", R"(name: nightly
systems:
  - {name: fast, hardware: h200, gpus: 8, sim: {model: llama-3.1-70b, tp: 8, precision: fp8}}
  - {name: slow, hardware: mi325x, gpus: 8, sim: {model: llama-3.1-70b, tp: 8, precision: fp8}}
workloads:
  - {name: w, input_len: 256, output_len: 64, range_ratio: 0.5}
load:
  concurrency: [4, 16]
  prompts_per_concurrency: 4
repetitions: 3
)");
  const std::string db = (tmp.dir / "f.db").string();
  ASSERT_EQ(Frontier("sweep " + plan + " --db " + db + " -q").first, 0);
  ASSERT_EQ(Frontier("sweep " + plan + " --db " + db + " -q").first, 0);  // a second night
  // The same system on two nights (the simulator is deterministic): no regression.
  auto [rc, out] = Frontier("compare --baseline nightly/fast~1 --candidate nightly/fast --db " + db);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("0 regression(s)"), std::string::npos) << out;
  // The slower hardware as the candidate: throughput per GPU regresses at every load.
  std::tie(rc, out) = Frontier("compare --baseline nightly/fast --candidate nightly/slow --db " + db);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("REGRESSION"), std::string::npos) << out;
  EXPECT_NE(out.find("measured (n=3/3)"), std::string::npos) << out;
  std::tie(rc, out) = Frontier("compare --baseline nightly/fast~2 --candidate 1 --db " + db);
  EXPECT_EQ(rc, 2) << out;
}

TEST(SweepCli, LaunchedServerLiveSimulatorAndABrokenSystemInOneSweep) {
  Tmp tmp("launch");
  const int port = FreePort();
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const std::string plan = tmp.Write("plan.yaml", R"(name: mixed
systems:
  - name: launched
    hardware: h100
    model: fixed
    base_url: )" + url + R"(
    launch: {command: ")" + testing_util::TestPath("FRONTIER_BIN") + " serve --profile fixed --port " +
      std::to_string(port) + R"( --ttft-ms 5 --itl-ms 1", health: ")" + url + R"(/health", timeout_s: 20, stop_timeout_s: 5}
  - name: down
    hardware: h100
    model: nothing
    base_url: http://127.0.0.1:9
  - {name: live, hardware: h100, gpus: 1, live: true, sim: {model: llama-3.1-8b}}
workloads:
  - {name: tiny, input_len: 32, output_len: 8}
load:
  concurrency: [1, 4]
  prompts_per_concurrency: 4
)");
  const std::string db = (tmp.dir / "f.db").string();
  auto [rc, out] = Frontier("sweep " + plan + " --db " + db);
  EXPECT_EQ(rc, 1) << out;  // one broken system
  EXPECT_NE(out.find("4 points run, 0 already stored, 2 failed, of 6"), std::string::npos) << out;
  EXPECT_NE(out.find("broken: down: point tiny|concurrency=1|rep=0 failed twice"), std::string::npos) << out;
  auto s = store::OpenStore(db);
  auto runs = (*s)->ListRuns();
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_TRUE((*runs)[0].status.ok());
  EXPECT_EQ((*runs)[1].status.state, store::SystemStatus::State::kBroken);
  EXPECT_EQ((*runs)[1].status.ToString().rfind("broken: ", 0), 0u);
  EXPECT_TRUE((*runs)[2].status.ok());
  for (int i : {0, 2}) {
    auto pts = (*s)->ListPoints((*runs)[i].id);
    ASSERT_EQ(pts->size(), 2u) << (*runs)[i].system;
    for (const auto& p : *pts) {
      EXPECT_EQ(p.source, store::Source::kMeasured);
      EXPECT_EQ(p.metrics.completed, static_cast<int64_t>(4 * p.load_value));
      EXPECT_EQ(p.metrics.total_output_tokens, 8 * p.metrics.completed);
    }
  }
  // The fixed-timing server's first token comes 5 ms after admission: never sooner.
  auto launched = (*s)->ListPoints((*runs)[0].id);
  EXPECT_GT((*launched)[0].metrics.ttft_ms.median, 4.0);
  EXPECT_TRUE(fs::exists(db + ".logs/launched.log"));
  // The launched server was stopped with the sweep: nothing listens on its port.
  EXPECT_FALSE(Listening(port));
}

TEST(SweepCli, PlanBackendsSpeakTheEnginesNativeApis) {
  // One scripted server answers all three dialects (testing/native_wire.h):
  // first token after 5 ms, then 6 more events 1 ms apart; SGLang's every
  // third event carries 2 tokens, TGI and Triton send one per event.
  testing::ScriptedServer::Options so;
  so.script = [](const testing::RequestInfo&) {
    testing::Script s;
    s.ttft = 5 * kNanosPerMilli;
    s.interval = kNanosPerMilli;
    s.events = 7;
    s.tokens_pattern = {1, 1, 2};
    return s;
  };
  auto server = testing::ScriptedServer::Start(so);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  Tmp tmp("backends");
  const std::string url = (*server)->base_url();
  const std::string plan = tmp.Write("plan.yaml", R"(name: native
systems:
  - {name: sgl, model: m, base_url: ")" + url + R"(", backend: sglang}
  - {name: tgi, model: m, base_url: ")" + url + R"(", backend: tgi}
  - {name: trt, model: ensemble, base_url: ")" + url + R"(", backend: trtllm}
workloads:
  - {name: tiny, input_len: 32, output_len: 16}
load:
  concurrency: [2]
  prompts_per_concurrency: 3
)");
  const std::string db = (tmp.dir / "f.db").string();
  auto [rc, out] = Frontier("sweep " + plan + " --db " + db);
  ASSERT_EQ(rc, 0) << out;
  auto s = store::OpenStore(db);
  auto runs = (*s)->ListRuns();
  ASSERT_EQ(runs->size(), 3u);
  const std::map<std::string, int64_t> tokens_per_request = {{"sgl", 9}, {"tgi", 7}, {"trt", 7}};
  for (const auto& run : *runs) {
    auto pts = (*s)->ListPoints(run.id);
    ASSERT_EQ(pts->size(), 1u) << run.system;
    EXPECT_EQ((*pts)[0].metrics.completed, 8) << run.system;  // at least 4x the concurrency
    EXPECT_EQ((*pts)[0].metrics.total_output_tokens, 8 * tokens_per_request.at(run.system)) << run.system;
    EXPECT_GE((*pts)[0].metrics.ttft_ms.median, 5.0) << run.system;
  }
  // TGI and Triton were sent text, SGLang token ids.
  std::set<std::string> text_paths, id_paths;
  for (const auto& r : (*server)->Served()) {
    const std::string& b = r.request.body;
    (b.find("\"input_ids\"") != std::string::npos ? id_paths : text_paths).insert(r.request.path);
  }
  EXPECT_EQ(id_paths, std::set<std::string>({"/generate"}));
  EXPECT_EQ(text_paths, std::set<std::string>({"/generate_stream", "/v2/models/ensemble/generate_stream"}));
}

}  // namespace
}  // namespace frontier
