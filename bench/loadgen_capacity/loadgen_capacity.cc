// loadgen_capacity: how much the client can carry, and how exactly it stamps.
// Prints figures; never passes or fails.
//
//   build/bench/loadgen_capacity/loadgen_capacity [--quick] [--server-threads N]
//       [--only timestamps|ingest|ingest1|streams]
//
// Against the scripted local server (src/testing), with the client on the
// main thread pinned to CPU 0 and the server's loops on the other CPUs:
//   1. timestamp error: client stamp - server write time of every content
//      event (one event per write) at 1, 100, 1000 and 4000 concurrent
//      streams; p50 / p99 / max. The server stamps just before write(), the
//      client when epoll_wait returns, so the figure also holds the kernel's
//      loopback delivery and the client thread's wake-up.
//   2. ingest: 256 streams of one-token events, the server batching 32 events
//      per write (2b: one event per write, a read per token); tokens/s, the
//      client thread's CPU time per 1,000 tokens and its CPU use. tokens / client CPU-seconds is the ingest rate one core
//      would sustain at 100 %; whether the client or the server was the limit
//      shows in the client's CPU use.
//   3. most concurrent streams held: N streams opened at once, each holding
//      its connection max(2 s, N ms) before streaming; the largest N with
//      every stream connected at once and every request ok. Client and server
//      share the process, so each stream costs two file descriptors.
#include <sched.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "client/stream_client.h"
#include "core/stats.h"
#include "testing/scripted_server.h"

namespace frontier {
namespace {

constexpr Nanos kMs = kNanosPerMilli;

Nanos ThreadCpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * kNanosPerSecond + ts.tv_nsec;
}

void PinToCpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  (void)sched_setaffinity(0, sizeof(set), &set);
}

struct RunStats {
  std::vector<RequestRecord> records;
  int64_t tokens = 0;
  int64_t failed = 0;
  std::string first_failure;
  Nanos wall = 0, client_cpu = 0;
  size_t max_in_flight = 0;
  int64_t wakeups = 0, events = 0;  // the client's epoll wake-ups and SSE events
};

// Opens `n` streams at once (closed loop of n), `rounds` requests per slot.
RunStats Drive(const std::string& url, int n, int rounds, Nanos limit) {
  RunStats st;
  client::ClientOptions o;
  o.base_url = url;
  o.model = "m";
  o.connect_timeout = 30 * kNanosPerSecond;
  o.total_timeout = 90 * kNanosPerSecond;
  auto c = client::StreamClient::Create(o);
  if (!c.ok()) {
    std::fprintf(stderr, "client: %s\n", c.status().ToString().c_str());
    return st;
  }
  const int total = n * rounds;
  st.records.resize(static_cast<size_t>(total));
  const std::vector<int32_t> prompt = {101, 102, 103, 104};
  int next = 0, done = 0;
  const Nanos t0 = SteadyClock::MonotonicNow(), cpu0 = ThreadCpuNow();
  while (done < total && SteadyClock::MonotonicNow() - t0 < limit) {
    while (next < total && static_cast<int>((*c)->InFlight()) < n) {
      client::StreamRequest r;
      r.id = next++;
      r.prompt_token_ids = prompt;
      r.max_tokens = 1 << 20;
      (*c)->Start(r);
    }
    st.max_in_flight = std::max(st.max_in_flight, (*c)->InFlight());
    (*c)->Poll(SteadyClock::MonotonicNow() + 50 * kMs, [&](RequestRecord&& r) {
      ++done;
      if (r.ok) {
        st.tokens += r.output_tokens;
      } else {
        if (st.first_failure.empty()) st.first_failure = r.failure + ": " + r.failure_detail;
        ++st.failed;
      }
      st.records[static_cast<size_t>(r.id)] = std::move(r);
    });
  }
  st.wall = SteadyClock::MonotonicNow() - t0;
  st.client_cpu = ThreadCpuNow() - cpu0;
  st.wakeups = (*c)->wakeups();
  st.events = (*c)->events();
  if (done < total) {
    st.failed += total - done;
    if (st.first_failure.empty()) st.first_failure = "did not finish within the time limit";
  }
  return st;
}

