#include <gtest/gtest.h>
#include <cstdio>
#include "client_test_util.h"
#include "core/stats.h"
namespace frontier {
TEST(Dbg, SendToReceive) {
  auto server = StartServer([](const testing::RequestInfo&) { Script s; s.ttft=50*kMs; s.interval=10*kMs; s.events=20; return s; });
  ClientOptions o; o.base_url = server->base_url();
  for (int round = 0; round < 2; ++round) {
  auto recs = RunRequests(o, 256, 256);
  std::vector<double> d;
  for (auto& r : recs) { testing::ServedRequest sr; server->Find("frontier-" + std::to_string(r.id), &sr); d.push_back(NanosToMillis(sr.received_ns - r.sent_ns)); }
  std::printf("send->received ms: p0 %.3f p50 %.3f p90 %.3f max %.3f; first %.3f last %.3f\n", Percentile(d,0), Median(d), Percentile(d,90), Percentile(d,100), d[0], d[255]);
  std::printf("sent span %.3f ms\n", NanosToMillis(recs[255].sent_ns - recs[0].sent_ns));
  }
}
}
