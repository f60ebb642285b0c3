// How sure a simulated point is, end to end through the binary: `simulate`,
// `search` and `sweep` store each simulated point with the band the band table
// gives its deployment (sim/fit/band.h, computed here directly), write it into the
// result JSON, print it, and `report` shows it in its band column.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "sim/engine/config.h"
#include "sim/fit/band.h"
#include "store/store.h"
#include "sweep/sweep_test_util.h"

namespace frontier {
namespace {

using namespace testing_cli;

// The band of the deployment `spec` describes, as the band table gives it.
PredictionBand Expected(const sim::SimSpec& spec) {
  Result<sim::SimConfig> config = sim::ResolveSimConfig(spec);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  Result<sim::BandTable> table = sim::BandTable::LoadFrom();
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return table->For(sim::KeyOf(*config));
}

sim::SimSpec Spec(const std::string& model, const std::string& hardware) {
  sim::SimSpec s;
  s.model = model;
  s.hardware = hardware;
  return s;
}

std::vector<store::PointRecord> Points(const std::string& db) {
  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  auto p = (*s)->ListPoints(0);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return *p;
}

TEST(BandCli, SimulateStoresPrintsAndWritesTheBandOfItsClassAndReportShowsIt) {
  Tmp tmp("band_cli");
  const std::string db = tmp.Path("f.db"), result = tmp.Path("r.json");
  const PredictionBand want = Expected(Spec("llama-3.1-8b", "h200"));
  ASSERT_GT(want.points, 0);
  auto [rc, out] = Frontier("simulate --model llama-3.1-8b --hardware h200 --input-len 256 --output-len 32 "
                            "--num-prompts 16 --db " + db + " --result-json " + result);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("prediction band: " + want.DescribeWithFlags() + "\n"), std::string::npos) << out;

  const std::vector<store::PointRecord> points = Points(db);
  ASSERT_EQ(points.size(), 1u);
  ASSERT_TRUE(points[0].band.has_value());
  EXPECT_EQ(*points[0].band, want);

  std::ifstream f(result);
  const nlohmann::json j = nlohmann::json::parse(f);
  EXPECT_DOUBLE_EQ(j["band_half_width"].get<double>(), want.half_width);
  EXPECT_EQ(j["band_points"], want.points);
  EXPECT_EQ(j["band_basis"], want.basis);
  EXPECT_EQ(j["band_flags"], nlohmann::json(want.flags));

  std::tie(rc, out) = Frontier("report --db " + db);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(" band"), std::string::npos) << out;
  EXPECT_NE(out.find(want.Short()), std::string::npos) << out;
}

TEST(BandCli, ASimulationOfAValidationGpuIsFlagged) {
  Tmp tmp("band_cli");
  const std::string db = tmp.Path("f.db");
  const PredictionBand want = Expected(Spec("llama-3.1-8b", "b200"));
  ASSERT_FALSE(want.flags.empty());
  EXPECT_EQ(want.flags.front(), "GPU never calibrated (b200)");
  auto [rc, out] = Frontier("simulate --model llama-3.1-8b --hardware b200 --input-len 256 --output-len 32 "
                            "--num-prompts 16 --concurrency 1,4 --db " + db);
  ASSERT_EQ(rc, 0) << out;
  const std::vector<store::PointRecord> points = Points(db);
  ASSERT_EQ(points.size(), 2u);  // a concurrency sweep: every point carries it
  for (const auto& p : points) {
    ASSERT_TRUE(p.band.has_value()) << p.key;
    EXPECT_EQ(*p.band, want) << p.key;
  }
  std::tie(rc, out) = Frontier("report --db " + db);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("extrapolates: " + want.FlagsText()), std::string::npos) << out;
}

TEST(BandCli, SearchTrialsCarryTheBandAndTheAnswerSaysIt) {
  Tmp tmp("band_cli");
  const std::string db = tmp.Path("f.db");
  const PredictionBand want = Expected(Spec("llama-3.1-8b", "h100-sxm"));
  auto [rc, out] = Frontier("search --model llama-3.1-8b --hardware h100-sxm --input-len 256 --output-len 64 "
                            "--num-prompts 200 --slo ttft_p99:450 tpot_p99:40 --min-interactivity 25 --db " + db);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("prediction band: " + want.Describe() + ": "), std::string::npos) << out;
  const std::vector<store::PointRecord> points = Points(db);
  ASSERT_FALSE(points.empty());
  for (const auto& p : points) {
    ASSERT_TRUE(p.band.has_value()) << p.key;
    EXPECT_EQ(*p.band, want) << p.key;
  }
}

TEST(BandCli, ASweepStoresTheBandOfEachSimulatedSystem) {
  Tmp tmp("band_cli");
  const std::string db = tmp.Path("f.db"), plan = tmp.Path("plan.yaml");
  std::ofstream(plan) << "name: band\n"
                         "systems:\n"
                         "  - {name: h200-8b, hardware: h200, gpus: 1, sim: {model: llama-3.1-8b}}\n"
                         "  - {name: mi355x-8b, hardware: mi355x, gpus: 1, sim: {model: llama-3.1-8b}}\n"
                         "workloads:\n"
                         "  - {name: w, dataset: random, input_len: 256, output_len: 32}\n"
                         "load:\n"
                         "  concurrency: [1, 4]\n"
                         "  prompts_per_concurrency: 4\n";
  auto [rc, out] = Frontier("sweep " + plan + " --db " + db);
  ASSERT_EQ(rc, 0) << out;
  const PredictionBand h200 = Expected(Spec("llama-3.1-8b", "h200"));
  const PredictionBand mi355x = Expected(Spec("llama-3.1-8b", "mi355x"));
  EXPECT_NE(out.find("band " + h200.Short()), std::string::npos) << out;
  auto s = store::OpenStore(db, store::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok());
  auto runs = (*s)->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  for (const auto& run : *runs) {
    auto points = (*s)->ListPoints(run.id);
    ASSERT_TRUE(points.ok());
    ASSERT_EQ(points->size(), 2u);
    for (const auto& p : *points) {
      ASSERT_TRUE(p.band.has_value()) << run.system << " " << p.key;
      EXPECT_EQ(*p.band, run.system == "h200-8b" ? h200 : mi355x) << run.system;
    }
  }
}

}  // namespace
}  // namespace frontier
