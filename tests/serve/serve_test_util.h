// serve_test_util.h: helpers for the serve tests: start an in-process server,
// send one request, split an SSE body into JSON events.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "serve/fixed_timing.h"
#include "serve/server.h"
#include "serve/synthetic.h"
#include "testing/stream_probe.h"
#include "util/http_exchange.h"

namespace frontier::serve::testing {

using json = nlohmann::json;

// The probe that reads the server from outside (testing/stream_probe.h).
using ::frontier::testing::FormatGet;
using ::frontier::testing::FormatPost;
using ::frontier::testing::HttpReply;
using ::frontier::testing::ProbeConnection;
using ::frontier::testing::ProbeEvent;
using ::frontier::testing::ProbeOptions;
using ::frontier::testing::ProbeRequest;
using ::frontier::testing::ProbeResult;
using ::frontier::testing::ResponseReader;
using ::frontier::testing::RunStreams;

inline ServeOptions TestOptions() {
  ServeOptions o;
  o.port = 0;
  o.model_name = "test-model";
  o.record_traces = true;
  return o;
}

// A clock that runs with the steady clock plus an offset a test jumps
// forward: time that passes at once. The server's loop waits its time left
// for real, so a jump is seen at the loop's next pass. Safe from any thread.
class JumpClock final : public Clock {
 public:
  Nanos Now() const override { return SteadyClock::MonotonicNow() + offset_.load(); }
  void Jump(Nanos d) { offset_.fetch_add(d); }

 private:
  std::atomic<Nanos> offset_{0};
};

inline std::unique_ptr<Server> StartServer(const ServeOptions& o, std::unique_ptr<TimingSource> timing,
                                           const Clock& clock = SteadyClock::Get()) {
  auto s = Server::Create(o, std::move(timing), clock);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return nullptr;
  EXPECT_TRUE((*s)->Start().ok());
  return std::move(*s);
}

inline std::unique_ptr<Server> StartFixed(double ttft_ms, double itl_ms, int k = 1, ServeOptions o = TestOptions(),
                                          int64_t context = 131072, const Clock& clock = SteadyClock::Get()) {
  FixedProfile p;
  p.ttft_ms = ttft_ms;
  p.itl_ms = itl_ms;
  p.tokens_per_event = k;
  p.context_length = context;
  return StartServer(o, std::make_unique<FixedTiming>(p), clock);
}

// One request on a fresh connection; the reply (status 0 if none came).
using testing_util::Exchange;

inline HttpReply Post(int port, const std::string& path, const std::string& body) {
  return Exchange(port, FormatPost(path, body));
}

// The JSON payloads of an SSE reply, with "[DONE]" left out (see done()).
inline std::vector<json> Events(const HttpReply& r) {
  std::vector<json> out;
  for (const auto& e : r.events)
    if (e.data != "[DONE]") out.push_back(json::parse(e.data));
  return out;
}
inline bool EndsWithDone(const HttpReply& r) { return !r.events.empty() && r.events.back().data == "[DONE]"; }

// The concatenated generated text of a completions or chat stream.
inline std::string StreamText(const HttpReply& r) {
  std::string text;
  for (const json& e : Events(r)) {
    if (e["choices"].empty()) continue;
    const json& c = e["choices"][0];
    if (c.contains("text")) text += c["text"].get<std::string>();
    if (c.contains("delta") && c["delta"].contains("content")) text += c["delta"]["content"].get<std::string>();
  }
  return text;
}

inline void ExpectHealthy(int port) {
  const HttpReply h = Exchange(port, FormatGet("/health"));
  EXPECT_EQ(h.status, 200) << "the server stopped serving";
}

// Traces of the next n requests to finish (waits up to 10 s for them).
inline std::vector<RequestTrace> WaitTraces(Server& s, size_t n) {
  std::vector<RequestTrace> all;
  const Nanos until = SteadyClock::MonotonicNow() + 10 * kNanosPerSecond;
  while (all.size() < n && SteadyClock::MonotonicNow() < until) {
    auto t = s.TakeTraces();
    all.insert(all.end(), std::make_move_iterator(t.begin()), std::make_move_iterator(t.end()));
    if (all.size() < n) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(all.size(), n);
  return all;
}

// Waits up to 5 s for the server's snapshot to satisfy `pred`.
template <typename Pred>
inline ServerSnapshot WaitSnapshot(Server& s, Pred pred) {
  const Nanos until = SteadyClock::MonotonicNow() + 5 * kNanosPerSecond;
  ServerSnapshot snap = s.Snapshot();
  while (!pred(snap) && SteadyClock::MonotonicNow() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    snap = s.Snapshot();
  }
  return snap;
}

// numpy-style linear percentile of a copy.
inline double Pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(rank);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (rank - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace frontier::serve::testing
