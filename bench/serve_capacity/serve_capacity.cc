// serve_capacity: how many concurrent streams `frontier serve` holds on this
// machine, and how late its token events are against the modelled schedule.
//
// For each stream count N it starts an in-process server with the fixed
// profile (every event's due time is known exactly), opens N streaming
// requests at once from a nonblocking client in the same process, and prints:
//   held       most streams open at the same time (from the server's traces)
//   ok         streams that received every token and [DONE]
//   events/s   token events written per second while all N were streaming
//   lag p50/p99/max   server: write time - due time of each event (ms)
//   client p50/p99    client: read time - due time (same clock; ms)
//   cpu        process CPU seconds (server + client together) per wall second
//
// With --sim the timing is the sim profile instead (Llama 3.1 70B FP8 on
// 8 x H200, TP 8, the stack's batch limits), each stream 128 prompt tokens and
// SERVE_CAPACITY_TOKENS output tokens: streams beyond the batch limit wait in
// the engine's queue while their connections stay open, and the lag is
// against the engine's modelled step ends, where a whole batch's tokens fall
// due at once.
//
// Usage: serve_capacity [--sim] [N ...]   (default 1 1000 4000)
//        env SERVE_CAPACITY_ITL_MS (default 50), SERVE_CAPACITY_TOKENS (default 40)
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "serve/fixed_timing.h"
#include "serve/server.h"
#include "serve/sim_timing.h"
#include "sim/engine/config.h"
#include "testing/stream_probe.h"

