// Load from several processes: three `frontier bench --shard` ranks started by
// mpirun against `frontier serve --profile fixed`, merged with `frontier
// bench merge`, against one process running the same schedule.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "metrics/result_json.h"
#include "metrics/summary.h"
#include "tests/cli_test_util.h"
#include "util/free_port.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier {
namespace {

namespace fs = std::filesystem;

constexpr double kTtftMs = 100, kItlMs = 20;
constexpr int kOutputLen = 16, kPrompts = 24, kShards = 3;

using testing_util::FreePort;

std::map<int64_t, RequestRecord> ReadRecords(const std::vector<std::string>& files) {
  std::map<int64_t, RequestRecord> out;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string line;
    while (std::getline(in, line)) {
      auto r = metrics::RequestRecordFromJson(nlohmann::json::parse(line));
      EXPECT_TRUE(r.ok()) << f;
      if (r.ok()) {
        EXPECT_TRUE(out.emplace(r->id, *r).second) << "request " << r->id << " twice";
      }
    }
  }
  return out;
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// What `frontier serve --profile fixed` guarantees a client, whatever the
// load (serve/fixed_timing.h, serve/server.cc): a request is admitted at the
// start of the loop pass that read it, so after the client sent it; its event
// j (one token each) is due kTtftMs + j x kItlMs after admission, counted
// from admission and not from the previous event, and the server writes it at
// or after that time; the client reads it after it was written. So event j
// arrives at least kTtftMs + j x kItlMs after the send. A late event makes
// the next gap shorter, so single gaps (ITL, TPOT) have no such floor. (The
// server's own write times would be a closer truth, but `frontier serve`
// writes no record of them: its traces, ServeOptions::record_traces, are
// kept in process only.)
void ExpectServerSchedule(const RequestRecord& r) {
  ASSERT_TRUE(r.ok) << r.id << ": " << r.failure << " " << r.failure_detail;
  ASSERT_EQ(r.events.size(), static_cast<size_t>(kOutputLen)) << r.id;
  const auto at_least = [](int64_t j) {
    return static_cast<Nanos>((kTtftMs + static_cast<double>(j) * kItlMs) * 1e6);
  };
  for (size_t j = 0; j < r.events.size(); ++j) {
    EXPECT_EQ(r.events[j].tokens, 1) << r.id << " event " << j;
    EXPECT_GE(r.events[j].t_ns - r.sent_ns, at_least(static_cast<int64_t>(j))) << r.id << " event " << j;
    if (j > 0) {
      EXPECT_GE(r.events[j].t_ns, r.events[j - 1].t_ns) << r.id << " event " << j;
    }
  }
  EXPECT_EQ(r.first_token_ns, r.events.front().t_ns) << r.id;
  EXPECT_GE(r.end_ns, r.events.back().t_ns) << r.id;
  EXPECT_GE(r.end_ns - r.sent_ns, at_least(kOutputLen - 1)) << r.id;
}

class ShardMerge : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::RunCommand("command -v mpirun >/dev/null").first != 0)
      GTEST_SKIP() << "mpirun is not installed (scripts/bootstrap installs openmpi-bin)";
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    auto [rc, out] = testing::RunCommand("mpirun --allow-run-as-root --oversubscribe -np 2 true");
    if (rc != 0) GTEST_SKIP() << "mpirun cannot start processes on this machine: " << out;
    port_ = FreePort();
    const std::string bin = testing_util::TestPath("FRONTIER_BIN");
    server_ = ::fork();
    if (server_ == 0) {
      const int devnull = ::open("/dev/null", O_WRONLY);
      ::dup2(devnull, 1);
      ::dup2(devnull, 2);
      const std::string p = std::to_string(port_), ttft = std::to_string(kTtftMs), itl = std::to_string(kItlMs);
      ::execl(bin.c_str(), bin.c_str(), "serve", "--profile", "fixed", "--port", p.c_str(), "--ttft-ms",
              ttft.c_str(), "--itl-ms", itl.c_str(), nullptr);
      ::_exit(127);
    }
    for (int i = 0; i < 500 && testing::RunCommand("curl -sf http://127.0.0.1:" + std::to_string(port_) +
                                                   "/health >/dev/null").first != 0;
         ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  void TearDown() override {
    if (server_ > 0) {
      ::kill(server_, SIGTERM);
      ::waitpid(server_, nullptr, 0);
    }
  }
  std::string Workload() const {
    return " --base-url http://127.0.0.1:" + std::to_string(port_) + " --model fixed --num-prompts " +
           std::to_string(kPrompts) + " --request-rate 20 --seed 7 --input-len 32 --output-len " +
           std::to_string(kOutputLen) + " --no-progress";
  }
  int port_ = 0;
  pid_t server_ = 0;
};

