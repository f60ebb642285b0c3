// simulate_test.cc: whole runs through Simulate() and SimTarget on the tiny
// hand-computable model (sim/engine/testing.h): Little's law, the offline
// rate, records shaped like a measured run, the client round trip, decode
// runs against step-by-step planning, prefix-cache hits through the target.
#include "sim/simulate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "metrics/summary.h"
#include "sim/engine/testing.h"
#include "sim/sim_target.h"

namespace frontier::sim {
namespace {

std::vector<workload::RequestSpec> Requests(int n, int input, int output) {
  std::vector<workload::RequestSpec> r(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) r[static_cast<size_t>(i)] = {i, input, output, {}, {}};
  return r;
}

std::vector<int32_t> Tokens(int32_t first, int n) {
  std::vector<int32_t> t(static_cast<size_t>(n));
  std::iota(t.begin(), t.end(), first);
  return t;
}

TEST(SimulateTest, LittlesLawOnAClosedLoop) {
  const SimConfig c = testing::TinyConfig();
  for (int64_t conc : {1, 8, 32}) {
    workload::LoadOptions load;
    load.max_concurrency = conc;
    load.num_prompts = 800;
    Result<RunResult> run = Simulate(c, Requests(800, 200, 100), load);
    ASSERT_TRUE(run.ok());
    metrics::SummaryOptions so;
    const metrics::Summary s = metrics::Summarize(*run, so);
    ASSERT_EQ(s.completed, 800);
    const double l = s.request_throughput * s.e2el_ms.mean / 1000.0;
    EXPECT_NEAR(l, static_cast<double>(conc), conc * 0.03) << "concurrency " << conc;
    EXPECT_EQ(s.max_concurrent_requests, conc);
  }
}

// Open loop: L = lambda W with the offered Poisson rate, measured as the
// time-average of requests in flight.
TEST(SimulateTest, LittlesLawOnAPoissonArrivalStream) {
  const SimConfig c = testing::TinyConfig();
  workload::LoadOptions load;
  load.request_rate = 200;
  load.seed = 3;
  load.num_prompts = 4000;
  Result<RunResult> run = Simulate(c, Requests(4000, 200, 50), load);
  ASSERT_TRUE(run.ok());
  double busy_ns = 0;
  Nanos t_end = 0;
  for (const auto& r : run->requests) {
    ASSERT_TRUE(r.ok);
    busy_ns += static_cast<double>(r.end_ns - r.sent_ns);
    t_end = std::max(t_end, r.end_ns);
  }
  const double mean_in_system = busy_ns / static_cast<double>(t_end);
  const double mean_latency_s = busy_ns / 4000 / 1e9;
  EXPECT_NEAR(mean_in_system, 200 * mean_latency_s, 200 * mean_latency_s * 0.05);
}

// The steady state of an Offline run (every prompt queued at once) capped at
// 8 in flight, on the tiny model (sim/engine/testing.h) with an instantaneous client
// (a replacement joins the step that starts when its slot frees). The 8
// requests of a batch start and end together: one prefill step of 8 x 16
// prompt tokens (which makes each one's first token), then 63 decode steps of
// 8 tokens. Worked out by hand from the roofline of step_model_test.cc:
//   decode step: weights read once, 2 layers x (4 x 1024^2 + 3 x 1024 x 4096)
//     x 2 B + LM head 1000 x 1024 x 2 B = 69,156,864 B; per token 96,160 B of
//     activations (8,192 + 57,344 + 8,192 + 6,048 + 16,384) and 8,192 B per
//     key; token j = 2..64 reads 15 + j keys: 17 .. 79, 48 on average. 63
//     steps: 63 x 69,156,864 + 8 x (63 x 96,160 + 8,192 x 63 x 48)
//     = 4,603,527,936 B at 1 TB/s = 4,603.5 us (memory-bound: 0.55 GFLOP a step)
//   prefill step: 128 tokens, compute-bound in the projections and MLP:
//     2 x 128 x (4,194,304 + 12,582,912) x 2 layers FLOPs = 8.59 GFLOP at
//     100 TFLOPS = 85.9 us, plus LM head, norms and attention (~4 us)
//   a batch: 512 tokens in 4,603.5 + 89.9 = 4,693.4 us -> 109,089 tok/s.
// The hand count rounds the prefill's small terms (LM head, norms, the
// prompt's attention) and the span's edges cut batches, hence the 0.5%
// tolerance (the simulator gives 109,026 tok/s). 804 prompts: the last 4
// run alone (half the batch), a drain the whole-run figure includes and the
// steady one does not.
TEST(SimulateTest, SteadyThroughputOfAnOfflineRunIsTheHandComputedRate) {
  const SimConfig c = testing::TinyConfig();
  workload::LoadOptions load;
  load.max_concurrency = 8;
  load.num_prompts = 804;
  SimulateOptions so_sim;
  so_sim.client_rtt_ns = 0;
  Result<RunResult> run = Simulate(c, Requests(804, 16, 64), load, so_sim);
  ASSERT_TRUE(run.ok());
  const metrics::Summary s = metrics::Summarize(*run, metrics::SummaryOptions{});
  ASSERT_EQ(s.completed, 804);
  const metrics::Timeslices& t = s.timeslices;
  ASSERT_TRUE(t.steady);
  EXPECT_NEAR(t.plateau_in_flight, 8, 1e-9);
  const double hand = 512 / ((4'603'527'936.0 / 1e12) + 89.9e-6);
  EXPECT_NEAR(t.steady_output_throughput, hand, hand * 0.005);
  EXPECT_LT(s.output_throughput, t.steady_output_throughput);
  EXPECT_EQ(t.slices.front().phase, metrics::Phase::kSteady);  // no ramp-up: all 8 start at once
  EXPECT_EQ(t.slices.back().phase, metrics::Phase::kRampDown);
}

TEST(SimulateTest, RecordsLookLikeAMeasuredRun) {
  const SimConfig c = testing::TinyConfig();
  workload::LoadOptions load;
  load.max_concurrency = 4;
  load.warmup = 2;
  load.num_prompts = 8;  // measured, after the 2 warm-up requests
  Result<RunResult> run = Simulate(c, Requests(10, 128, 16), load);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->source, RunSource::kSimulated);
  ASSERT_EQ(run->requests.size(), 10u);
  EXPECT_TRUE(run->requests[0].warmup);
  EXPECT_FALSE(run->requests[2].warmup);
  for (const auto& r : run->requests) {
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.output_tokens, 16);
    EXPECT_EQ(r.events.size(), 16u);
    EXPECT_LE(r.scheduled_ns, r.sent_ns);
    EXPECT_LT(r.sent_ns, r.first_token_ns);
    EXPECT_EQ(r.end_ns, r.events.back().t_ns);
    for (size_t i = 1; i < r.events.size(); ++i) EXPECT_LT(r.events[i - 1].t_ns, r.events[i].t_ns);
  }
  // Warm-up is its own phase (loadgen/runner.h): the measured requests start
  // when the last warm-up request ended.
  const Nanos warm_end = std::max(run->requests[0].end_ns, run->requests[1].end_ns);
  EXPECT_EQ(run->requests[2].sent_ns, warm_end);
  EXPECT_EQ(run->requests[5].sent_ns, warm_end);
  // With the cap, request 6 waits for the first measured slot to free.
  EXPECT_EQ(run->requests[6].sent_ns, std::min({run->requests[2].end_ns, run->requests[3].end_ns,
                                                 run->requests[4].end_ns, run->requests[5].end_ns}));
}

// More load never lowers throughput or raises interactivity in a closed loop.
TEST(SimulateTest, ThroughputRisesAndInteractivityFallsWithConcurrency) {
  const SimConfig c = testing::TinyConfig();
  double last_tput = 0, last_inter = 1e18;
  for (int64_t conc : {1, 2, 4, 8, 16, 32, 64}) {
    workload::LoadOptions load;
    load.max_concurrency = conc;
    Result<RunResult> run = Simulate(c, Requests(256, 512, 64), load);
    ASSERT_TRUE(run.ok());
    const metrics::Summary s = metrics::Summarize(*run, metrics::SummaryOptions{});
    EXPECT_GE(s.output_throughput, last_tput * 0.999) << conc;
    EXPECT_LE(s.interactivity, last_inter * 1.001) << conc;
    last_tput = s.output_throughput;
    last_inter = s.interactivity;
  }
}

TEST(SimulateTest, DurationCyclesTheWorkload) {
  const SimConfig c = testing::TinyConfig();
  workload::LoadOptions load;
  load.max_concurrency = 4;
  load.duration_s = 0.5;
  load.num_prompts = std::numeric_limits<int64_t>::max();
  Result<RunResult> run = Simulate(c, Requests(10, 64, 8), load);
  ASSERT_TRUE(run.ok());
  EXPECT_GT(run->requests.size(), 10u);
  for (const auto& r : run->requests) EXPECT_LE(r.sent_ns, SecondsToNanos(0.5));
}

// The closed loop's turnaround, as frontier serve and real servers order it:
// request 1 finishes at the end of a step at T and the client sends request 2
// then; the engine has already started its next step at T (request 0 keeps it
// busy), so request 2, arriving rtt later, joins the step after that. With an
// instantaneous client (rtt 0) it makes the step starting at T. Request 0
// emits a token every step, so its events are the step boundaries.
// The simulator delivers steady decode steps in runs; with a step trace
// (which records every step) it plans them one by one. Both give the same
// records, to the nanosecond, and the same statistics: closed loops (short
// and long round trips), an open loop and a capped engine with a queue.
TEST(SimulateTest, RunsOfDecodeStepsGiveTheRecordsOfStepByStepPlanning) {
  SimConfig capped = testing::TinyConfig();
  capped.max_num_seqs = 6;
  std::vector<workload::RequestSpec> reqs = Requests(300, 100, 10);
  for (size_t i = 0; i < reqs.size(); ++i) {
    reqs[i].input_len = 20 + static_cast<int32_t>(i * 37 % 300);
    reqs[i].output_len = 1 + static_cast<int32_t>(i * 53 % 200);
  }
  struct Case {
    SimConfig config;
    int64_t concurrency;
    double rate;
    Nanos rtt;
  };
  const Case cases[] = {{testing::TinyConfig(), 1, 0, kDefaultClientRttNs},
                        {testing::TinyConfig(), 16, 0, 0},
                        {testing::TinyConfig(), 16, 0, 500'000},
                        {testing::TinyConfig(), 0, 800, kDefaultClientRttNs},
                        {capped, 32, 0, kDefaultClientRttNs}};
  for (const Case& k : cases) {
    workload::LoadOptions load;
    load.num_prompts = 300;
    if (k.concurrency > 0) load.max_concurrency = k.concurrency;
    if (k.rate > 0) load.request_rate = k.rate;
    SimulateOptions runs, steps;
    runs.client_rtt_ns = steps.client_rtt_ns = k.rtt;
    StepTrace trace;
    steps.trace = &trace;
    SimulationStats x, y;
    Result<RunResult> a = Simulate(k.config, reqs, load, runs, &x);
    Result<RunResult> b = Simulate(k.config, reqs, load, steps, &y);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->requests.size(), b->requests.size());
    for (size_t i = 0; i < a->requests.size(); ++i) {
      const RequestRecord &r = a->requests[i], &s = b->requests[i];
      ASSERT_TRUE(r.ok);
      ASSERT_EQ(r.id, s.id);
      ASSERT_EQ(r.sent_ns, s.sent_ns);
      ASSERT_EQ(r.first_token_ns, s.first_token_ns);
      ASSERT_EQ(r.end_ns, s.end_ns);
      ASSERT_EQ(r.output_tokens, s.output_tokens);
      ASSERT_EQ(r.events.size(), s.events.size());
      for (size_t j = 0; j < r.events.size(); ++j) {
        ASSERT_EQ(r.events[j].t_ns, s.events[j].t_ns) << "request " << r.id << " event " << j;
        ASSERT_EQ(r.events[j].tokens, s.events[j].tokens);
      }
    }
    EXPECT_EQ(x.steps, y.steps);
    EXPECT_EQ(x.preemptions, y.preemptions);
    EXPECT_EQ(x.mean_batch_tokens, y.mean_batch_tokens);
    EXPECT_EQ(x.mean_running, y.mean_running);
    EXPECT_EQ(x.peak_kv_usage, y.peak_kv_usage);
    EXPECT_EQ(x.busiest_decode.decode_seqs, y.busiest_decode.decode_seqs);
    EXPECT_EQ(x.busiest_decode.decode_keys_full, y.busiest_decode.decode_keys_full);
    EXPECT_GT(x.steps, 1000);
  }
}

TEST(SimulateTest, ClosedLoopReplacementArrivesAClientRoundTripAfterTheFinish) {
  const SimConfig c = testing::TinyConfig();
  const std::vector<workload::RequestSpec> reqs = {{0, 64, 200, {}, {}}, {1, 64, 3, {}, {}}, {2, 64, 3, {}, {}}};
  workload::LoadOptions load;
  load.max_concurrency = 2;
  struct Outcome {
    std::vector<Nanos> bounds;  // step ends
    size_t finish = 0;          // index in bounds of request 1's finish (T)
    size_t first = 0;           // index in bounds of request 2's first token
    Nanos sent = 0;             // request 2's send time
  };
  auto run_with = [&](Nanos rtt) {
    SimulateOptions o;
    o.client_rtt_ns = rtt;
    Result<RunResult> run = Simulate(c, reqs, load, o);
    EXPECT_TRUE(run.ok());
    Outcome out;
    for (const auto& e : run->requests[0].events) out.bounds.push_back(e.t_ns);
    auto index_of = [&](Nanos t) {
      const auto it = std::find(out.bounds.begin(), out.bounds.end(), t);
      EXPECT_NE(it, out.bounds.end());
      return static_cast<size_t>(it - out.bounds.begin());
    };
    for (const auto& r : run->requests) EXPECT_TRUE(r.ok);
    out.sent = run->requests[2].sent_ns;
    EXPECT_EQ(out.sent, run->requests[1].end_ns);  // sent as the slot frees
    EXPECT_EQ(run->requests[0].sent_ns, 0);
    EXPECT_EQ(run->requests[0].first_token_ns, out.bounds[0]);
    out.finish = index_of(run->requests[1].end_ns);
    out.first = index_of(run->requests[2].first_token_ns);
    if (rtt % 1000 == 0) {
      EXPECT_EQ(run->effective_settings.at("client_rtt_us"), std::to_string(rtt / 1000));
    }
    return out;
  };
  // Instantaneous client: the step starting at T carries request 2's prompt.
  const Outcome zero = run_with(0);
  EXPECT_EQ(zero.finish, 2u);  // prefill step, then two decode steps
  EXPECT_EQ(zero.first, zero.finish + 1);

  // 20 us, shorter than a decode step of request 0 alone: the step after next.
  const Outcome small = run_with(20'000);
  ASSERT_EQ(small.finish, 2u);
  const Nanos decode_step = small.bounds[3] - small.bounds[2];  // request 0 alone
  ASSERT_GT(decode_step, 20'000);
  EXPECT_EQ(small.first, small.finish + 2);
  EXPECT_EQ(small.bounds[0], 20'000 + zero.bounds[0]);  // every request reaches the engine rtt after it is sent
  EXPECT_EQ(small.sent, 20'000 + zero.sent);

  // Arriving exactly as a step ends, it joins the step planned after that one;
  // a nanosecond earlier, it makes it.
  EXPECT_EQ(run_with(decode_step).first, 5u);
  EXPECT_EQ(run_with(decode_step - 1).first, 4u);

  // The default round trip (longer than this tiny model's 70 us step): request
  // 2 joins the first step that starts after it arrives.
  EXPECT_GT(kDefaultClientRttNs, 0);
  Result<RunResult> def = Simulate(c, reqs, load);
  ASSERT_TRUE(def.ok());
  const auto& b = def->requests[0].events;
  const Nanos arrival = def->requests[2].sent_ns + kDefaultClientRttNs;
  const auto start = std::upper_bound(b.begin(), b.end(), arrival, [](Nanos t, const TokenEvent& e) { return t < e.t_ns; });
  ASSERT_TRUE(start != b.end() && start + 1 != b.end());
  EXPECT_EQ(def->requests[2].first_token_ns, (start + 1)->t_ns);
  EXPECT_GT(start - b.begin(), 3);  // later than with a 20 us round trip

  SimulateOptions bad;
  bad.client_rtt_ns = -1;
  EXPECT_FALSE(Simulate(c, reqs, load, bad).ok());
}

TEST(SimTargetPrefixCacheTest, SameRequestsRepeatedGiveTheHandComputedHitRate) {
  // Four identical 64-token prompts one after another (concurrency 1): the
  // first misses, each later one hits 3 of its 4 blocks: 144 / 256.
  std::vector<workload::RequestSpec> specs(4);
  for (int i = 0; i < 4; ++i) {
    specs[i].id = i;
    specs[i].input_len = 64;
    specs[i].output_len = 1;
    specs[i].prompt_token_ids = Tokens(100, 64);
    specs[i].want_output_ids = i == 0;
  }
  workload::LoadOptions load;
  load.max_concurrency = 1;
  load.num_prompts = 4;
  SimulationStats st;
  Result<RunResult> run = Simulate(testing::TinyConfig(), specs, load, &st);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(st.prefix_queries, 256);
  EXPECT_EQ(st.prefix_hits, 144);
  EXPECT_DOUBLE_EQ(st.prefix_hit_rate(), 144.0 / 256.0);
  // The first request asked for its answer's ids: one token, the target's own.
  const RequestRecord* first = nullptr;
  for (const auto& r : run->requests)
    if (r.id == 0) first = &r;
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->output_token_ids, SimTarget::SyntheticOutputIds(specs[0].prompt_token_ids, 1, 1000));
  for (const auto& r : run->requests)
    if (r.id != 0) {
      EXPECT_TRUE(r.output_token_ids.empty());
    }
  // Later requests' first tokens come sooner: 16 tokens prefilled, not 64.
  ASSERT_EQ(run->requests.size(), 4u);
  const auto ttft = [](const RequestRecord& r) { return r.first_token_ns - r.sent_ns; };
  for (const auto& r : run->requests)
    if (r.id != 0) {
      EXPECT_LT(ttft(r), ttft(*first));
    }
}

}  // namespace
}  // namespace frontier::sim
