// `frontier bench --db`, `frontier simulate --db` and `frontier db export` /
// `db import` through the binary: what each stores, with known counts, a
// database that cannot be written refused before anything runs, and a
// sweep's run carrying the same provenance keys as a bench run's.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "store/records.h"
#include "store/store.h"
#include "testing/scripted_server.h"
#include "tests/store/store_cli_util.h"
#include "util/scratch.h"

namespace frontier {
namespace {

namespace fs = std::filesystem;
using testing_store::Frontier;
using testing_store::Quote;

// A server whose every request takes 1 ms to its first token and streams 4
// one-token events 1 ms apart.
std::unique_ptr<testing::ScriptedServer> FourTokenServer() {
  testing::ScriptedServer::Options o;
  o.script = [](const testing::RequestInfo&) {
    testing::Script s;
    s.ttft = s.interval = kNanosPerMilli;
    s.events = 4;
    return s;
  };
  auto s = testing::ScriptedServer::Start(o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

std::string BenchArgs(const testing::ScriptedServer& server, int prompts, int concurrency) {
  return "bench --no-progress --base-url " + server.base_url() + " --model m --input-len 16 --output-len 4 " +
         "--num-prompts " + std::to_string(prompts) + " --max-concurrency " + std::to_string(concurrency) +
         " --num-gpus 2";
}

TEST(BenchDb, EachInvocationStoresItsPointWithCountsRowsSeriesAndVerdict) {
  auto server = FourTokenServer();
  ASSERT_NE(server, nullptr);
  testing_util::ScratchDir tmp("verb_db_bench");
  const std::string db = tmp.Path("r.db");
  auto [rc, out] = Frontier(BenchArgs(*server, 12, 3) + " --slo ttft_p99:60000 --db " + Quote(db) +
                            " --run-label nightly");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("created results database"), std::string::npos) << out;
  auto [rc2, out2] = Frontier(BenchArgs(*server, 5, 1) + " --db " + Quote(db));
  ASSERT_EQ(rc2, 0) << out2;

  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto runs = (*s)->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].sweep, "nightly");
  EXPECT_EQ((*runs)[1].sweep, "bench");  // --run-label's default
  for (const auto& r : *runs) {
    EXPECT_EQ(r.source, store::Source::kMeasured);
    EXPECT_EQ(r.system, server->base_url());
    EXPECT_EQ(r.config.at("gpus"), "2");
    EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_NE(r.provenance.at("command_line").find("--db"), std::string::npos);
  }
  auto points = (*s)->ListPoints(0);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u);
  const struct {
    int64_t prompts;
    double concurrency;
    bool judged;
  } want[] = {{12, 3, true}, {5, 1, false}};
  for (size_t i = 0; i < 2; ++i) {
    const store::PointRecord& p = (*points)[i];
    SCOPED_TRACE(p.key);
    EXPECT_EQ(p.run_id, (*runs)[i].id);
    EXPECT_EQ(p.source, store::Source::kMeasured);
    EXPECT_EQ(p.key, "16/4|concurrency=" + std::to_string(static_cast<int>(want[i].concurrency)) + "|rep=0");
    EXPECT_EQ(p.load_kind, store::LoadKind::kConcurrency);
    EXPECT_EQ(p.load_value, want[i].concurrency);
    EXPECT_EQ(p.num_gpus, 2);
    EXPECT_EQ(p.metrics.completed, want[i].prompts);
    EXPECT_EQ(p.metrics.failed, 0);
    EXPECT_EQ(p.metrics.total_input_tokens, want[i].prompts * 16);
    EXPECT_EQ(p.metrics.total_output_tokens, want[i].prompts * 4);
    EXPECT_DOUBLE_EQ(p.metrics.output_throughput_per_gpu, p.metrics.output_throughput / 2);
    EXPECT_LE(p.metrics.max_concurrent_requests, want[i].concurrency);
    EXPECT_EQ(p.settings.at("num_prompts"), std::to_string(want[i].prompts));
    EXPECT_EQ(p.settings.at("input_len"), "16");
    auto summary = nlohmann::json::parse(p.summary_json);
    EXPECT_EQ(summary["completed"], want[i].prompts);
    auto verdict = store::ParseVerdict(p.verdict_json);
    ASSERT_TRUE(verdict.ok());
    EXPECT_EQ(verdict->judged, want[i].judged);
    if (want[i].judged) {
      EXPECT_TRUE(verdict->valid) << p.verdict_json;  // 1 ms TTFTs against 60 s
    }
    auto rows = (*s)->ListRequests(p.id);
    ASSERT_TRUE(rows.ok());
    ASSERT_EQ(rows->size(), static_cast<size_t>(want[i].prompts));
    for (const auto& r : *rows) {
      EXPECT_TRUE(r.ok);
      EXPECT_EQ(r.output_tokens, 4);
      EXPECT_EQ(r.events, 4);
      EXPECT_LT(r.sent_ns, r.first_token_ns);
      EXPECT_LE(r.first_token_ns, r.end_ns);
    }
    auto series = (*s)->GetPointSeries(p.id);
    ASSERT_TRUE(series.ok());
    ASSERT_FALSE(series->timeslices_json.empty());
    int64_t completed = 0;
    const nlohmann::json timeslices = nlohmann::json::parse(series->timeslices_json);
    for (const auto& v : timeslices["windows"]["completed"]) completed += v.get<int64_t>();
    EXPECT_EQ(completed, want[i].prompts);
  }
}