TEST_F(ShardMerge, MergedShardsAgreeWithOneProcessOnTheSameSchedule) {
  testing_util::ScratchDir tmp("shard_merge");
  const std::string d = tmp.dir.string(), bin = testing_util::TestPath("FRONTIER_BIN");
  auto [src, sout] = testing::RunCommand(bin + " bench" + Workload() + " --requests-jsonl " + d +
                                         "/single.jsonl --result-json " + d + "/single.json");
  ASSERT_EQ(src, 0) << sout;
  const std::string rendezvous = "127.0.0.1:" + std::to_string(FreePort());
  auto [mrc, mout] = testing::RunCommand(
      "mpirun --allow-run-as-root --oversubscribe -np " + std::to_string(kShards) + " sh -c '" + bin + " bench" +
      Workload() + " --rendezvous " + rendezvous + " --requests-jsonl " + d + "/shard.$OMPI_COMM_WORLD_RANK.jsonl'");
  ASSERT_EQ(mrc, 0) << mout;
  EXPECT_NE(mout.find("shard 2/3 (OMPI_COMM_WORLD_RANK/SIZE)"), std::string::npos) << mout;
  std::vector<std::string> shards;
  for (int i = 0; i < kShards; ++i) shards.push_back(d + "/shard." + std::to_string(i) + ".jsonl");
  auto [rc, out] = testing::RunCommand(bin + " bench merge " + shards[0] + " " + shards[1] + " " + shards[2] +
                                       " --result-json " + d + "/merged.json");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("Shards: 3"), std::string::npos) << out;

  // The union of the shards is the single process's schedule: the same ids,
  // each planned at the same time (the plan is made before anything is sent).
  const auto one = ReadRecords({d + "/single.jsonl"});
  const auto all = ReadRecords(shards);
  ASSERT_EQ(one.size(), static_cast<size_t>(kPrompts));
  ASSERT_EQ(all.size(), static_cast<size_t>(kPrompts));
  for (const auto& [id, r] : all) {
    ASSERT_TRUE(one.count(id)) << id;
    EXPECT_EQ(r.scheduled_ns, one.at(id).scheduled_ns) << id;
    EXPECT_EQ(r.output_tokens, one.at(id).output_tokens) << id;
  }
  for (const auto* records : {&one, &all}) {
    for (const auto& [id, r] : *records) ExpectServerSchedule(r);
  }

  const nlohmann::json s = ReadJson(d + "/single.json"), m = ReadJson(d + "/merged.json");
  EXPECT_EQ(m["completed"], kPrompts);
  EXPECT_EQ(m["completed"], s["completed"]);
  EXPECT_EQ(m["total_output_tokens"], kPrompts * kOutputLen);
  EXPECT_EQ(m["total_output_tokens"], s["total_output_tokens"]);
  EXPECT_EQ(m["total_input_tokens"], s["total_input_tokens"]);
  EXPECT_EQ(m["num_prompts"], kPrompts);

  // On one host the true offset is 0: each measured offset lies within its stated bound.
  ASSERT_EQ(m["shards"].size(), static_cast<size_t>(kShards));
  double bound = 0;
  for (const auto& sh : m["shards"]) {
    EXPECT_LE(std::fabs(sh["clock_offset_ms"].get<double>()), sh["clock_offset_bound_ms"].get<double>()) << sh;
    bound = std::max(bound, sh["clock_offset_bound_ms"].get<double>());
  }
  EXPECT_EQ(m["clock_offset_bound_ms"].get<double>(), bound);

  // The merge is a union: every statistic of the merged result is the one the
  // summary (metrics::Summarize, bench merge's defaults) gives for the union
  // of the shards' records as written, to the last bit but rounding.
  RunResult joined;
  for (const auto& [id, r] : all) joined.requests.push_back(r);
  const nlohmann::json want = metrics::SummaryToJson(metrics::Summarize(joined, metrics::SummaryOptions{}));
  for (const char* metric : {"ttft", "tpot", "itl", "e2el"}) {
    const auto got = metrics::LatencyStats(m, metric), expected = metrics::LatencyStats(want, metric);
    ASSERT_EQ(got.size(), expected.size()) << metric << ": " << m.dump();
    ASSERT_FALSE(expected.empty()) << metric;
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(got[i].first, expected[i].first) << metric;
      EXPECT_DOUBLE_EQ(got[i].second, expected[i].second) << got[i].first << "_" << metric << "_ms";
    }
  }

  // Every request's TTFT and E2EL are at least the server's schedule, so is
  // every statistic of them but the spread, in both results.
  const std::map<std::string, double> floor_ms = {{"ttft", kTtftMs}, {"e2el", kTtftMs + (kOutputLen - 1) * kItlMs}};
  for (const auto* result : {&s, &m}) {
    for (const auto& [metric, ms] : floor_ms) {
      for (const auto& [stat, value] : metrics::LatencyStats(*result, metric)) {
        if (stat != "std") {
          EXPECT_GE(value, ms) << stat << "_" << metric << "_ms";
        }
      }
    }
  }
}

