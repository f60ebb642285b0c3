// `frontier bench --power`: the binary against the scripted server with a
// fake NVML (src/power/fake_nvml.cc) whose GPUs draw a known power, so the
// joules in the result JSON and the results database are known exactly.
#include <cmath>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "client_test_util.h"
#include "store/store.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier {
namespace {

using testing_util::Slurp;

// Environment for one test, restored after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

std::unique_ptr<ScriptedServer> Server() {
  return StartServer([](const testing::RequestInfo&) {
    Script s;
    s.ttft = 5 * kMs;
    s.interval = 2 * kMs;
    s.events = 8;
    return s;
  });
}

std::string Bench(const ScriptedServer& server, const std::string& extra) {
  return testing_util::TestPath("FRONTIER_BIN") + " bench --base-url " + server.base_url() +
         " --model m --num-prompts 24 --warmup 2 --max-concurrency 4 --input-len 16 --output-len 8 --seed 3"
         " --num-gpus 2 --no-progress " + extra;
}

TEST(BenchPowerTest, FakeNvmlPowerIsIntegratedExactlyIntoResultAndStore) {
  testing_util::ScratchDir tmp("bench_power");
  auto server = Server();
  ASSERT_NE(server, nullptr);
  // Power alone (no energy counter), constant: the trapezoids give watts x
  // window whatever the readings' times, so the figures are exact.
  ScopedEnv lib("FRONTIER_NVML_LIB", testing_util::TestPath("FRONTIER_FAKE_NVML"));
  ScopedEnv watts("FAKE_NVML_WATTS", "100,250");
  ScopedEnv no_energy("FAKE_NVML_NO_ENERGY", "1");
  const std::string result = tmp.Path("r.json"), db = tmp.Path("f.db");
  auto [rc, out] = testing::RunCommand(Bench(*server, "--power nvml --power-interval 0.01 --result-json " + result +
                                                          " --db " + db));
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("Energy, measured (nvml)"), std::string::npos) << out;
  auto j = nlohmann::json::parse(Slurp(result));
  ASSERT_TRUE(j.contains("energy")) << j.dump();
  const auto& e = j["energy"];
  EXPECT_EQ(e["source"], "nvml");
  EXPECT_EQ(e["label"], "measured (nvml)");
  EXPECT_EQ(e["method"], "power integrated");
  // The window is the summary's duration: first scheduled send to last end.
  const double window = e["window_s"].get<double>();
  EXPECT_NEAR(window, j["duration"].get<double>(), 1e-9);
  EXPECT_NEAR(e["joules"].get<double>(), 350 * window, 1e-6);
  EXPECT_NEAR(e["mean_power_w"].get<double>(), 350, 1e-6);
  ASSERT_EQ(e["devices"].size(), 2u);
  EXPECT_EQ(e["devices"][0]["name"], "gpu0 Fake GPU 0");
  EXPECT_NEAR(e["devices"][0]["joules"].get<double>(), 100 * window, 1e-6);
  EXPECT_NEAR(e["devices"][1]["joules"].get<double>(), 250 * window, 1e-6);
  if (e["samples"].get<int64_t>() > 0) {
    EXPECT_DOUBLE_EQ(e["peak_power_w"].get<double>(), 350);
  }
  const double tokens = j["total_input_tokens"].get<double>() + j["total_output_tokens"].get<double>();
  EXPECT_EQ(tokens, 24 * (16 + 8));
  EXPECT_NEAR(j["tokens_per_joule"].get<double>(), tokens / (350 * window), 1e-6 * tokens / window);
  EXPECT_NEAR(j["output_tokens_per_joule"].get<double>(), 24 * 8 / (350 * window), 1e-6 * tokens / window);
  EXPECT_EQ(j["frontier"]["effective_settings"]["power"], "nvml");
  // By phase: windows two readings long (0.02 s) that cover the window once; at a
  // constant power every phase draws 350 W and the phases sum to the whole.
  ASSERT_TRUE(e.contains("phases")) << e.dump();
  const auto& ph = e["phases"];
  EXPECT_DOUBLE_EQ(ph["slice_s"].get<double>(), 0.02);
  double joules = 0, seconds = 0;
  int64_t windows = 0, out_tokens = 0;
  for (const char* k : {"prefill", "decode", "idle"}) {
    joules += ph[k]["joules"].get<double>();
    seconds += ph[k]["seconds"].get<double>();
    windows += ph[k]["windows"].get<int64_t>();
    out_tokens += ph[k]["output_tokens"].get<int64_t>();
    if (ph[k]["windows"].get<int64_t>() > 0) {
      EXPECT_NEAR(ph[k]["mean_power_w"].get<double>(), 350, 1e-6) << k;
    }
  }
  EXPECT_NEAR(joules, e["joules"].get<double>(), 1e-6);
  EXPECT_NEAR(seconds, window, 1e-9);
  EXPECT_EQ(windows, static_cast<int64_t>(std::ceil(window / 0.02 - 1e-9)));
  // Every measured request's prompt prefilled inside the window (warm-up ones may too).
  const int64_t prompts = ph["prefill"]["prompt_tokens"].get<int64_t>();
  EXPECT_GE(prompts, 24 * 16);
  EXPECT_LE(prompts, 26 * 16);
  EXPECT_EQ(prompts % 16, 0);
  EXPECT_GT(ph["prefill"]["windows"].get<int64_t>(), 0);
  EXPECT_LE(out_tokens, 26 * 8);  // tokens counted where they arrived, at most once
  if (ph["decode"]["output_tokens"].get<int64_t>() > 0) {
    EXPECT_NEAR(ph["decode_joules_per_output_token"].get<double>(),
                350 * ph["decode"]["seconds"].get<double>() / ph["decode"]["output_tokens"].get<double>(), 1e-6);
  }
  EXPECT_NE(out.find("By phase (0.02 s windows)"), std::string::npos) << out;

