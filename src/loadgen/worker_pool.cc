#include "loadgen/worker_pool.h"

#include <algorithm>

#include "loadgen/http_target.h"

namespace frontier::loadgen {

struct WorkerPool::Worker {
  int index = 0;
  std::unique_ptr<client::StreamClient> client;
  std::thread thread;
  int64_t in_flight = 0;  // the timing core's count of what it dealt here and has not had back
  int64_t dealt = 0;
  int64_t max_in_flight = 0;
  // Inbox, guarded by mu.
  std::mutex mu;
  std::vector<std::pair<int64_t, const workload::RequestSpec*>> inbox;
  const char* abort_reason = nullptr;  // set: end everything in flight with this reason
  bool stop = false;
  bool aborted = false;  // the abort was carried out
};

Result<std::unique_ptr<WorkerPool>> WorkerPool::Create(const client::ClientOptions& options, int workers) {
  if (workers < 1) return InvalidArgument("--workers must be at least 1 (or auto), got " + std::to_string(workers));
  std::unique_ptr<WorkerPool> pool(new WorkerPool());
  pool->options_ = options;
  for (int i = 0; i < workers; ++i) {
    auto w = std::make_unique<Worker>();
    w->index = i;
    FRONTIER_ASSIGN_OR_RETURN(w->client, client::StreamClient::Create(options));
    pool->workers_.push_back(std::move(w));
  }
  for (auto& w : pool->workers_) {
    Worker* raw = w.get();
    w->thread = std::thread([p = pool.get(), raw] { p->Run(*raw); });
  }
  return pool;
}

WorkerPool::~WorkerPool() {
  for (auto& w : workers_) {
    {
      std::lock_guard<std::mutex> lock(w->mu);
      w->stop = true;
    }
    w->client->Wake();
  }
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
}

void WorkerPool::Run(Worker& w) {
  std::vector<std::pair<int64_t, const workload::RequestSpec*>> batch;
  std::vector<RequestRecord> ended;
  auto collect = [&ended](RequestRecord&& r) { ended.push_back(std::move(r)); };
  bool model_reported = false;
  while (true) {
    const char* abort_reason = nullptr;
    {
      std::lock_guard<std::mutex> lock(w.mu);
      if (w.stop) return;
      batch.swap(w.inbox);
      abort_reason = w.abort_reason;
      w.abort_reason = nullptr;
    }
    for (const auto& [id, spec] : batch) {
      client::StreamRequest r;
      r.id = id;
      r.prompt_token_ids = spec->prompt_token_ids;
      r.prompt_text = spec->prompt_text;
      r.max_tokens = spec->output_len;
      w.client->Start(r);
    }
    batch.clear();
    if (abort_reason) {
      w.client->AbortAll(abort_reason, collect);
    } else {
      // Until an event, a Wake() (new work, an abort, a stop) or 50 ms.
      w.client->Poll(SteadyClock::MonotonicNow() + 50 * kNanosPerMilli, collect);
    }
    const std::string& model = w.client->served_model();
    const bool new_model = !model_reported && !model.empty();
    if (!ended.empty() || abort_reason || new_model) {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& r : ended) done_.emplace_back(w.index, std::move(r));
      if (new_model) {
        model_reported = true;
        if (served_model_.empty()) served_model_ = model;
      }
      if (abort_reason) {
        std::lock_guard<std::mutex> wl(w.mu);
        w.aborted = true;
      }
    }
    if (!ended.empty() || abort_reason) cv_.notify_one();
    ended.clear();
  }
}

void WorkerPool::Issue(int64_t id, const workload::RequestSpec& spec) {
  Worker* best = workers_.front().get();
  for (auto& w : workers_) {
    if (w->in_flight < best->in_flight) best = w.get();
  }
  ++best->in_flight;
  ++best->dealt;
  best->max_in_flight = std::max(best->max_in_flight, best->in_flight);
  ++in_flight_total_;
  {
    std::lock_guard<std::mutex> lock(best->mu);
    best->inbox.emplace_back(id, &spec);
  }
  best->client->Wake();
}

void WorkerPool::Poll(Nanos deadline, CompletionSink& sink) {
  std::vector<std::pair<int, RequestRecord>> got;
  {
    std::unique_lock<std::mutex> lock(mu_);
    const Nanos wait = deadline - SteadyClock::MonotonicNow();
    if (done_.empty() && wait > 0)
      cv_.wait_for(lock, std::chrono::nanoseconds(wait), [this] { return !done_.empty(); });
    got.swap(done_);
  }
  for (auto& [w, r] : got) {
    --workers_[static_cast<size_t>(w)]->in_flight;
    --in_flight_total_;
    sink.OnComplete(std::move(r));
  }
}

void WorkerPool::AbortAll(const char* reason, CompletionSink& sink) {
  for (auto& w : workers_) {
    {
      std::lock_guard<std::mutex> lock(w->mu);
      w->abort_reason = reason;
      w->aborted = false;
    }
    w->client->Wake();
  }
  // Each worker ends what it holds and reports back; then hand everything over.
  auto all_aborted = [this] {
    for (auto& w : workers_) {
      std::lock_guard<std::mutex> lock(w->mu);
      if (!w->aborted) return false;
    }
    return true;
  };
  while (!all_aborted()) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::milliseconds(5));
  }
  Poll(SteadyClock::MonotonicNow(), sink);
}

void WorkerPool::Describe(RunResult* run) const { DescribeHttp(options_, run); }

std::string WorkerPool::ServedModel() const {
  std::lock_guard<std::mutex> lock(mu_);
  return served_model_;
}

std::vector<int64_t> WorkerPool::Dealt() const {
  std::vector<int64_t> out;
  for (const auto& w : workers_) out.push_back(w->dealt);
  return out;
}

std::vector<int64_t> WorkerPool::MaxInFlight() const {
  std::vector<int64_t> out;
  for (const auto& w : workers_) out.push_back(w->max_in_flight);
  return out;
}

}  // namespace frontier::loadgen