// A server that answers every request with HTTP 500: nothing completes, so no
// point is stored and the run is marked broken with the reasons and counts.
TEST(BenchDb, ARunWhereNoRequestCompletedIsStoredBrokenWithItsReasons) {
  testing::ScriptedServer::Options o;
  o.script = [](const testing::RequestInfo&) {
    testing::Script s;
    s.fault = testing::Fault::kHttpError;
    s.http_status = 500;
    return s;
  };
  auto server = testing::ScriptedServer::Start(o);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  testing_util::ScratchDir tmp("verb_db_none");
  const std::string db = tmp.Path("r.db");
  auto [rc, out] = Frontier(BenchArgs(**server, 3, 1) + " --db " + Quote(db));
  EXPECT_EQ(rc, 1) << out;  // docs/bench.md: 1 when no request succeeded
  EXPECT_EQ((*server)->requests(), 3) << out;
  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok()) << s.status().ToString() << "\n" << out;
  auto runs = (*s)->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u) << out;
  EXPECT_EQ(runs->front().status.ToString(), "broken: no request completed (3 http_status)") << out;
  EXPECT_EQ(testing_store::StoredPoints(db), 0);
}

TEST(BenchDb, AMissingFolderIsAnErrorBeforeAnyRequestIsSent) {
  auto server = FourTokenServer();
  ASSERT_NE(server, nullptr);
  testing_util::ScratchDir tmp("verb_db_missing");
  const std::string db = tmp.Path("no/such/folder/r.db");
  auto [rc, out] = Frontier(BenchArgs(*server, 4, 1) + " --db " + Quote(db));
  EXPECT_NE(rc, 0) << out;
  EXPECT_NE(out.find("frontier bench: "), std::string::npos) << out;
  EXPECT_NE(out.find(db), std::string::npos) << out;
  EXPECT_EQ(server->requests(), 0);
  EXPECT_FALSE(fs::exists(db));
}

TEST(BenchDb, AReadOnlyDatabaseIsAnErrorBeforeAnyRequestIsSent) {
  auto server = FourTokenServer();
  ASSERT_NE(server, nullptr);
  testing_util::ScratchDir tmp("verb_db_readonly");
  const std::string dir = tmp.dir.string(), db = dir + "/r.db";
  {
    auto s = store::OpenStore(db, store::OpenMode::kCreate);
    ASSERT_TRUE(s.ok());
  }
  fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                           fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  // Permission bits do not bind root: the command runs as nobody then (through
  // setpriv, as the other read-only tests do, which also works where the
  // checkout sits in a folder only its owner can enter).
  const std::string prefix = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  auto [rc, out] = testing::RunCommand(prefix + testing_store::Binary() + " " + BenchArgs(*server, 4, 1) + " --db " + Quote(db));
  fs::permissions(dir, fs::perms::owner_all);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("is read-only; this command writes to it"), std::string::npos) << out;
  EXPECT_EQ(server->requests(), 0);
  EXPECT_EQ(testing_store::StoredPoints(db), 0);
}

