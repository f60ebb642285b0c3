// bench merge's checks on forged shard files (loadgen/shard.h): every field of
// a .shard.json and of each record is within its bound, ids are complete and
// the clock offsets plausible; each error names the file, line and field.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "loadgen/shard.h"
#include "tests/util/scratch.h"

namespace frontier::loadgen {
namespace {

using nlohmann::json;

json Rec(int64_t id) {
  const int64_t t = 1000 * id;
  return {{"id", id},          {"ok", true},         {"scheduled_ns", t},    {"sent_ns", t + 10},
          {"first_token_ns", t + 500}, {"end_ns", t + 900}, {"prompt_tokens", 10}, {"output_tokens", 2},
          {"events", json::array({json::array({t + 500, 1}), json::array({t + 900, 1})})}};
}

json Meta(int64_t index) {
  return {{"shard_index", index},
          {"shard_count", 2},
          {"host", "h"},
          {"clock_offset_ns", index == 0 ? 0 : 1500},
          {"clock_offset_bound_ns", index == 0 ? 0 : 300},
          {"schedule", {{"num_prompts", 4}}},
          {"run", {{"num_gpus", 1}, {"model", "m"}}}};
}

class MergeForged : public ::testing::Test {
 protected:
  void Write(int shard, const std::vector<json>& recs, const json& meta) {
    const std::string path = Path(shard);
    std::ofstream out(path);
    for (const auto& r : recs) out << r.dump() << "\n";
    std::ofstream(ShardMetaPath(path)) << meta.dump();
  }
  std::string Path(int shard) const { return (tmp_.dir / ("s" + std::to_string(shard) + ".jsonl")).string(); }
  std::string Merge() {
    auto m = MergeShards({Path(0), Path(1)});
    return m.ok() ? std::string("merged ") + std::to_string(m->run.requests.size()) : m.status().message();
  }
  void Good() {
    Write(0, {Rec(0), Rec(2)}, Meta(0));
    Write(1, {Rec(3), Rec(1)}, Meta(1));
  }
  testing_util::ScratchDir tmp_{"merge_forged"};
};

TEST_F(MergeForged, ACompleteHonestSetMerges) {
  Good();
  EXPECT_EQ(Merge(), "merged 4");
}

TEST_F(MergeForged, TokensAndTimesOutsideTheirBoundsAreNamedByFileLineAndField) {
  Good();
  json r = Rec(1);
  r["output_tokens"] = -5;
  Write(1, {r, Rec(3)}, Meta(1));
  EXPECT_EQ(Merge(), Path(1) + ":1: request record: output_tokens must be an integer in [0, 2147483647], got -5");
  r = Rec(1);
  r["end_ns"] = INT64_MAX;
  Write(1, {Rec(3), r}, Meta(1));
  EXPECT_NE(Merge().find(Path(1) + ":2: request record: end_ns must be an integer in [-1, "), std::string::npos);
  r = Rec(1);
  r["end_ns"] = 20;
  r["first_token_ns"] = -1;
  Write(1, {r, Rec(3)}, Meta(1));
  EXPECT_EQ(Merge(), Path(1) + ":1: request 1: end_ns 20 is before sent_ns 1010");
  r = Rec(1);
  r["sent_ns"] = "later";
  Write(1, {r, Rec(3)}, Meta(1));
  EXPECT_NE(Merge().find(Path(1) + ":1: request record: sent_ns must be an integer"), std::string::npos);
}

TEST_F(MergeForged, AMissingRequestIsNamed) {
  Good();
  Write(0, {Rec(2)}, Meta(0));
  EXPECT_EQ(Merge(), Path(0) + ": request 0 is missing (shard 0 of 2 issues ids 0, 2, ... in order; its records "
                               "end at 2)");
  Write(0, {Rec(0), Rec(2), Rec(4)}, Meta(0));
  EXPECT_EQ(Merge(), Path(0) + ":3: request 4: the id is outside the schedule's 4 requests (ids 0..3)");
}

TEST_F(MergeForged, ImplausibleOffsetsAreRefused) {
  Good();
  json m = Meta(1);
  m["clock_offset_bound_ns"] = 1e300;
  Write(1, {Rec(1), Rec(3)}, m);
  EXPECT_NE(Merge().find(ShardMetaPath(Path(1)) + ": clock_offset_bound_ns must be an integer in [0, 3600000000000]"),
            std::string::npos)
      << Merge();
  m = Meta(1);
  m["clock_offset_ns"] = int64_t{7'400'000'000'000'000};
  Write(1, {Rec(1), Rec(3)}, m);
  EXPECT_NE(Merge().find("clock_offset_ns must be an integer in [-3600000000000, 3600000000000]"), std::string::npos);
  m = Meta(0);
  m["clock_offset_ns"] = 5;
  Write(0, {Rec(0), Rec(2)}, m);
  Write(1, {Rec(1), Rec(3)}, Meta(1));
  EXPECT_NE(Merge().find("shard 0 is the reference clock"), std::string::npos);
}

TEST_F(MergeForged, ATooLargeDescriptionIsNotCalledMissing) {
  Good();
  json m = Meta(1);
  m["pad"] = std::string(2 << 20, 'x');
  Write(1, {Rec(1), Rec(3)}, m);
  const std::string msg = Merge();
  EXPECT_EQ(msg.find("is missing"), std::string::npos) << msg;
  EXPECT_NE(msg.find(ShardMetaPath(Path(1)) + ": larger than"), std::string::npos) << msg;
  // A count of a billion is refused before anything is sized by it.
  m = Meta(1);
  m["shard_count"] = 1'000'000'000;
  Write(1, {Rec(1), Rec(3)}, m);
  EXPECT_NE(Merge().find("shard_count must be an integer in [1, 1000000], got 1000000000"), std::string::npos);
}

// The cap is shared out as C / k, the first C % k shards one more; together
// they hold exactly the whole cap.
TEST(ShareLoad, SharesTheCapAndRefusesWhatShardsCannotSplit) {
  int64_t total = 0;
  for (int64_t i = 0; i < 4; ++i) {
    workload::LoadOptions load;
    load.max_concurrency = 10;
    ASSERT_TRUE(ShareLoad(ShardSpec{i, 4, "--shard"}, &load).ok());
    EXPECT_EQ(*load.max_concurrency, i < 2 ? 3 : 2);
    EXPECT_EQ(load.shard_index, i);
    EXPECT_EQ(load.shard_count, 4);
    total += *load.max_concurrency;
  }
  EXPECT_EQ(total, 10);
  workload::LoadOptions small;
  small.max_concurrency = 3;
  EXPECT_EQ(ShareLoad(ShardSpec{0, 4, "--shard"}, &small).message(),
            "--max-concurrency 3 is less than the 4 shards: each needs at least 1");
  workload::LoadOptions warm;
  warm.warmup = 1;
  EXPECT_NE(ShareLoad(ShardSpec{0, 2, "--shard"}, &warm).message().find("--warmup with --shard"), std::string::npos);
}

}  // namespace
}  // namespace frontier::loadgen
