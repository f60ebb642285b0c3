// Helpers shared by the client tests: run requests against a scripted server.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "client/stream_client.h"
#include "testing/scripted_server.h"

namespace frontier {

using client::ClientOptions;
using client::StreamClient;
using testing::Fault;
using testing::Script;
using testing::ScriptedServer;

inline constexpr Nanos kMs = kNanosPerMilli;

// Sends `n` requests with at most `concurrency` in flight; returns the records
// (absolute steady-clock times) indexed by id.
inline std::vector<RequestRecord> RunRequests(const ClientOptions& o, int n, int concurrency,
                                       int32_t max_tokens = 32, Nanos limit = 20 * kNanosPerSecond) {
  auto c = StreamClient::Create(o);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  if (!c.ok()) return {};
  std::vector<RequestRecord> out(static_cast<size_t>(n));
  const std::vector<int32_t> ids = {101, 102, 103, 104, 105, 106, 107, 108};
  int next = 0, done = 0;
  const Nanos give_up = SteadyClock::MonotonicNow() + limit;
  while (done < n && SteadyClock::MonotonicNow() < give_up) {
    while (next < n && static_cast<int>((*c)->InFlight()) < concurrency) {
      client::StreamRequest r;
      r.id = next++;
      r.prompt_token_ids = ids;
      r.max_tokens = max_tokens;
      (*c)->Start(r);
    }
    (*c)->Poll(SteadyClock::MonotonicNow() + 100 * kMs, [&](RequestRecord&& r) {
      out[static_cast<size_t>(r.id)] = std::move(r);
      ++done;
    });
  }
  EXPECT_EQ(done, n) << "requests did not finish in time";
  return out;
}

inline std::unique_ptr<ScriptedServer> StartServer(std::function<Script(const testing::RequestInfo&)> fn) {
  ScriptedServer::Options o;
  o.script = std::move(fn);
  auto s = ScriptedServer::Start(o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

}  // namespace frontier
