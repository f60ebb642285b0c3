#include "sim/engine/engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "metrics/summary.h"
#include "sim/engine/testing.h"
#include "sim/simulate.h"

namespace frontier::sim {
namespace {

std::vector<workload::RequestSpec> Requests(int n, int input, int output) {
  std::vector<workload::RequestSpec> r(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) r[static_cast<size_t>(i)] = {i, input, output, {}, {}};
  return r;
}

// A config whose KV cache holds `tokens` tokens (block 16, 2 layers).
SimConfig SmallKv(int64_t tokens) {
  SimConfig c = testing::TinyConfig();
  const double per_token = c.memory.kv_bytes_per_token;
  c.memory.kv = static_cast<double>(tokens) * per_token;
  c.memory.kv_capacity_tokens = tokens;
  return c;
}

// 40 requests of 300 + 200 tokens, 32 pages of 16 tokens each (per layer),
// in a cache of 256 pages: never over capacity, every request finishes with
// all its tokens. Admitted by what they need now (the default), 13 prompts of
// 19 pages fit at first and preemption follows. With TensorRT-LLM's
// GUARANTEED_NO_EVICT (the stack's reserve_to_completion) a request is
// admitted only when the pages for its whole prompt and output are free
// beside what the running ones may still take: at most 8 run at once, 8 do,
// and none is ever preempted.
TEST(EngineTest, NeverOverKvCapacityEveryRequestFinishesAndPreemptionRecovers) {
  for (const bool reserve : {false, true}) {
    SimConfig c = SmallKv(4096);  // 256 pages per layer
    c.stack.reserve_to_completion = reserve;
    Engine e(c);
    const int n = 40;
    for (int i = 0; i < n; ++i) ASSERT_TRUE(e.Add(i, 300, 200).ok());
    std::map<int64_t, int32_t> emitted;
    int finished = 0;
    int steps = 0;
    int64_t most = 0;
    while (!e.Idle()) {
      Engine::Step s = e.RunStep();
      ASSERT_GT(s.duration_ns, 0);
      const EngineStats st = e.stats();
      ASSERT_LE(st.kv_blocks_used, st.kv_blocks_total);
      most = std::max(most, st.running);
      for (const auto& em : s.emissions) {
        emitted[em.id] += em.tokens;
        if (em.finished) ++finished;
      }
      ASSERT_LT(++steps, 100000);
    }
    EXPECT_EQ(finished, n);
    for (int i = 0; i < n; ++i) EXPECT_EQ(emitted[i], 200) << i;
    EXPECT_EQ(e.stats().kv_blocks_used, 0);
    if (reserve) {
      EXPECT_EQ(most, 8);
      EXPECT_EQ(e.stats().preemptions, 0);
    } else {
      EXPECT_EQ(most, 13);
      EXPECT_GT(e.stats().preemptions, 0);  // 40 x 500 tokens cannot all fit in 4096
    }
  }
}

TEST(EngineTest, FirstComeFirstServedAdmission) {
  // Room for 4 running sequences: requests must start in arrival order.
  SimConfig c = testing::TinyConfig();
  c.max_num_seqs = 4;
  Engine e(c);
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(e.Add(i, 100 + 37 * (i % 5), 50).ok());
  std::vector<int64_t> first_order;
  while (!e.Idle()) {
    for (const auto& em : e.RunStep().emissions)
      if (em.first) first_order.push_back(em.id);
  }
  ASSERT_EQ(first_order.size(), 12u);
  for (size_t i = 1; i < first_order.size(); ++i) EXPECT_LT(first_order[i - 1], first_order[i]);
}

TEST(EngineTest, ChunkedPrefillRespectsTheTokenBudget) {
  SimConfig c = testing::TinyConfig();
  c.max_num_batched_tokens = 512;
  Engine e(c);
  ASSERT_TRUE(e.Add(0, 2000, 4).ok());
  ASSERT_TRUE(e.Add(1, 10, 4).ok());
  int steps_to_first = 0;
  bool first = false;
  while (!first) {
    Engine::Step s = e.RunStep();
    EXPECT_LE(s.shape.tokens(), 512);
    ++steps_to_first;
    for (const auto& em : s.emissions) first |= (em.id == 0 && em.first);
  }
  EXPECT_EQ(steps_to_first, 4);  // 2000 tokens in chunks of 512
}

// The four prompt-scheduling modes (stack.h PrefillMode) on one hand-built
// step: request A is decoding, B and C (300-token prompts) wait, the budget
// is 512 tokens. Chunked and mixed: A's token, B whole, C's first 211
// tokens. Whole and mixed: A's token and B (C does not fit and waits).
// Chunked and separate: prompts only, B and C's first 212 tokens. Whole and
// separate: B alone.
TEST(EngineTest, EachPrefillModeBuildsTheHandComputedStep) {
  struct Case {
    bool chunked, mixed;
    int64_t tokens, decode_seqs, prefill_tokens;
  };
  for (const Case& k : {Case{true, true, 512, 1, 511}, Case{false, true, 301, 1, 300},
                        Case{true, false, 512, 0, 512}, Case{false, false, 300, 0, 300}}) {
    SCOPED_TRACE(std::string(k.chunked ? "chunked" : "whole") + (k.mixed ? "-mixed" : "-separate"));
    SimConfig c = testing::TinyConfig();
    c.max_num_batched_tokens = 512;
    c.chunked_prefill = k.chunked;
    c.mixed_prefill = k.mixed;
    Engine e(c);
    ASSERT_TRUE(e.Add(0, 10, 20).ok());
    Engine::Step first = e.RunStep();  // A's prompt, whole, and its first token
    EXPECT_EQ(first.shape.prefill_tokens, 10);
    ASSERT_TRUE(e.Add(1, 300, 4).ok());
    ASSERT_TRUE(e.Add(2, 300, 4).ok());
    Engine::Step s = e.RunStep();
    EXPECT_EQ(s.shape.tokens(), k.tokens);
    EXPECT_EQ(s.shape.decode_seqs, k.decode_seqs);
    EXPECT_EQ(s.shape.prefill_tokens, k.prefill_tokens);
  }
}

TEST(EngineTest, RejectsWhatCanNeverFitAndCancelFrees) {
  Engine e(SmallKv(1024));
  Status s = e.Add(0, 1000, 100);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_FALSE(e.Add(1, 0, 10).ok());
  ASSERT_TRUE(e.Add(2, 500, 100).ok());
  EXPECT_FALSE(e.Add(2, 5, 5).ok());  // duplicate id
  e.RunStep();
  EXPECT_GT(e.stats().kv_blocks_used, 0);
  e.Cancel(2);
  EXPECT_EQ(e.stats().kv_blocks_used, 0);
  EXPECT_TRUE(e.Idle());
}

TEST(EngineTest, SpeculativeDecodingEmitsTheAcceptanceLength) {
  SimConfig c = testing::TinyConfig();
  c.spec_tokens = 3;
  c.acceptance = 2.5;
  Engine e(c);
  ASSERT_TRUE(e.Add(0, 64, 1001).ok());
  std::vector<int32_t> chunks;
  while (!e.Idle())
    for (const auto& em : e.RunStep().emissions) chunks.push_back(em.tokens);
  // First token from prefill, then 1000 tokens at 2.5 per step (2, 3, 2, 3, ...).
  ASSERT_EQ(chunks.size(), 1u + 400u);
  EXPECT_EQ(chunks[0], 1);
  int total = 0;
  for (size_t i = 1; i < chunks.size(); ++i) {
    EXPECT_TRUE(chunks[i] == 2 || chunks[i] == 3);
    total += chunks[i];
  }
  EXPECT_EQ(total, 1000);
}

// Little's law, L = lambda W: with a closed loop of C requests the mean number
// in the system is C (apart from the final drain), so throughput x mean
// latency must come back to C.
// RunDecodeSteps plans, at once, exactly the steps RunStep plans one by one:
// an engine that takes every run it is offered and one that only steps keep
// the same durations, emissions and pages. The KV cache is small enough that
// pages run short (runs are then refused and requests preempted), and the
// runs' horizon varies, so runs end at the horizon as well as before a finish.
TEST(EngineTest, DecodeRunsAreTheStepsRunStepPlansOneByOne) {
  const SimConfig c = SmallKv(6000);
  Engine runs(c), steps(c);
  const int n = 48;
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(runs.Add(i, 40 + 29 * (i % 7), 30 + 53 * (i % 5)).ok());
    ASSERT_TRUE(steps.Add(i, 40 + 29 * (i % 7), 30 + 53 * (i % 5)).ok());
  }
  Engine::Step a, b;
  std::vector<Nanos> durations;
  int64_t run_steps = 0, refused = 0, planned = 0;
  for (int k = 0; !runs.Idle(); ++k) {
    ASSERT_LT(k, 100000);
    const Nanos before = k % 3 == 0 ? Engine::kNever : 150'000 * (1 + k % 4);  // tiny model: ~70 us a step
    const int64_t m = runs.RunDecodeSteps(before, &a, &durations);
    if (m == 0) {
      ++refused;
      runs.RunStep(&a);
      steps.RunStep(&b);
      ASSERT_EQ(a.duration_ns, b.duration_ns);
      ASSERT_EQ(a.emissions.size(), b.emissions.size());
      for (size_t i = 0; i < a.emissions.size(); ++i) {
        ASSERT_EQ(a.emissions[i].id, b.emissions[i].id);
        ASSERT_EQ(a.emissions[i].tokens, b.emissions[i].tokens);
        ASSERT_EQ(a.emissions[i].first, b.emissions[i].first);
        ASSERT_EQ(a.emissions[i].finished, b.emissions[i].finished);
      }
    } else {
      ASSERT_EQ(static_cast<int64_t>(durations.size()), m);
      Nanos total = 0;
      for (int64_t j = 0; j < m; ++j) {
        steps.RunStep(&b);
        if (j == 0) {
          EXPECT_EQ(b.shape.decode_keys_full, a.shape.decode_keys_full);
        }
        ASSERT_EQ(durations[static_cast<size_t>(j)], b.duration_ns) << "step " << j << " of a run of " << m;
        ASSERT_EQ(b.shape.prefill_tokens, 0);
        ASSERT_EQ(b.emissions.size(), a.emissions.size());
        for (size_t i = 0; i < b.emissions.size(); ++i) {
          ASSERT_EQ(b.emissions[i].id, a.emissions[i].id);
          ASSERT_EQ(b.emissions[i].tokens, 1);
          ASSERT_FALSE(b.emissions[i].first || b.emissions[i].finished);
        }
        total += b.duration_ns;
      }
      EXPECT_LT(total, before);
      EXPECT_EQ(a.duration_ns, total);
      run_steps += m;
    }
    ++planned;
    const EngineStats x = runs.stats(), y = steps.stats();
    ASSERT_EQ(x.steps, y.steps);
    ASSERT_EQ(x.kv_blocks_used, y.kv_blocks_used);
    ASSERT_EQ(x.preemptions, y.preemptions);
    ASSERT_EQ(x.running, y.running);
    ASSERT_EQ(runs.kv_usage(), steps.kv_usage());
  }
  EXPECT_TRUE(steps.Idle());
  EXPECT_EQ(runs.stats().finished, n);
  EXPECT_GT(steps.stats().preemptions, 0);  // pages ran short
  const int64_t runs_planned = planned - refused;
  EXPECT_GT(runs_planned, 10);
  EXPECT_GT(run_steps, 2 * runs_planned);  // runs of several steps
  EXPECT_GT(refused, n);                   // prompts, finishes and page shortages
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
// 8 in flight, on the tiny model (sim/testing.h) with an instantaneous client
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

}  // namespace
}  // namespace frontier::sim