namespace {

using namespace frontier;
using namespace frontier::serve;
using namespace frontier::testing;

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(rank);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (rank - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

std::unique_ptr<TimingSource> MakeTiming(bool use_sim, double ttft_ms, double itl_ms) {
  if (!use_sim) {
    FixedProfile p;
    p.ttft_ms = ttft_ms;
    p.itl_ms = itl_ms;
    return std::make_unique<FixedTiming>(p);
  }
  sim::SimSpec spec;
  spec.model = "llama-3.1-70b";
  spec.hardware = "h200";
  spec.gpus = 8;
  spec.tp = 8;
  spec.precision = "fp8";
  auto config = sim::ResolveSimConfig(spec);
  if (!config.ok()) {
    std::fprintf(stderr, "serve_capacity: %s\n", config.status().message().c_str());
    std::exit(1);
  }
  return std::make_unique<SimTiming>(*config, 1.0, config->model.max_context);
}

void RunLevel(int n, bool use_sim, double ttft_ms, double itl_ms, int tokens) {
  ServeOptions o;
  o.port = 0;
  o.model_name = "capacity";
  o.record_traces = true;
  auto server = Server::Create(o, MakeTiming(use_sim, ttft_ms, itl_ms));
  if (!server.ok()) {
    std::fprintf(stderr, "serve_capacity: %s\n", server.status().message().c_str());
    std::exit(1);
  }
  (void)(*server)->Start();
  std::string prompt = "[1";
  for (int i = 1; i < (use_sim ? 128 : 8); ++i) prompt += ",1";
  prompt += "]";
  const std::string body = "{\"prompt\":" + prompt + ",\"max_tokens\":" + std::to_string(tokens) +
                           ",\"stream\":true,\"ignore_eos\":true}";
  std::vector<ProbeRequest> reqs(static_cast<size_t>(n), ProbeRequest{"/v1/completions", body, 0});
  ProbeOptions opt;
  opt.keep_event_data = false;
  opt.timeout_ns = 120 * kNanosPerSecond;
  const double cpu0 = CpuSeconds();
  const Nanos t0 = SteadyClock::MonotonicNow();
  const auto results = RunStreams("127.0.0.1", (*server)->port(), reqs, opt);
  const Nanos t1 = SteadyClock::MonotonicNow();
  const double cpu = CpuSeconds() - cpu0;
  // Let the server record the traces of the last responses.
  std::vector<RequestTrace> traces;
  for (int i = 0; i < 1000 && traces.size() < results.size(); ++i) {
    auto t = (*server)->TakeTraces();
    traces.insert(traces.end(), t.begin(), t.end());
    if (traces.size() < results.size()) usleep(1000);
  }
  (*server)->Stop();

  int ok = 0;
  for (const auto& r : results) {
    int content = 0;
    for (const auto& e : r.reply.events) content += e.has_content;
    ok += r.reply.status == 200 && r.reply.complete && content == tokens && !r.reply.events.empty();
  }
  std::vector<std::pair<Nanos, int>> edges;
  std::vector<double> lag, client;
  Nanos all_started = 0, first_done = kNever;
  int64_t events = 0;
  for (const auto& t : traces) {
    edges.push_back({t.arrival_ns, +1});
    if (!t.events.empty()) {
      edges.push_back({t.events.back().written_ns, -1});
      first_done = std::min(first_done, t.events.back().written_ns);
    }
    all_started = std::max(all_started, t.arrival_ns);
    for (const auto& e : t.events) lag.push_back(NanosToMillis(e.written_ns - e.due_ns));
    events += static_cast<int64_t>(t.events.size());
  }
  std::sort(edges.begin(), edges.end());
  int cur = 0, held = 0;
  for (const auto& [t, d] : edges) held = std::max(held, cur += d);
  // Client lateness: match the i-th content read of a stream to its trace by request id.
  std::vector<const RequestTrace*> by_id;
  for (const auto& t : traces) {
    if (t.id >= by_id.size()) by_id.resize(t.id + 1, nullptr);
    by_id[t.id] = &t;
  }
  for (const auto& r : results) {
    auto h = r.reply.headers.find("x-request-id");
    if (h == r.reply.headers.end()) continue;
    const uint64_t id = std::stoull(h->second);
    if (id >= by_id.size() || !by_id[id]) continue;
    size_t j = 0;
    for (const auto& e : r.reply.events) {
      if (!e.has_content || j >= by_id[id]->events.size()) continue;
      client.push_back(NanosToMillis(e.t_ns - by_id[id]->events[j++].due_ns));
    }
  }
  // Events per second over the window in which every stream was open.
  int64_t window_events = 0;
  for (const auto& t : traces)
    for (const auto& e : t.events) window_events += e.written_ns >= all_started && e.written_ns <= first_done;
  const double window_s = first_done > all_started ? NanosToSeconds(first_done - all_started) : 0;
  const double wall = NanosToSeconds(t1 - t0);
  std::printf("%6d %6d %6d %10.0f %9.3f %9.3f %9.3f %10.3f %10.3f %6.2f %7.2f\n", n, held, ok,
              window_s > 0 ? static_cast<double>(window_events) / window_s : 0.0, Pct(lag, 50), Pct(lag, 99),
              Pct(lag, 100), Pct(client, 50), Pct(client, 99), cpu / wall, wall);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> levels;
  bool use_sim = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--sim") {
      use_sim = true;
    } else {
      levels.push_back(std::atoi(argv[i]));
    }
  }
  if (levels.empty()) levels = {1, 1000, 4000};
  const char* itl_env = std::getenv("SERVE_CAPACITY_ITL_MS");
  const char* tok_env = std::getenv("SERVE_CAPACITY_TOKENS");
  const double itl = itl_env ? std::atof(itl_env) : 50;
  const int tokens = tok_env ? std::atoi(tok_env) : 40;
  const double ttft = 100;
  if (use_sim) {
    std::printf("serve_capacity: sim profile llama-3.1-70b fp8 on 8 x h200 (tp 8), 128 prompt + %d output tokens per "
                "stream; client in the same process\n",
                tokens);
  } else {
    std::printf("serve_capacity: fixed profile ttft %.0f ms, itl %.0f ms, %d tokens per stream, one event per token; "
                "client in the same process\n",
                ttft, itl, tokens);
  }
  std::printf("%6s %6s %6s %10s %9s %9s %9s %10s %10s %6s %7s\n", "N", "held", "ok", "events/s", "lag p50",
              "lag p99", "lag max", "client p50", "client p99", "cpu", "wall s");
  for (int n : levels) RunLevel(n, use_sim, ttft, itl, tokens);
  return 0;
}