TEST(BenchDb, FlagsThatDoNotFitAreUsageErrors) {
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"bench --model m --run-label x", "frontier bench: --run-label names the run stored in --db: give --db too"},
           {"bench --model m --db x.db --run-label ''", "frontier bench: --run-label must not be empty"},
           {"simulate --model llama-3.1-8b --hardware h100 --db x.db --best-deployment --gpus 8 --concurrency 1",
            "frontier simulate: --db stores simulated points; --best-deployment compares layouts without storing "
            "them"}}) {
    auto [rc, out] = Frontier(args);
    EXPECT_EQ(rc, 2) << args;
    EXPECT_EQ(out, message + "\n") << args;
  }
}

// A run stored by `frontier sweep` carries the provenance keys of one stored by
// `frontier bench --db`, plus the plan's own two, so a query over runs reads
// the same keys whatever stored them.
TEST(BenchDb, ASweepRunCarriesTheProvenanceKeysOfABenchRunPlusItsPlans) {
  auto server = FourTokenServer();
  ASSERT_NE(server, nullptr);
  testing_util::ScratchDir tmp("verb_db_provenance");
  const std::string dir = tmp.dir.string(), db = dir + "/r.db", plan = dir + "/plan.yaml";
  std::ofstream(plan) << R"(name: nightly
systems:
  - {name: h100, hardware: h100, gpus: 1, sim: {model: llama-3.1-8b}}
workloads:
  - {name: w, input_len: 64, output_len: 8}
load:
  concurrency: [2]
  prompts_per_concurrency: 4
)";
  auto [rc_b, out_b] = Frontier(BenchArgs(*server, 4, 1) + " --db " + Quote(db));
  ASSERT_EQ(rc_b, 0) << out_b;
  auto [rc_s, out_s] = Frontier("sweep " + Quote(plan) + " --db " + Quote(db) + " -q");
  ASSERT_EQ(rc_s, 0) << out_s;

  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto runs = (*s)->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  const store::RunInfo& bench = (*runs)[0];
  const store::RunInfo& sweep = (*runs)[1];
  ASSERT_EQ(bench.sweep, "bench");
  ASSERT_EQ(sweep.sweep, "nightly");
  auto keys = [](const std::map<std::string, std::string>& m) {
    std::set<std::string> k;
    for (const auto& [key, value] : m) k.insert(key);
    return k;
  };
  const std::set<std::string> want = {"command_line", "frontier_version", "host", "started_utc"};
  EXPECT_EQ(keys(bench.provenance), want);
  std::set<std::string> sweep_keys = keys(sweep.provenance);
  EXPECT_EQ(sweep.provenance.at("plan_file"), plan);
  EXPECT_EQ(sweep.provenance.at("planned_points"), "1");
  sweep_keys.erase("plan_file");
  sweep_keys.erase("planned_points");
  EXPECT_EQ(sweep_keys, want);
  // The same machine and build wrote both.
  EXPECT_EQ(sweep.provenance.at("host"), bench.provenance.at("host"));
  EXPECT_EQ(sweep.provenance.at("frontier_version"), bench.provenance.at("frontier_version"));
  EXPECT_NE(sweep.provenance.at("command_line").find("sweep"), std::string::npos);
}

