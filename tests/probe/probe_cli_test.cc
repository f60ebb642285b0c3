// probe_cli_test.cc: `frontier probe` and `frontier calibrate --probe` end to
// end through the binary, on the fake backend (fake_backend.h): the stored
// run, the JSON file and the GPU override the calibration writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli_test_util.h"
#include "util/test_paths.h"

namespace {

namespace fs = std::filesystem;
using frontier::testing::RunCommand;

TEST(ProbeCli, FakeProbeStoredThenCalibratedIntoTheGpusOverride) {
  const fs::path dir = fs::temp_directory_path() / ("frontier_probe_cli_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string bin = frontier::testing_util::TestPath("FRONTIER_BIN");
  const std::string db = (dir / "runs.db").string(), json = (dir / "probe.json").string();
  auto [rc, out] = RunCommand(bin + " probe --probe-backend fake --hardware h200 --model llama-3.1-8b " +
                              "--tokens 64,512,4096 --db " + db + " --result-json " + json);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("stored run 1 (probe/h200#1)"), std::string::npos) << out;
  EXPECT_NE(out.find("HBM copy"), std::string::npos);
  EXPECT_NE(out.find("note: all_reduce skipped: 1 GPU"), std::string::npos) << out;
  nlohmann::json j = nlohmann::json::parse(std::ifstream(json));
  // 2 precisions (H200: BF16, FP8) x 4 layers x 3 token counts.
  ASSERT_EQ(j["gemm"].size(), 24u);
  // BF16 at M = 512: 0.75 x 512 / (512 + 96) of 989.4 TFLOP/s.
  int checked = 0;
  for (const auto& g : j["gemm"]) {
    if (g["precision"] != "bf16" || g["m"] != 512) continue;
    EXPECT_NEAR(g["tuned_tflops"].get<double>(), 989.4 * 0.75 * 512 / 608, 1e-6);
    ++checked;
  }
  EXPECT_EQ(checked, 4);

  const std::string override_path = (dir / "h200.json").string();
  std::tie(rc, out) = RunCommand(bin + " calibrate --db " + db + " --probe 1 --out " + override_path);
  ASSERT_EQ(rc, 0) << out;
  nlohmann::json o = nlohmann::json::parse(std::ifstream(override_path));
  EXPECT_EQ(o["hardware"], "h200");
  EXPECT_EQ(o["probe_run"], "probe/h200#1");
  EXPECT_NEAR(o["params"]["gemm.bf16.max"]["value"].get<double>(), 0.75, 1e-6);
  EXPECT_NEAR(o["params"]["gemm.fp8.half"]["value"].get<double>(), 192, 1e-2);
  EXPECT_NEAR(o["params"]["hbm"]["value"].get<double>(), 0.90, 1e-9);

  // `report` lists the probe run's provenance but tabulates no serving point for it.
  std::tie(rc, out) = RunCommand(bin + " report --db " + db);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("kind=probe"), std::string::npos) << out;
  EXPECT_EQ(out.find("== workload gemm/"), std::string::npos) << out;

  // A run that is not a probe is refused by name.
  std::tie(rc, out) = RunCommand(bin + " calibrate --db " + db + " --probe 2");
  EXPECT_NE(rc, 0);
  // The id is all of its text (core/parse.h): " 1" once read as run 1, a
  // 20-digit id as the largest one.
  for (const std::string id : {" 1", "1x", "99999999999999999999"}) {
    std::tie(rc, out) = RunCommand(bin + " calibrate --db " + db + " --probe '" + id + "'");
    EXPECT_EQ(rc, 2) << out;
    EXPECT_EQ(out, "frontier calibrate: --probe takes a probe run's id (frontier db ls), got '" + id + "'\n");
  }
  std::tie(rc, out) = RunCommand(bin + " probe --probe-backend fake");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("needs --hardware"), std::string::npos) << out;
  fs::remove_all(dir);
}

}  // namespace