  auto st = store::OpenStore(db, store::OpenMode::kReadOnly);
  ASSERT_TRUE(st.ok()) << st.status().message();
  auto runs = (*st)->ListRuns();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  auto points = (*st)->ListPoints(runs->front().id);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 1u);
  const auto& m = points->front().metrics;
  ASSERT_TRUE(m.energy.has_value());
  EXPECT_DOUBLE_EQ(m.energy->joules, e["joules"].get<double>());
  EXPECT_DOUBLE_EQ(m.energy->mean_w, e["mean_power_w"].get<double>());
  EXPECT_DOUBLE_EQ(m.tokens_per_joule, j["tokens_per_joule"].get<double>());
  auto summary = nlohmann::json::parse(points->front().summary_json);
  EXPECT_EQ(summary["energy"]["source"], "nvml");
  EXPECT_EQ(summary["energy"]["devices"].size(), 2u);
  EXPECT_EQ(summary["energy"]["phases"], ph);  // stored with the point, as written
}

TEST(BenchPowerTest, EnergyCountersAreReadWhereTheGpusHaveThem) {
  testing_util::ScratchDir tmp("bench_power");
  auto server = Server();
  ASSERT_NE(server, nullptr);
  ScopedEnv lib("FRONTIER_NVML_LIB", testing_util::TestPath("FRONTIER_FAKE_NVML"));
  ScopedEnv watts("FAKE_NVML_WATTS", "200,600");
  const std::string result = tmp.Path("r.json");
  // auto finds NVML through FRONTIER_NVML_LIB.
  auto [rc, out] = testing::RunCommand(Bench(*server, "--result-json " + result));
  ASSERT_EQ(rc, 0) << out;
  auto j = nlohmann::json::parse(Slurp(result));
  const auto& e = j["energy"];
  EXPECT_EQ(e["source"], "nvml");
  EXPECT_EQ(e["method"], "energy counter");
  EXPECT_GT(e["joules"].get<double>(), 0);
  // The counters' joules depend on when each call ran (exact figures are the
  // unit tests' and the power-only run's above); the power readings do not.
  ASSERT_EQ(e["devices"].size(), 2u);
  EXPECT_GT(e["devices"][0]["joules"].get<double>(), 0);
  EXPECT_GT(e["devices"][1]["joules"].get<double>(), e["devices"][0]["joules"].get<double>());
  if (e["samples"].get<int64_t>() > 0) {
    EXPECT_DOUBLE_EQ(e["devices"][0]["peak_power_w"].get<double>(), 200);
    EXPECT_DOUBLE_EQ(e["devices"][1]["peak_power_w"].get<double>(), 600);
  }
  EXPECT_EQ(e["interval_s"], 0.1);
}

TEST(BenchPowerTest, WithoutASourceItSaysTdpBound) {
  testing_util::ScratchDir tmp("bench_power");
  auto server = Server();
  ASSERT_NE(server, nullptr);
  ScopedEnv lib("FRONTIER_NVML_LIB", "/nonexistent/libnvidia-ml.so.1");
  ScopedEnv amd("FRONTIER_ROCM_SMI_LIB", "/nonexistent/librocm_smi64.so");
  const std::string result = tmp.Path("r.json");
  auto [rc, out] = testing::RunCommand(Bench(*server, "--result-json " + result));
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("tokens per joule are the TDP bound"), std::string::npos) << out;
  auto j = nlohmann::json::parse(Slurp(result));
  EXPECT_FALSE(j.contains("energy"));
  EXPECT_FALSE(j.contains("tokens_per_joule"));
  EXPECT_EQ(j["frontier"]["effective_settings"]["power"], "off");
  // Asked for by name, a source that cannot open is an error naming the flag.
  auto [rc2, out2] = testing::RunCommand(Bench(*server, "--power nvml"));
  EXPECT_EQ(rc2, 1) << out2;
  EXPECT_NE(out2.find("--power nvml: "), std::string::npos) << out2;
  EXPECT_NE(out2.find("FRONTIER_NVML_LIB"), std::string::npos) << out2;
}

TEST(BenchPowerTest, BadPowerFlagsExit2WithOneLine) {
  for (const std::string flags : {"--power watts", "--power-interval 0", "--power-interval nan", "--power scrape"}) {
    auto [rc, out] = testing::RunCommand(testing_util::TestPath("FRONTIER_BIN") + " bench --model m " + flags);
    EXPECT_EQ(rc, 2) << flags << ": " << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    EXPECT_EQ(out.rfind("frontier bench: --power", 0), 0u) << out;
  }
}

}  // namespace
}  // namespace frontier