TEST(SimulateDb, ASweepStoresEachConcurrencyAsASimulatedPoint) {
  testing_util::ScratchDir tmp("verb_db_simulate");
  const std::string dir = tmp.dir.string(), db = dir + "/r.db", result = dir + "/p.json";
  auto [rc, out] = Frontier("simulate --model llama-3.1-8b --hardware h100 --tp 1 --input-len 512 --output-len 128 "
                            "--num-prompts 16 --concurrency 2,8 --result-json " + Quote(result) + " --db " + Quote(db));
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("stored 2 point(s) as run simulate/"), std::string::npos) << out;
  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok());
  auto runs = (*s)->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  const store::RunInfo& run = runs->front();
  EXPECT_EQ(run.sweep, "simulate");
  EXPECT_EQ(run.source, store::Source::kSimulated);
  EXPECT_EQ(run.system, "simulated llama-3.1-8b on 1x h100-sxm");  // the catalog's name for h100
  EXPECT_EQ(run.config.at("hardware"), "h100-sxm");
  EXPECT_EQ(run.config.at("tp"), "1");
  auto points = (*s)->ListPoints(run.id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u);
  const int concurrency[] = {2, 8};
  for (size_t i = 0; i < 2; ++i) {
    const store::PointRecord& p = (*points)[i];
    SCOPED_TRACE(p.key);
    EXPECT_EQ(p.source, store::Source::kSimulated);
    EXPECT_EQ(p.key, "512/128|concurrency=" + std::to_string(concurrency[i]) + "|rep=0");
    EXPECT_EQ(p.verdict_json, "");
    // The point as its result file has it: the same counts and throughput.
    std::ifstream in(dir + "/p.c" + std::to_string(concurrency[i]) + ".json");
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(p.metrics.completed, j["completed"].get<int64_t>());
    EXPECT_EQ(p.metrics.total_output_tokens, j["total_output_tokens"].get<int64_t>());
    EXPECT_EQ(p.metrics.total_output_tokens, p.metrics.completed * 128);
    EXPECT_DOUBLE_EQ(p.metrics.output_throughput, j["output_throughput"].get<double>());
    EXPECT_EQ(p.settings.at("max_concurrency"), std::to_string(concurrency[i]));
    EXPECT_EQ(p.settings.at("num_prompts"), std::to_string(j["num_prompts"].get<int64_t>()));
    auto rows = (*s)->ListRequests(p.id);
    ASSERT_TRUE(rows.ok());
    EXPECT_EQ(static_cast<int64_t>(rows->size()), p.metrics.completed);
  }
  // More concurrency, more throughput, less interactivity: the simulated points are a frontier.
  EXPECT_GT((*points)[1].metrics.output_throughput, (*points)[0].metrics.output_throughput);
  EXPECT_LT((*points)[1].metrics.interactivity, (*points)[0].metrics.interactivity);
}

TEST(SimulateDb, AScenarioPointKeepsItsVerdictThroughExportAndImport) {
  testing_util::ScratchDir tmp("verb_db_roundtrip");
  const std::string dir = tmp.dir.string(), db = dir + "/a.db", copy = dir + "/b.db", file = dir + "/e.json";
  auto [rc, out] = Frontier("simulate --model llama-3.1-8b --hardware h100 --tp 1 --input-len 256 --output-len 64 "
                            "--num-prompts 40 --max-concurrency 4 --slo ttft_p99:1 --db " + Quote(db));
  ASSERT_EQ(rc, 0) << out;
  auto [rc_e, out_e] = Frontier("db export --db " + Quote(db) + " -o " + Quote(file));
  ASSERT_EQ(rc_e, 0) << out_e;
  auto [rc_i, out_i] = Frontier("db import --db " + Quote(copy) + " " + Quote(file));
  ASSERT_EQ(rc_i, 0) << out_i;
  auto a = store::OpenStore(db, store::OpenMode::kReadOnly), b = store::OpenStore(copy, store::OpenMode::kReadOnly);
  ASSERT_TRUE(a.ok() && b.ok());
  auto pa = (*a)->ListPoints(0), pb = (*b)->ListPoints(0);
  ASSERT_TRUE(pa.ok() && pb.ok());
  ASSERT_EQ(pa->size(), 1u);
  ASSERT_EQ(pb->size(), 1u);
  // A TTFT p99 under 1 ms cannot be met by a 256-token prefill: INVALID, kept as it was stored.
  auto verdict = store::ParseVerdict(pb->front().verdict_json);
  ASSERT_TRUE(verdict.ok());
  EXPECT_TRUE(verdict->judged);
  EXPECT_FALSE(verdict->valid);
  EXPECT_EQ(pb->front().verdict_json, pa->front().verdict_json);
  EXPECT_EQ(pb->front().source, store::Source::kSimulated);
  auto sa = (*a)->GetPointSeries(pa->front().id), sb = (*b)->GetPointSeries(pb->front().id);
  ASSERT_TRUE(sa.ok() && sb.ok());
  EXPECT_FALSE(sa->server_metrics_json.empty());  // the simulated engine's counters
  EXPECT_EQ(sb->server_metrics_json, sa->server_metrics_json);
  EXPECT_EQ(sb->timeslices_json, sa->timeslices_json);
  // The CSV says it in words.
  auto [rc_c, csv] = Frontier("db export --format csv --db " + Quote(copy));
  ASSERT_EQ(rc_c, 0) << csv;
  EXPECT_NE(csv.find(",INVALID,"), std::string::npos) << csv;
}

}  // namespace
}  // namespace frontier