// Every CPU but 0 (all of them on a one-CPU machine).
void UnpinFromCpu0() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = static_cast<int>(std::thread::hardware_concurrency());
  for (int c = cpus > 1 ? 1 : 0; c < cpus; ++c) CPU_SET(c, &set);
  (void)sched_setaffinity(0, sizeof(set), &set);
}

// The server's threads inherit the affinity of the thread that starts them:
// they go on CPUs 1.., then the client thread goes back to CPU 0.
std::unique_ptr<testing::ScriptedServer> Server(testing::Script script, int threads, bool record) {
  UnpinFromCpu0();
  struct Repin {
    ~Repin() { PinToCpu(0); }
  } repin;
  testing::ScriptedServer::Options o;
  o.script = [script](const testing::RequestInfo&) { return script; };
  o.threads = threads;
  o.record = record;
  auto s = testing::ScriptedServer::Start(o);
  if (!s.ok()) {
    std::fprintf(stderr, "server: %s\n", s.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(*s);
}

void TimestampError(int n, int threads, bool quick) {
  testing::Script s;
  s.events = quick ? 10 : 20;
  s.ttft = 20 * kMs;
  // Keep the server's write rate near 40k events/s so it stays on time.
  s.interval = std::max<Nanos>(10 * kMs, static_cast<Nanos>(n) * 25 * kNanosPerMicro);
  auto server = Server(s, threads, true);
  RunStats st = Drive(server->base_url(), n, 1, 120 * kNanosPerSecond);
  std::unordered_map<std::string, const testing::ServedRequest*> by_id;
  auto served = server->Served();
  for (const auto& r : served) by_id[r.request.Header("x-request-id")] = &r;
  std::vector<double> err;
  int64_t before = 0;
  for (const auto& r : st.records) {
    auto it = by_id.find("frontier-" + std::to_string(r.id));
    if (it == by_id.end()) continue;
    const auto& em = it->second->emissions;
    for (size_t i = 0; i < std::min(em.size(), r.events.size()); ++i) {
      const Nanos d = r.events[i].t_ns - em[i].t_ns;
      if (d < 0 && ++before == 1 && std::getenv("CAPACITY_DEBUG")) {
        std::printf("negative: request %lld event %zu of %zu/%zu\n", static_cast<long long>(r.id), i,
                    r.events.size(), em.size());
        for (size_t k = 0; k < std::max(em.size(), r.events.size()); ++k)
          std::printf("   %zu client %lld (%d) server %lld (%d)\n", k,
                      k < r.events.size() ? static_cast<long long>(r.events[k].t_ns) : 0LL,
                      k < r.events.size() ? r.events[k].tokens : 0,
                      k < em.size() ? static_cast<long long>(em[k].t_ns) : 0LL, k < em.size() ? em[k].tokens : 0);
      }
      err.push_back(NanosToMillis(d));
    }
  }
  std::sort(err.begin(), err.end());
  std::printf("  %5d streams  interval %5.1f ms  events %7zu  p50 %7.3f ms  p99 %7.3f ms  max %8.3f ms  "
              "failed %lld%s\n",
              n, NanosToMillis(s.interval), err.size(), PercentileSorted(err, 50), PercentileSorted(err, 99),
              err.empty() ? 0.0 : err.back(), static_cast<long long>(st.failed),
              before ? "  (SOME STAMPS BEFORE THE WRITE)" : "");
  if (st.failed) std::printf("      first failure: %s\n", st.first_failure.c_str());
}

void Ingest(int threads, bool quick, int per_write) {
  testing::Script s;
  s.ttft = kMs;
  s.interval = 0;
  s.events = per_write > 1 ? (quick ? 2000 : 20000) : (quick ? 500 : 4000);
  s.events_per_write = per_write;
  s.usage_continuous = true;
  auto server = Server(s, threads, false);
  const int n = 256;
  RunStats st = Drive(server->base_url(), n, 1, 120 * kNanosPerSecond);
  const double wall_s = NanosToSeconds(st.wall), cpu_s = NanosToSeconds(st.client_cpu);
  std::printf("  %d streams x %d one-token events (%d per write, usage in every chunk)\n", n, s.events, per_write);
  std::printf("  tokens ingested          %lld in %.2f s  = %.0f tokens/s\n",
              static_cast<long long>(st.tokens), wall_s, st.tokens / wall_s);
  std::printf("  client CPU               %.2f s (%.0f %% of one core)\n", cpu_s, 100 * cpu_s / wall_s);
  std::printf("  client CPU per 1k tokens %.1f us\n", 1e6 * cpu_s / (st.tokens / 1000.0));
  std::printf("  one core at 100 %%        %.0f tokens/s (tokens / client CPU-seconds)\n", st.tokens / cpu_s);
  std::printf("  SSE events per wake-up   %.1f (%lld wake-ups)\n",
              st.wakeups ? static_cast<double>(st.events) / static_cast<double>(st.wakeups) : 0.0,
              static_cast<long long>(st.wakeups));
  if (st.failed) std::printf("  failed %lld: %s\n", static_cast<long long>(st.failed), st.first_failure.c_str());
}

void MostStreams(int threads, bool quick) {
  testing::Script s;
  s.interval = 50 * kMs;
  s.events = 5;
  std::vector<int> sizes = quick ? std::vector<int>{1000, 4000} : std::vector<int>{1000, 4000, 8000, 16000};
  int best = 0;
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  for (int n : sizes) {
    if (static_cast<rlim_t>(2 * n + 256) > rl.rlim_cur) {
      std::printf("  %6d streams: not tried (client and server in one process need %d file descriptors; "
                  "the limit here is %llu)\n",
                  n, 2 * n + 256, static_cast<unsigned long long>(rl.rlim_cur));
      break;
    }
    // Every stream holds its connection this long before streaming: long
    // enough for the last one to open while the first still waits.
    s.ttft = std::max<Nanos>(2 * kNanosPerSecond, static_cast<Nanos>(n) * kMs);
    auto server = Server(s, threads, false);
    RunStats st = Drive(server->base_url(), n, 1, 120 * kNanosPerSecond);
    const bool all = st.failed == 0 && server->max_connections() >= n;
    std::printf("  %6d streams: %s (server saw %lld at once, %.1f s, client CPU %.2f s)\n", n,
                all ? "all held" : "NOT all held", static_cast<long long>(server->max_connections()),
                NanosToSeconds(st.wall), NanosToSeconds(st.client_cpu));
    if (!all) {
      std::printf("      failed %lld; first: %s\n", static_cast<long long>(st.failed), st.first_failure.c_str());
      break;
    }
    best = n;
  }
  std::printf("  most concurrent streams held: %d (largest size tried that held)\n", best);
}

}  // namespace
}  // namespace frontier

