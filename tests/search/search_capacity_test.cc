// `frontier search` finds the known capacity of `frontier serve --profile
// fixed --slots` over HTTP. It loads both cores for about 20 s, so CTest runs
// it alone (RUN_SERIAL): it neither disturbs nor is disturbed by the other
// timing tests.
#include "search_test_util.h"

namespace frontier::serve::testing {
namespace {

// 16 slots, each request holding one for 20 ms + 16 x 5 ms = 100 ms (17
// tokens): capacity 160 req/s. TTFT p99 <= 300 ms leaves 280 ms of queueing.
// Above capacity the wait grows by (rate / 160 - 1) x elapsed: over a run of
// about 3.5 s, every rate above 1.1 x 160 has more than 1 % of its queries over
// 300 ms, so is INVALID; at 0.6 x 160 a 16-slot queue with a fixed hold has no
// 280 ms waits (even a loaded client's jitter stays far below). So the
// highest valid QPS lies in [0.6, 1.15] x 160. Without --slots the server
// never saturates and the search runs up to its cap instead.
TEST(SearchCli, FindsTheCapacityOfTheFixedServer) {
  auto server = StartFixedServer(16);
  ASSERT_TRUE(server);
  const Ran r = Frontier({"search", "--base-url", server->address(), "--model", "fixed", "--input-len", "16",
                          "--output-len", "17", "--scenario", "server", "--slo", "ttft_p99:300", "--min-duration",
                          "2", "--min-query-count", "500", "--start", "120", "--tolerance", "0.05", "--max-trials",
                          "12"});
  ASSERT_EQ(r.rc, 0) << r.out;
  const json& j = r.result;
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["goal"], "max_valid_qps");
  ASSERT_TRUE(j["max_valid_qps"].is_number()) << r.out;
  const double qps = j["max_valid_qps"];
  EXPECT_GE(qps, 0.6 * 160) << r.out;
  EXPECT_LE(qps, 1.15 * 160) << r.out;
  // Every trial is in the file with its verdict, and the answer is a valid one.
  EXPECT_EQ(j["trials"].size(), j["trial_count"].get<size_t>());
  ASSERT_GE(j["trials"].size(), 3u);
  const json& best = j["trials"][j["answer"]["trial"].get<size_t>()];
  EXPECT_EQ(best["verdict"]["result"], "VALID");
  EXPECT_EQ(best["value"], qps);
  for (const auto& t : j["trials"]) {
    EXPECT_TRUE(t["verdict"]["result"] == "VALID" || t["verdict"]["result"] == "INVALID");
    EXPECT_EQ(t["result"]["frontier"]["source"], "measured");
    if (t["value"].get<double>() > qps) {
      EXPECT_EQ(t["verdict"]["result"], "INVALID");
    }
  }
  EXPECT_NE(r.out.find("max valid QPS"), std::string::npos);
  EXPECT_NE(r.out.find("MLPerf Results Summary"), std::string::npos);
  ExpectHealthy(server->port());
}

}  // namespace
}  // namespace frontier::serve::testing
