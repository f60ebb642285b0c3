// http_exchange.h: one raw HTTP request on a fresh loopback connection and
// its reply, for the tests of every frontier HTTP server (serve, dashboard).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/clock.h"
#include "testing/stream_probe.h"

namespace frontier::testing_util {

// Sends `raw` on a new connection to 127.0.0.1:`port` and reads one reply;
// an empty reply (status 0) with a test failure when none came in `timeout`.
inline testing::HttpReply Exchange(int port, const std::string& raw, Nanos timeout = 30 * kNanosPerSecond) {
  auto c = testing::ProbeConnection::Connect("127.0.0.1", port);
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok()) return {};
  EXPECT_TRUE(c->SendRaw(raw).ok());
  auto r = c->ReadReply(timeout);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : testing::HttpReply{};
}

}  // namespace frontier::testing_util
