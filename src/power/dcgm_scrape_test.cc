#include "power/dcgm_scrape.h"

#include <atomic>
#include <cmath>
#include <mutex>

#include <gtest/gtest.h>

#include "client/models.h"
#include "power/integrate.h"
#include "power/open.h"
#include "testing/scripted_server.h"

namespace frontier::power {
namespace {

// A DCGM exporter on a script: scrape k answers the k-th exposition (the last
// one again after the end).
struct Exporter {
  std::vector<std::string> pages;
  std::atomic<size_t> served{0};
  std::unique_ptr<testing::ScriptedServer> server;

  void Start() {
    testing::ScriptedServer::Options o;
    o.metrics = [this] {
      const size_t k = served.fetch_add(1);
      return pages[std::min(k, pages.size() - 1)];
    };
    auto s = testing::ScriptedServer::Start(o);
    ASSERT_TRUE(s.ok()) << s.status().message();
    server = std::move(*s);
  }
  std::string url() const { return server->base_url() + "/metrics"; }
  FetchFn Fetch() const {
    const std::string u = url();
    return [u] { return client::HttpGet(client::ClientOptions{}, u, 5 * kNanosPerSecond, metrics::kMaxPrometheusBytes); };
  }
};

// dcgm-exporter's shape: HELP/TYPE lines, labels gpu, UUID, device, modelName, Hostname.
std::string Page(double mj0, double w0, double mj1, double w1) {
  auto labels = [](int gpu) {
    return "{gpu=\"" + std::to_string(gpu) + "\",UUID=\"GPU-" + std::to_string(gpu) +
           "\",device=\"nvidia" + std::to_string(gpu) + "\",modelName=\"NVIDIA H200\",Hostname=\"node1\"}";
  };
  std::string s;
  s += "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n";
  s += "DCGM_FI_DEV_POWER_USAGE" + labels(0) + " " + std::to_string(w0) + "\n";
  s += "DCGM_FI_DEV_POWER_USAGE" + labels(1) + " " + std::to_string(w1) + "\n";
  s += "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).\n"
       "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n";
  if (mj0 >= 0) s += "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + labels(0) + " " + std::to_string(mj0) + "\n";
  if (mj1 >= 0) s += "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + labels(1) + " " + std::to_string(mj1) + "\n";
  s += "DCGM_FI_DEV_GPU_UTIL" + labels(0) + " 97\n";
  return s;
}

TEST(DcgmScrapeTest, CountersPerGpuLabel) {
  Exporter x;
  // The first page is read at open (the device list); readings follow.
  x.pages = {Page(9e9, 400, 7e9, 500), Page(9e9, 400, 7e9, 500), Page(9e9 + 1.2e6, 650, 7e9 + 0.9e6, 550),
             Page(9e9 + 2.0e6, 600, 7e9 + 1.5e6, 480)};
  x.Start();
  auto s = OpenDcgmScrape(x.Fetch(), x.url());
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->Name(), "scrape");
  ASSERT_EQ((*s)->Devices().size(), 2u);
  EXPECT_EQ((*s)->Devices()[0], "gpu0 NVIDIA H200");
  std::vector<PowerReading> r(3);
  for (size_t i = 0; i < r.size(); ++i) {
    ASSERT_TRUE((*s)->Read(&r[i]).ok());
    r[i].t_ns = static_cast<Nanos>(i) * 2 * kNanosPerSecond;  // 0, 2, 4 s
  }
  EXPECT_DOUBLE_EQ(r[2].energy_j[0], 2000);
  EXPECT_DOUBLE_EQ(r[1].power_w[1], 550);
  auto e = Integrate(r, (*s)->Devices(), 0, 4 * kNanosPerSecond);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->method, "energy counter");
  EXPECT_DOUBLE_EQ(e->devices[0].joules, 2000);
  EXPECT_DOUBLE_EQ(e->devices[1].joules, 1500);
  EXPECT_DOUBLE_EQ(e->joules, 3500);
  EXPECT_DOUBLE_EQ(e->mean_w, 875);
  EXPECT_DOUBLE_EQ(e->peak_w, 1200);  // 650 + 550 at 2 s
  EXPECT_EQ(e->samples, 3);
}

TEST(DcgmScrapeTest, PowerAloneIsIntegrated) {
  Exporter x;
  x.pages = {Page(-1, 300, -1, 100), Page(-1, 300, -1, 100), Page(-1, 500, -1, 100)};
  x.Start();
  auto s = OpenDcgmScrape(x.Fetch(), x.url());
  ASSERT_TRUE(s.ok()) << s.status().message();
  std::vector<PowerReading> r(2);
  for (size_t i = 0; i < r.size(); ++i) {
    ASSERT_TRUE((*s)->Read(&r[i]).ok());
    r[i].t_ns = static_cast<Nanos>(i) * kNanosPerSecond;
  }
  auto e = Integrate(r, (*s)->Devices(), 0, kNanosPerSecond);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->method, "power integrated");
  EXPECT_DOUBLE_EQ(e->devices[0].joules, 400);
  EXPECT_DOUBLE_EQ(e->joules, 500);
}

TEST(DcgmScrapeTest, AServerWithoutDcgmSeriesIsRefusedByNameAndAutoGoesOn) {
  Exporter x;
  x.pages = {"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 3\n"};
  x.Start();
  auto s = OpenDcgmScrape(x.Fetch(), x.url());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(x.url()), std::string::npos) << s.status().message();
  PowerOptions o;
  o.nvml_lib = "/nonexistent/libnvidia-ml.so.1";
  o.rocm_smi_lib = "/nonexistent/librocm_smi64.so";
  o.scrape_url = x.url();
  o.fetch = x.Fetch();
  auto p = OpenPowerSource(o);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->source, nullptr);
  EXPECT_NE(p->note.find("no power source"), std::string::npos);
  o.kind = PowerKind::kScrape;
  auto named = OpenPowerSource(o);
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().message().rfind("--power scrape: ", 0), 0u);
}

TEST(DcgmScrapeTest, AutoTakesAnExporterWhenNvmlIsMissing) {
  Exporter x;
  x.pages = {Page(1e6, 100, 1e6, 100)};
  x.Start();
  PowerOptions o;
  o.nvml_lib = "/nonexistent/libnvidia-ml.so.1";
  o.rocm_smi_lib = "/nonexistent/librocm_smi64.so";
  o.scrape_url = x.url();
  o.fetch = x.Fetch();
  auto p = OpenPowerSource(o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_NE(p->source, nullptr);
  EXPECT_EQ(p->source->Name(), "scrape");
}

}  // namespace
}  // namespace frontier::power
