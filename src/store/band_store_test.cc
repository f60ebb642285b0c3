// A simulated point's prediction band in the results database: stored and read
// back as it was given, absent for a measured point, carried by export and
// import, and an older database (schema 5, before the band columns) still opens
// and reads.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "store/import_export.h"
#include "store/schema.h"
#include "store/sqlite_store.h"
#include "store/store.h"
#include "util/scratch.h"

namespace frontier::store {
namespace {

PointRecord Point(int64_t run_id, double conc, Source source) {
  PointRecord p;
  p.run_id = run_id;
  p.workload = "1k1k";
  p.load_value = conc;
  p.key = PointKey(p.workload, p.load_kind, conc, 0);
  p.source = source;
  p.num_gpus = 8;
  p.metrics.completed = 10;
  p.metrics.total_token_throughput_per_gpu = 1000;
  p.metrics.interactivity = 50;
  return p;
}

const PredictionBand kBand{0.137, 23, "MLA / attn-dp+ep / nvidia",
                           {"GPU never calibrated (b200)", "fp4 never calibrated on nvidia"}};

int64_t NewRun(Store& s, Source source) {
  RunInfo run;
  run.sweep = "band";
  run.system = SourceName(source);
  run.source = source;
  return s.CreateRun(run).value().id;
}

TEST(BandStore, ASimulatedPointKeepsItsBandAndAMeasuredOneHasNone) {
  testing_util::ScratchDir tmp("band_store");
  auto s = OpenStore(tmp.Path("band.db"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_GE((*s)->SchemaVersion(), kBandVersion);
  PointRecord sim = Point(NewRun(**s, Source::kSimulated), 4, Source::kSimulated);
  sim.band = kBand;
  ASSERT_TRUE((*s)->AddPoint(sim, {}).ok());
  PointRecord none = sim;
  none.key = PointKey(none.workload, none.load_kind, 8, 0);
  none.band = PredictionBand{0, 0, "", {"tp never calibrated on amd"}};  // a band that rests on no result
  ASSERT_TRUE((*s)->AddPoint(none, {}).ok());
  ASSERT_TRUE((*s)->AddPoint(Point(NewRun(**s, Source::kMeasured), 4, Source::kMeasured), {}).ok());

  auto points = (*s)->ListPoints(0);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 3u);
  ASSERT_TRUE((*points)[0].band.has_value());
  EXPECT_EQ(*(*points)[0].band, kBand);
  EXPECT_DOUBLE_EQ((*points)[0].band->half_width, 0.137);
  ASSERT_TRUE((*points)[1].band.has_value());
  EXPECT_EQ((*points)[1].band->points, 0);
  EXPECT_EQ((*points)[1].band->flags, std::vector<std::string>{"tp never calibrated on amd"});
  EXPECT_FALSE((*points)[2].band.has_value());
}

TEST(BandStore, ABandOutOfItsBoundsIsRefusedNamingTheField) {
  testing_util::ScratchDir tmp("band_store");
  auto s = OpenStore(tmp.Path("bounds.db"));
  ASSERT_TRUE(s.ok());
  PointRecord p = Point(NewRun(**s, Source::kSimulated), 4, Source::kSimulated);
  p.band = kBand;
  p.band->half_width = -0.5;
  const Status st = (*s)->AddPoint(p, {}).status();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("band_half_width"), std::string::npos) << st.message();
}

TEST(BandStore, ExportAndImportCarryTheBand) {
  testing_util::ScratchDir tmp("band_store");
  auto a = OpenStore(tmp.Path("a.db"));
  ASSERT_TRUE(a.ok());
  PointRecord sim = Point(NewRun(**a, Source::kSimulated), 4, Source::kSimulated);
  sim.band = kBand;
  ASSERT_TRUE((*a)->AddPoint(sim, {}).ok());
  ASSERT_TRUE((*a)->AddPoint(Point(NewRun(**a, Source::kMeasured), 4, Source::kMeasured), {}).ok());
  Result<std::string> exported = ExportJson(**a);
  ASSERT_TRUE(exported.ok()) << exported.status().ToString();
  const nlohmann::json j = nlohmann::json::parse(*exported);
  const nlohmann::json& first = j["runs"][0]["points"][0];
  EXPECT_DOUBLE_EQ(first["band_half_width"].get<double>(), 0.137);
  EXPECT_EQ(first["band_points"], 23);
  EXPECT_EQ(first["band_basis"], "MLA / attn-dp+ep / nvidia");
  EXPECT_EQ(first["band_flags"].size(), 2u);
  EXPECT_FALSE(j["runs"][1]["points"][0].contains("band_half_width"));

  auto b = OpenStore(tmp.Path("b.db"));
  ASSERT_TRUE(b.ok());
  auto imported = ImportText(**b, *exported, "export.json", ImportOptions{});
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  auto points = (*b)->ListPoints(0);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u);
  ASSERT_TRUE((*points)[0].band.has_value());
  EXPECT_EQ(*(*points)[0].band, kBand);
  EXPECT_FALSE((*points)[1].band.has_value());
}

TEST(BandStore, ADatabaseOfSchema5OpensReadsAndIsMigrated) {
  testing_util::ScratchDir tmp("band_store");
  const std::string path = tmp.Path("v5.db");
  {
    auto v5 = OpenSqliteStore(path, OpenMode::kCreate, 5);
    ASSERT_TRUE(v5.ok()) << v5.status().ToString();
    ASSERT_EQ((*v5)->SchemaVersion(), 5);
    PointRecord p = Point(NewRun(**v5, Source::kSimulated), 4, Source::kSimulated);
    p.band = kBand;  // a schema-5 database has nowhere to keep it
    ASSERT_TRUE((*v5)->AddPoint(p, {}).ok());
  }
  {
    auto ro = OpenStore(path, OpenMode::kReadOnly);
    ASSERT_TRUE(ro.ok()) << ro.status().ToString();
    EXPECT_EQ((*ro)->SchemaVersion(), 5);
    auto points = (*ro)->ListPoints(0);
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    ASSERT_EQ(points->size(), 1u);
    EXPECT_DOUBLE_EQ(points->front().metrics.total_token_throughput_per_gpu, 1000);
    EXPECT_FALSE(points->front().band.has_value());
  }
  auto rw = OpenStore(path);
  ASSERT_TRUE(rw.ok()) << rw.status().ToString();
  EXPECT_EQ((*rw)->SchemaVersion(), kSchemaVersion);
  auto runs = (*rw)->ListRuns();
  ASSERT_TRUE(runs.ok());
  PointRecord p = Point(runs->front().id, 8, Source::kSimulated);
  p.band = kBand;
  ASSERT_TRUE((*rw)->AddPoint(p, {}).ok());
  auto points = (*rw)->ListPoints(0);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 2u);
  EXPECT_FALSE((*points)[0].band.has_value());  // stored before the columns existed
  ASSERT_TRUE((*points)[1].band.has_value());
  EXPECT_EQ(*(*points)[1].band, kBand);
}

}  // namespace
}  // namespace frontier::store