TEST_F(ShardMerge, AnIncompleteOrMixedSetIsRefused) {
  testing_util::ScratchDir tmp("shard_refuse");
  const std::string d = tmp.dir.string(), bin = testing_util::TestPath("FRONTIER_BIN");
  const std::string rendezvous = "127.0.0.1:" + std::to_string(FreePort());
  auto [mrc, mout] = testing::RunCommand("mpirun --allow-run-as-root --oversubscribe -np 2 sh -c '" + bin + " bench" +
                                         Workload() + " --rendezvous " + rendezvous + " --requests-jsonl " + d +
                                         "/s.$OMPI_COMM_WORLD_RANK.jsonl'");
  ASSERT_EQ(mrc, 0) << mout;
  auto [rc, out] = testing::RunCommand(bin + " bench merge " + d + "/s.1.jsonl");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("shard(s) 0 of 2 missing"), std::string::npos) << out;
  std::tie(rc, out) = testing::RunCommand(bin + " bench merge " + d + "/s.1.jsonl " + d + "/s.1.jsonl");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("shard 1 given twice"), std::string::npos) << out;
  // --shard without a JSONL to merge later is a usage error.
  std::tie(rc, out) = testing::RunCommand(bin + " bench" + Workload() + " --shard 0/2");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("--shard needs --requests-jsonl"), std::string::npos) << out;
  std::tie(rc, out) = testing::RunCommand(bin + " bench" + Workload() + " --shard 2/2 --requests-jsonl x.jsonl");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("the shard index must be an integer in 0..1, got '2'"), std::string::npos) << out;
}

// Shard files written by hand: a record ending at INT64_MAX wrapped the time
// slices' window count (exit 70, vector::_M_default_append) and a shard_count
// of 1e9 built a 7.7 GB list of missing shards. Both are exit 2 naming the
// file, the line and the field, before anything is sized by them.
TEST(ShardMergeInput, TimesAndCountsOutOfRangeNameTheFileAndField) {
  testing_util::ScratchDir tmp("shard_hostile");
  const std::string d = tmp.dir.string(), bin = testing_util::TestPath("FRONTIER_BIN");
  auto write = [&](const std::string& end_ns, const std::string& count) {
    std::ofstream(d + "/s.jsonl") << R"({"id": 0, "ok": true, "scheduled_ns": 0, "sent_ns": 0, )"
                                     R"("first_token_ns": 5, "end_ns": 9, "output_tokens": 1, "events": [[9, 1]]})"
                                  << "\n"
                                  << R"({"id": 1, "ok": true, "scheduled_ns": 10, "sent_ns": 10, )"
                                     R"("first_token_ns": 15, "end_ns": )"
                                  << end_ns << R"(, "output_tokens": 1, "events": [[19, 1]]})" << "\n";
    std::ofstream(d + "/s.jsonl.shard.json")
        << R"({"shard_index": 0, "shard_count": )" << count
        << R"(, "clock_offset_ns": 0, "clock_offset_bound_ns": 0, "schedule": {}, "run": {}})";
  };
  write("19", "1");
  auto [rc, out] = testing::RunCommand(bin + " bench merge " + d + "/s.jsonl");
  EXPECT_EQ(rc, 0) << out;
  write("9223372036854775807", "1");
  std::tie(rc, out) = testing::RunCommand(bin + " bench merge " + d + "/s.jsonl");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find(d + "/s.jsonl:2: request record: end_ns must be an integer in [-1, 1000000000000000000], got "
                         "9223372036854775807"),
            std::string::npos)
      << out;
  write("1e300", "1");
  std::tie(rc, out) = testing::RunCommand(bin + " bench merge " + d + "/s.jsonl");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("s.jsonl:2: request record: end_ns must be an integer in [-1, 1000000000000000000], got 1e+300"),
            std::string::npos)
      << out;
  write("19", "1000000000");
  std::tie(rc, out) = testing::RunCommand(bin + " bench merge " + d + "/s.jsonl");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("s.jsonl.shard.json: shard_count must be an integer in [1, 1000000], got 1000000000"),
            std::string::npos)
      << out;
  write("19", "1000000");
  std::tie(rc, out) = testing::RunCommand(bin + " bench merge " + d + "/s.jsonl");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("shard(s) 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... (999999 in all) of 1000000 missing"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace frontier
