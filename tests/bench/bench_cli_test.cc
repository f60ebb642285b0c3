// `frontier bench` end to end: the binary against an in-process scripted
// server; result JSON, JSONL records, exit statuses, SIGINT.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>

#include "client_test_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

extern char** environ;

namespace frontier {
namespace {

struct Proc {
  pid_t pid = -1;
};

Proc Spawn(std::vector<std::string> args, const std::string& err_path) {
  const std::string bin = testing_util::TestPath("FRONTIER_BIN");
  args.insert(args.begin(), bin);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  Proc p;
  EXPECT_EQ(posix_spawn(&p.pid, bin.c_str(), &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  return p;
}

int Wait(Proc p) {
  int st = 0;
  ::waitpid(p.pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

using testing_util::Slurp;

TEST(BenchCliTest, InvalidFlagsExit2WithOneLine) {
  testing_util::ScratchDir tmp("bench_cli");  // removed at the end, with what the runs wrote
  const std::string err = tmp.Path("err");
  for (std::vector<std::string> args :
       {std::vector<std::string>{"bench", "--model", "m", "--max-concurrency", "0"},
        {"bench", "--model", "m", "--base-url", "localhost:8000"},
        {"bench", "--model", "m", "--endpoint", "/v2/x"},
        {"bench", "--model", "m", "--goodput", "ttft"},
        {"bench", "--model", "m", "--timeslice", "-5"},
        {"bench", "--model", "m", "--dataset", "sharegpt"},
        {"bench", "--model", "m", "--endpoint", "/v1/chat/completions"},
        {"bench", "--model", "m", "--backend", "vllm"},
        {"bench", "--model", "m", "--backend", "llamacpp", "--endpoint", "/v1/completions"},
        {"bench", "--model", "m", "--endpoint", "/completion"},
        {"bench", "--model", "m", "--unknown-flag"}}) {
    EXPECT_EQ(Wait(Spawn(args, err)), 2) << args[3];
    const std::string text = Slurp(err);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
    EXPECT_EQ(text.rfind("frontier bench: ", 0), 0u) << text;
  }
}

TEST(BenchCliTest, RunWritesResultAndRecords) {
  testing_util::ScratchDir tmp("bench_cli");  // removed at the end, with what the runs wrote
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s;
    s.ttft = 20 * kMs;
    s.interval = 2 * kMs;
    s.events = 8;
    s.tokens_pattern = {1, 1, 1, 1, 3};
    return s;
  });
  const std::string result = tmp.Path("result.json"), records = tmp.Path("records.jsonl"), err = tmp.Path("err");
  int rc = Wait(Spawn({"bench", "--base-url", server->base_url(), "--model", "m", "--num-prompts", "20",
                       "--warmup", "2", "--max-concurrency", "4", "--input-len", "16", "--output-len", "8",
                       "--seed", "3", "--num-gpus", "2", "--goodput", "ttft:1000", "--result-json", result,
                       "--requests-jsonl", records},
                      err));
  ASSERT_EQ(rc, 0) << Slurp(err);
  auto j = nlohmann::json::parse(Slurp(result));
  EXPECT_EQ(j["completed"], 20);
  EXPECT_EQ(j["failed"], 0);
  EXPECT_EQ(j["total_output_tokens"], 20 * 10);  // 8 events: 1+1+1+1+3+1+1+1
  EXPECT_EQ(j["total_input_tokens"], 20 * 16);
  EXPECT_EQ(j["warmup_requests"], 2);
  EXPECT_EQ(j["max_concurrent_requests"], 4);
  EXPECT_EQ(j["max_concurrency"], 4);
  EXPECT_EQ(j["request_rate"], "inf");
  EXPECT_GT(j["mean_ttft_ms"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(j["request_goodput"].get<double>(), j["request_throughput"].get<double>());
  EXPECT_DOUBLE_EQ(j["output_throughput_per_gpu"].get<double>(), j["output_throughput"].get<double>() / 2);
  EXPECT_EQ(j["frontier"]["served_model"], "scripted-model");
  EXPECT_EQ(j["frontier"]["interrupted"], false);
  EXPECT_EQ(j["frontier"]["effective_settings"]["max_concurrency"], "4");
  EXPECT_EQ(j["frontier"]["requested_settings"]["num-prompts"], "20");
  EXPECT_NE(j["frontier"]["command_line"].get<std::string>().find("--num-prompts 20"), std::string::npos);
  // The timeslices account for every measured request and token, warm-up left out.
  const auto& windows = j["timeslices"]["windows"];
  int64_t completed = 0, tokens = 0;
  for (const auto& v : windows["completed"]) completed += v.get<int64_t>();
  for (const auto& v : windows["output_tokens"]) tokens += v.get<int64_t>();
  EXPECT_EQ(completed, 20);
  EXPECT_EQ(tokens, 20 * 10);
  EXPECT_EQ(windows["phase"].size(), windows["start_s"].size());
  EXPECT_EQ(j["frontier"]["effective_settings"]["timeslice_s"], "auto");
  std::ifstream in(records);
  std::string line;
  int n = 0, warm = 0;
  while (std::getline(in, line)) {
    auto r = nlohmann::json::parse(line);
    ++n;
    if (r["warmup"].get<bool>()) ++warm;
    EXPECT_TRUE(r["ok"].get<bool>());
    EXPECT_EQ(r["events"].size(), 8u);
  }
  EXPECT_EQ(n, 22);
  EXPECT_EQ(warm, 2);
}

TEST(BenchCliTest, SigintKeepsWhatWasMeasured) {
  testing_util::ScratchDir tmp("bench_cli");  // removed at the end, with what the runs wrote
  // Requests 0-3 finish fast; the rest stall: Ctrl-C must end the run and keep the four.
  auto server = StartServer([](const testing::RequestInfo& info) {
    const std::string id = info.Header("x-request-id");
    Script s;
    s.ttft = s.interval = kMs;
    s.events = 4;
    if (std::stoi(id.substr(id.find('-') + 1)) >= 4) {
      s.fault = Fault::kStall;
      s.fault_after = 1;
    }
    return s;
  });
  const std::string result = tmp.Path("sigint.json"), err = tmp.Path("err");
  Proc p = Spawn({"bench", "--base-url", server->base_url(), "--model", "m", "--num-prompts", "50",
                  "--max-concurrency", "4", "--input-len", "8", "--output-len", "4", "--grace", "0.2",
                  "--result-json", result},
                 err);
  // Wait until the stalled requests are in flight.
  for (int i = 0; i < 100 && server->requests() < 8; ++i) ::usleep(20000);
  ::usleep(100000);
  ::kill(p.pid, SIGINT);
  EXPECT_EQ(Wait(p), 130) << Slurp(err);
  auto j = nlohmann::json::parse(Slurp(result));
  EXPECT_EQ(j["frontier"]["interrupted"], true);
  EXPECT_EQ(j["completed"], 4);
  EXPECT_EQ(j["failures_by_reason"]["interrupted"], 4);
}

// The largest token id any generation request sent to `server` carried.
int64_t MaxPromptId(const ScriptedServer& server, size_t* requests) {
  int64_t max_id = -1;
  *requests = 0;
  for (const auto& r : server.Served()) {
    if (r.request.path != "/v1/completions") continue;
    ++*requests;
    auto body = nlohmann::json::parse(r.request.body);
    for (const auto& id : body["prompt"]) max_id = std::max<int64_t>(max_id, id.get<int64_t>());
  }
  return max_id;
}

// Two events a millisecond apart for every request.
Script TwoQuickEvents(const testing::RequestInfo&) {
  Script s;
  s.ttft = s.interval = kMs;
  s.events = 2;
  return s;
}

// A llama.cpp-like server whose /v1/models says n_vocab = `n_vocab`.
Result<std::unique_ptr<ScriptedServer>> ServerWithVocabulary(int64_t n_vocab) {
  ScriptedServer::Options so;
  so.n_vocab = n_vocab;
  so.script = TwoQuickEvents;
  return ScriptedServer::Start(so);
}

TEST(BenchCliTest, TokenIdsStayInsideTheServersVocabulary) {
  testing_util::ScratchDir tmp("bench_cli");  // removed at the end, with what the runs wrote
  // A llama.cpp-like server says n_vocab = 1504 in /v1/models: every id is below it.
  auto server = ServerWithVocabulary(1504);
  ASSERT_TRUE(server.ok());
  const std::string result = tmp.Path("vocab.json"), err = tmp.Path("err");
  ASSERT_EQ(Wait(Spawn({"bench", "--base-url", (*server)->base_url(), "--model", "m", "--num-prompts", "20",
                        "--input-len", "512", "--output-len", "2", "--result-json", result},
                       err)),
            0)
      << Slurp(err);
  size_t n = 0;
  const int64_t max_id = MaxPromptId(**server, &n);
  EXPECT_EQ(n, 20u);
  EXPECT_LT(max_id, 1504);
  EXPECT_GT(max_id, 1000);  // drawn over the whole vocabulary, not a corner of it
  auto j = nlohmann::json::parse(Slurp(result));
  EXPECT_EQ(j["frontier"]["effective_settings"]["vocab_size"], "1504");
  EXPECT_EQ(j["frontier"]["effective_settings"]["vocab_size_source"], "server /v1/models meta.n_vocab");

  // A server without the figure: --vocab-size, and the result says so.
  auto plain = StartServer(TwoQuickEvents);
  ASSERT_EQ(Wait(Spawn({"bench", "--base-url", plain->base_url(), "--model", "m", "--num-prompts", "20",
                        "--input-len", "512", "--output-len", "2", "--vocab-size", "300", "--result-json", result},
                       err)),
            0)
      << Slurp(err);
  EXPECT_LT(MaxPromptId(*plain, &n), 300);
  j = nlohmann::json::parse(Slurp(result));
  EXPECT_EQ(j["frontier"]["effective_settings"]["vocab_size_source"], "--vocab-size");
  EXPECT_EQ(Wait(Spawn({"bench", "--model", "m", "--vocab-size", "1"}, err)), 2);
  EXPECT_NE(Slurp(err).find("--vocab-size"), std::string::npos);
}

// A sweep's server points draw token ids as bench does: below the server's
// n_vocab, else below the system's vocab_size (before, always below 32000).
TEST(BenchCliTest, ASweepsTokenIdsStayInsideTheServersVocabularyAsBenchsDo) {
  testing_util::ScratchDir tmp("bench_cli_sweep_vocab");
  auto server = ServerWithVocabulary(1504);
  ASSERT_TRUE(server.ok());
  auto plain = StartServer(TwoQuickEvents);
  const std::string plan = tmp.Write(
      "plan.yaml", "name: v\nsystems:\n  - {name: s, model: m, base_url: \"" + (*server)->base_url() +
                       "\"}\n  - {name: p, model: m, base_url: \"" + plain->base_url() +
                       "\", vocab_size: 300}\nworkloads:\n  - {name: w, input_len: 512, output_len: 2}\n"
                       "load:\n  concurrency: [2]\n  num_prompts: 20\n");
  const std::string err = tmp.Path("err");
  ASSERT_EQ(Wait(Spawn({"sweep", plan, "--db", tmp.Path("v.db")}, err)), 0) << Slurp(err);
  size_t n = 0;
  const int64_t max_id = MaxPromptId(**server, &n);
  EXPECT_EQ(n, 20u);
  EXPECT_LT(max_id, 1504);
  EXPECT_GT(max_id, 1000);
  EXPECT_LT(MaxPromptId(*plain, &n), 300);
  EXPECT_EQ(n, 20u);
}

TEST(BenchCliTest, WorkersMergeIntoOneResult) {
  testing_util::ScratchDir tmp("bench_cli");  // removed at the end, with what the runs wrote
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s;
    s.ttft = 2 * kMs;
    s.interval = kMs;
    s.events = 5;
    return s;
  });
  const std::string result = tmp.Path("workers.json"), records = tmp.Path("workers.jsonl"), err = tmp.Path("err");
  ASSERT_EQ(Wait(Spawn({"bench", "--base-url", server->base_url(), "--model", "m", "--num-prompts", "60",
                        "--max-concurrency", "8", "--input-len", "8", "--output-len", "5", "--workers", "3",
                        "--result-json", result, "--requests-jsonl", records},
                       err)),
            0)
      << Slurp(err);
  auto j = nlohmann::json::parse(Slurp(result));
  EXPECT_EQ(j["completed"], 60);
  EXPECT_EQ(j["total_output_tokens"], 60 * 5);
  EXPECT_LE(j["max_concurrent_requests"].get<int>(), 8);
  EXPECT_EQ(j["frontier"]["effective_settings"]["workers"], "3");
  std::ifstream in(records);
  std::string line;
  std::set<int64_t> ids;
  while (std::getline(in, line)) ids.insert(nlohmann::json::parse(line)["id"].get<int64_t>());
  EXPECT_EQ(ids.size(), 60u);  // one record per request, none twice
  EXPECT_EQ(Wait(Spawn({"bench", "--model", "m", "--workers", "0"}, err)), 2);
  EXPECT_NE(Slurp(err).find("--workers"), std::string::npos);
}

}  // namespace
}  // namespace frontier
