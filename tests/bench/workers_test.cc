// loadgen::WorkerPool behind the one timing core: the closed loop's slots are
// split evenly, open-loop arrivals keep their planned times, every request
// comes back exactly once, and an abort ends what every worker holds.
#include <gtest/gtest.h>

#include <numeric>
#include <set>

#include "client_test_util.h"
#include "loadgen/runner.h"
#include "loadgen/worker_pool.h"

namespace frontier {
namespace {

std::vector<workload::RequestSpec> Specs(int n) {
  std::vector<workload::RequestSpec> specs(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    specs[static_cast<size_t>(i)].id = i;
    specs[static_cast<size_t>(i)].input_len = 4;
    specs[static_cast<size_t>(i)].output_len = 5;
    specs[static_cast<size_t>(i)].prompt_token_ids = {101, 102, 103, 104};
  }
  return specs;
}

std::unique_ptr<ScriptedServer> FastServer() {
  return StartServer([](const testing::RequestInfo&) {
    Script s;
    s.ttft = 2 * kMs;
    s.interval = kMs;
    s.events = 5;
    return s;
  });
}

TEST(WorkerPool, ClosedLoopSlotsAreSplitAndEveryRequestEndsOnce) {
  auto server = FastServer();
  ClientOptions o;
  o.base_url = server->base_url();
  auto pool = loadgen::WorkerPool::Create(o, 3);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  const auto specs = Specs(90);
  workload::LoadOptions load;
  load.num_prompts = 90;
  load.max_concurrency = 6;
  auto run = loadgen::RunLoad(**pool, specs, load, loadgen::RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  std::set<int64_t> ids;
  for (const auto& r : run->requests) {
    EXPECT_TRUE(r.ok) << r.id << " " << r.failure << " " << r.failure_detail;
    EXPECT_EQ(r.output_tokens, 5);
    ids.insert(r.id);
  }
  EXPECT_EQ(ids.size(), 90u);
  const auto dealt = (*pool)->Dealt();
  EXPECT_EQ(std::accumulate(dealt.begin(), dealt.end(), int64_t{0}), 90);
  for (int64_t d : dealt) EXPECT_GT(d, 0);
  // Dealt to the least loaded under a cap of 6: no worker ever held more than 6 / 3.
  for (int64_t m : (*pool)->MaxInFlight()) EXPECT_LE(m, 2);
  EXPECT_EQ(run->served_model, "scripted-model");
}

TEST(WorkerPool, OpenLoopKeepsThePlanAndAbortEndsEveryWorkersRequests) {
  // Requests 6-9 stall after one event: a stop must end them on every worker.
  auto server = StartServer([](const testing::RequestInfo& info) {
    Script s;
    s.ttft = s.interval = kMs;
    s.events = 3;
    const std::string id = info.Header("x-request-id");
    if (!id.empty() && std::stoi(id.substr(id.find('-') + 1)) >= 6) {
      s.fault = Fault::kStall;
      s.fault_after = 1;
    }
    return s;
  });
  ClientOptions o;
  o.base_url = server->base_url();
  o.total_timeout = 20 * kNanosPerSecond;  // never hang the suite, should the stop not come
  auto pool = loadgen::WorkerPool::Create(o, 2);
  ASSERT_TRUE(pool.ok());
  const auto specs = Specs(10);
  workload::LoadOptions load;
  load.num_prompts = 10;
  load.request_rate = 200;  // planned sends 5 ms apart on average
  std::atomic<bool> stop{false};
  class StopWhenStalled final : public loadgen::Observer {
   public:
    explicit StopWhenStalled(std::atomic<bool>* s) : stop_(s) {}
    void OnProgress(const loadgen::Progress& p) override {
      if (p.issued == 10 && p.completed == 6) stop_->store(true);
    }
   private:
    std::atomic<bool>* stop_;
  } observer(&stop);
  loadgen::RunOptions ro;
  ro.grace = 50 * kMs;
  ro.progress_interval = kMs;
  auto run = loadgen::RunLoad(**pool, specs, load, ro, &observer, &stop);
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->interrupted);
  int ok = 0, interrupted = 0;
  for (const auto& r : run->requests) {
    if (r.ok) ++ok;
    if (r.failure == failure::kInterrupted) ++interrupted;
    EXPECT_GE(r.sent_ns, r.scheduled_ns) << "sent before its planned time";
  }
  EXPECT_EQ(ok, 6);
  EXPECT_EQ(interrupted, 4);
  const auto dealt = (*pool)->Dealt();
  EXPECT_EQ(dealt[0] + dealt[1], 10);
}

}  // namespace
}  // namespace frontier
