// A sweep's file datasets are read once (dataset_cache.h) and every point's
// requests are those the point read on its own would get.
#include "sweep/dataset_cache.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "store/store.h"
#include "sweep/plan.h"
#include "sweep/runner.h"
#include "sweep/sessions.h"
#include "util/scratch.h"
#include "workload/request_spec_test_util.h"

namespace frontier::sweep {
namespace {

using workload::DatasetKind;
using workload::DatasetOptions;
using workload::RequestSpec;

using workload::testing::ExpectSameSpecs;

// `n` JSONL lines of different lengths.
std::string Jsonl(int n) {
  std::string text;
  for (int i = 0; i < n; ++i)
    text += "{\"prompt\": \"prompt " + std::to_string(i) + " " + std::string(static_cast<size_t>(i % 37) * 5, 'x') +
            "\", \"output_len\": " + std::to_string(8 + i % 29) + "}\n";
  return text;
}

// `n` ShareGPT conversations of different lengths, all usable.
std::string ShareGpt(int n) {
  std::string text = "[";
  for (int i = 0; i < n; ++i)
    text += std::string(i > 0 ? ",\n" : "") + "{\"conversations\": [{\"from\": \"human\", \"value\": \"prompt " +
            std::to_string(i) + " " + std::string(16 + static_cast<size_t>(i % 23) * 4, 'p') +
            "\"}, {\"from\": \"gpt\", \"value\": \"" + std::string(20 + static_cast<size_t>(i % 31) * 4, 'a') +
            "\"}]}";
  return text + "]";
}

// Loads `o` through the cache and checks it against LoadDataset.
void ExpectLoads(DatasetCache& cache, const DatasetOptions& o, int64_t expect, const std::string& what) {
  Result<std::vector<RequestSpec>> got = cache.Load(o, expect);
  Result<std::vector<RequestSpec>> want = workload::LoadDataset(o);
  ASSERT_TRUE(want.ok()) << what << ": " << want.status().ToString();
  ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
  ExpectSameSpecs(*got, *want, what);
}

TEST(DatasetCache, ReadsAFileOnceUnlessAPointNeedsMoreThanItHolds) {
  testing_util::ScratchDir tmp("dataset_cache");  // the files below, removed at the end
  DatasetCache cache;
  DatasetOptions o;
  o.kind = DatasetKind::kJsonl;
  o.path = tmp.Write("p.jsonl", Jsonl(100));
  o.allow_repeat = true;
  o.num_prompts = 5;
  ExpectLoads(cache, o, 0, "5");
  EXPECT_EQ(cache.reads(), 1);
  o.num_prompts = 3;
  o.seed = 9;  // a JSONL read does not depend on the seed
  ExpectLoads(cache, o, 0, "3");
  EXPECT_EQ(cache.reads(), 1);
  o.num_prompts = 50;  // more than the 5 held: read again for 50 (twice 5 is less)
  ExpectLoads(cache, o, 0, "50");
  EXPECT_EQ(cache.reads(), 2);
  o.num_prompts = 80;  // read again for twice 50, all 100 the file holds
  ExpectLoads(cache, o, 0, "80");
  EXPECT_EQ(cache.reads(), 3);
  o.num_prompts = 1000;  // cycled through the whole file, held already
  ExpectLoads(cache, o, 0, "1000");
  o.cancel.fraction = 0.3;  // drawn per point, after the read
  o.cancel.after_tokens = 2;
  ExpectLoads(cache, o, 0, "1000 cancelled");
  EXPECT_EQ(cache.reads(), 3);

  // Told the sweep's largest count up front, one read serves every count up to it.
  DatasetCache told;
  for (int64_t n : {7, 120, 64, 300, 1}) {
    o.num_prompts = n;
    ExpectLoads(told, o, 300, "expect 300, n " + std::to_string(n));
  }
  EXPECT_EQ(told.reads(), 1);

  // ShareGPT: a read per seed (the seed picks the conversations).
  DatasetCache share;
  o.kind = DatasetKind::kShareGpt;
  o.path = tmp.Write("s.json", ShareGpt(60));
  o.cancel = {};
  for (uint64_t seed : {1u, 2u, 1u, 2u}) {
    o.seed = seed;
    for (int64_t n : {10, 40, 25}) {
      o.num_prompts = n;
      ExpectLoads(share, o, 40, "sharegpt seed " + std::to_string(seed) + " n " + std::to_string(n));
    }
  }
  EXPECT_EQ(share.reads(), 2);
  o.sharegpt_output_len = 16;  // another read: it changes which conversations are usable
  ExpectLoads(share, o, 40, "sharegpt fixed output");
  EXPECT_EQ(share.reads(), 3);

  // Generated datasets are not cached (nothing is read).
  DatasetOptions r;
  r.num_prompts = 20;
  r.random.input_len = 12;
  r.random.output_len = 4;
  ExpectLoads(share, r, 0, "random");
  EXPECT_EQ(share.reads(), 3);
}

TEST(DatasetCache, AFailedReadGivesEveryPointItsErrorOnce) {
  testing_util::ScratchDir tmp("dataset_cache");
  DatasetCache cache;
  DatasetOptions o;
  o.kind = DatasetKind::kJsonl;
  o.num_prompts = 4;
  o.path = tmp.Write("bad.jsonl", Jsonl(3) + "{\"prompt\": \"x\"}\n");
  const Status want = workload::LoadDataset(o).status();
  ASSERT_FALSE(want.ok());
  EXPECT_EQ(want.message(), o.path + ":4: field \"output_len\" must be an integer in [1, 10000000], got nothing");
  for (int64_t n : {4, 1, 8}) {
    o.num_prompts = n;
    EXPECT_EQ(cache.Load(o, 8).status().ToString(), want.ToString()) << n;
  }
  EXPECT_EQ(cache.reads(), 1);
  o.path = tmp.Path("missing.jsonl");
  EXPECT_EQ(cache.Load(o).status().ToString(), workload::LoadDataset(o).status().ToString());
  EXPECT_EQ(cache.Load(o).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(cache.reads(), 2);
}

TEST(DatasetCache, PointsOnManyThreadsShareOneRead) {
  testing_util::ScratchDir tmp("dataset_cache");
  DatasetCache cache;
  DatasetOptions o;
  o.kind = DatasetKind::kShareGpt;
  o.path = tmp.Write("s.json", ShareGpt(200));
  o.seed = 3;
  o.allow_repeat = true;
  std::vector<Result<std::vector<RequestSpec>>> got(8, Status::Ok());
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] {
      DatasetOptions mine = o;
      mine.num_prompts = 10 * static_cast<int64_t>(t + 1);
      got[t] = cache.Load(mine, 80);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(cache.reads(), 1);
  for (size_t t = 0; t < got.size(); ++t) {
    o.num_prompts = 10 * static_cast<int64_t>(t + 1);
    Result<std::vector<RequestSpec>> want = workload::LoadDataset(o);
    ASSERT_TRUE(want.ok());
    ASSERT_TRUE(got[t].ok()) << got[t].status().ToString();
    ExpectSameSpecs(*got[t], *want, "thread " + std::to_string(t));
  }
}

// A plan over a JSONL and a ShareGPT file: 2 workloads x 4 concurrencies
// (10 x c requests, plus 3 warm-up) x 2 repetitions, on a simulated H100.
const char* kPlan = R"(name: file-datasets
systems:
  - {name: h100, hardware: h100-sxm, gpus: 1, sim: {model: llama-3.1-8b}}
workloads:
  - {name: lines, dataset: jsonl, path: p.jsonl}
  - {name: chats, dataset: sharegpt, path: s.json, seed: 5}
load:
  concurrency: [1, 2, 4, 8]
  warmup: 3
repetitions: 2
)";

// What a stored point says of its requests, by key.
using PointRequestsSeen = std::map<std::string, std::tuple<int64_t, int64_t, int64_t>>;

PointRequestsSeen RunInto(const Plan& plan, const std::string& db, const SessionFactory& factory) {
  PointRequestsSeen seen;
  auto store = store::OpenStore(db);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return seen;
  Result<SweepOutcome> out = RunSweep(plan, **store, factory, SweepOptions{});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return seen;
  EXPECT_TRUE(out->broken.empty());
  auto points = (*store)->ListPoints(out->run_ids.at(0));
  EXPECT_TRUE(points.ok());
  if (!points.ok()) return seen;
  for (const store::PointRecord& p : *points)
    seen[p.key] = {p.metrics.completed, p.metrics.total_input_tokens, p.metrics.total_output_tokens};
  return seen;
}

TEST(DatasetCache, ASweepReadsEachFileOnceAndStoresThePointsOfReadingPerPoint) {
  testing_util::ScratchDir tmp("dataset_cache");
  tmp.Write("p.jsonl", Jsonl(150));  // more lines than the largest point draws (83)
  tmp.Write("s.json", ShareGpt(120));
  Result<Plan> plan = ParsePlan(kPlan, tmp.Path("plan.yaml"));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(LargestPointRequests(*plan), 83);

  // Each point's requests, drawn through one cache, are those it reads alone.
  DatasetCache direct;
  const std::vector<PointSpec> points = ExpandMatrix(*plan);
  ASSERT_EQ(points.size(), 16u);
  for (const PointSpec& p : points) {
    Result<workload::LoadOptions> load = PointLoad(*plan, p);
    ASSERT_TRUE(load.ok());
    Result<PointWorkload> alone = PointRequests(*plan, p, *load);
    Result<PointWorkload> shared = PointRequests(*plan, p, *load, nullptr, false, {}, &direct);
    ASSERT_TRUE(alone.ok() && shared.ok()) << p.key;
    EXPECT_EQ(alone->specs.size(), static_cast<size_t>(p.num_prompts + 3)) << p.key;
    ExpectSameSpecs(shared->specs, alone->specs, p.key);
  }
  EXPECT_EQ(direct.reads(), 3);  // the JSONL file once, the ShareGPT file once per repetition's seed

  // The sweep: its sessions share the factory's cache.
  SessionOptions so;
  so.datasets = std::make_shared<DatasetCache>();
  const PointRequestsSeen cached = RunInto(*plan, tmp.Path("cached.db"), DefaultSessionFactory(so));
  EXPECT_EQ(so.datasets->reads(), 3);
  // ... and the same plan with every point reading its own file stores the same requests.
  SessionFactory alone = [](const Plan& p, const SystemSpec& s) { return MakeSimSession(p, s); };
  const PointRequestsSeen uncached = RunInto(*plan, tmp.Path("uncached.db"), alone);
  ASSERT_EQ(cached.size(), 16u);
  EXPECT_EQ(cached, uncached);
  const auto& [completed, input_tokens, output_tokens] = cached.at(points.back().key);
  EXPECT_EQ(completed, 80);  // concurrency 8: 10 x 8, the warm-up not counted
  EXPECT_GT(input_tokens, 0);
  EXPECT_GT(output_tokens, 0);
}

// A malformed line stops the same point and breaks the same system with the
// same message, read once or per point.
TEST(DatasetCache, AMalformedFileBreaksTheSystemAsBefore) {
  testing_util::ScratchDir tmp("dataset_cache");
  tmp.Write("p.jsonl", Jsonl(20) + "not json\n");
  std::string text = kPlan;
  text.erase(text.find("  - {name: chats"), text.find("load:") - text.find("  - {name: chats"));
  Result<Plan> plan = ParsePlan(text, tmp.Path("plan.yaml"));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  std::vector<std::vector<std::string>> broken;
  SessionOptions so;
  so.datasets = std::make_shared<DatasetCache>();
  SessionFactory alone = [](const Plan& p, const SystemSpec& s) { return MakeSimSession(p, s); };
  for (const SessionFactory& factory : {DefaultSessionFactory(so), alone}) {
    auto store = store::OpenStore(tmp.Path("db" + std::to_string(broken.size())));
    ASSERT_TRUE(store.ok());
    Result<SweepOutcome> out = RunSweep(*plan, **store, factory, SweepOptions{});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->total, 8);
    EXPECT_EQ(out->failed, 8);
    broken.push_back(out->broken);
  }
  EXPECT_EQ(so.datasets->reads(), 1);
  ASSERT_EQ(broken[0].size(), 1u);
  EXPECT_EQ(broken[0], broken[1]);
  EXPECT_NE(broken[0][0].find("p.jsonl:21: "), std::string::npos) << broken[0][0];
}

}  // namespace
}  // namespace frontier::sweep
