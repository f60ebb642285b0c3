// worker_pool.h: a Target (target.h) that spreads requests over N event
// loops on N threads, each owning its streams (`frontier bench --workers N`).
//
// The timing core (RunLoad) stays one and single-threaded: it decides when
// every request is issued from the one precomputed schedule, under the one
// concurrency cap, with the one warm-up, duration and SIGINT logic. The pool
// only deals each issued request to the worker with the fewest requests in
// flight (ties to the lowest index), so open-loop arrivals are dealt from the
// one schedule and a closed loop's slots are split evenly (no worker holds
// more than ceil(cap / N)). Each worker runs its own StreamClient: it stamps
// its own sends and reads, and hands back whole RequestRecords, which RunLoad
// merges into one result (so percentiles are exact, never merged histograms).
//
//   auto pool = WorkerPool::Create(client_options, 4);
//   RunLoad(**pool, specs, load, run, observer, stop);
//
// Crossing threads costs one queue push and one eventfd write per request
// each way, never per token.
//
// Thread safety: as Target (driven from one thread); the workers are
// internal.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/stream_client.h"
#include "loadgen/target.h"

namespace frontier::loadgen {

class WorkerPool final : public Target {
 public:
  // `workers` >= 1. InvalidArgument naming the flag for bad client options.
  static Result<std::unique_ptr<WorkerPool>> Create(const client::ClientOptions& options, int workers);
  ~WorkerPool() override;  // stops and joins the workers (their requests are dropped)

  std::string Name() const override { return "http"; }
  void Issue(int64_t id, const workload::RequestSpec& spec) override;
  void Poll(Nanos deadline, CompletionSink& sink) override;
  void AbortAll(const char* reason, CompletionSink& sink) override;
  size_t InFlight() const override { return in_flight_total_; }
  // Cancellation is not supported across the workers' threads, nor are the
  // answers of growing sessions carried (no TextAnswers): RunBenchmark
  // refuses both (use one worker).
  std::string ServedModel() const override;
  void Describe(RunResult* run) const override;

  int workers() const { return static_cast<int>(workers_.size()); }
  // Requests each worker was dealt so far, and the most it held in flight at
  // once (for tests and benchmarks).
  std::vector<int64_t> Dealt() const;
  std::vector<int64_t> MaxInFlight() const;

 private:
  struct Worker;
  WorkerPool() = default;
  void Run(Worker& w);

  std::vector<std::unique_ptr<Worker>> workers_;
  client::ClientOptions options_;
  size_t in_flight_total_ = 0;  // the timing core's thread only

  // Completions from every worker, guarded by mu_.
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::pair<int, RequestRecord>> done_;
  std::string served_model_;
};

}  // namespace frontier::loadgen