int main(int argc, char** argv) {
  using namespace frontier;
  bool quick = false;
  std::string only;  // --only timestamps|ingest|ingest1|streams
  int cpus = static_cast<int>(std::thread::hardware_concurrency());
  int threads = std::max(1, cpus - 1);
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    if (!std::strcmp(argv[i], "--server-threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
  }
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);
  std::printf("loadgen_capacity: %d CPUs, server threads %d, client on CPU 0, open-file limit %llu\n", cpus,
              threads, static_cast<unsigned long long>(rl.rlim_cur));
  PinToCpu(0);
  auto want = [&](const char* phase) { return only.empty() || only == phase; };
  if (want("timestamps")) {
    std::printf("\n1. timestamp error (client stamp - server write)\n");
    for (int n : {1, 100, 1000, 4000}) TimestampError(n, threads, quick);
  }
  if (want("ingest")) {
    std::printf("\n2. ingest on one client thread\n");
    Ingest(threads, quick, 32);
  }
  if (want("ingest1")) {
    std::printf("\n2b. ingest, one event per write (one read per token: the client's worst case)\n");
    Ingest(threads, quick, 1);
  }
  if (want("streams")) {
    std::printf("\n3. concurrent streams\n");
    MostStreams(threads, quick);
  }
  return 0;
}
