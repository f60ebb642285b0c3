// metrics.h: what `frontier serve` exports on GET /metrics, in the Prometheus
// text exposition format (version 0.0.4).
//
// Names follow vLLM's (vllm:num_requests_running, vllm:time_to_first_token_seconds,
// ...) so dashboards and autoscalers written for vLLM work unchanged; the
// frontier_serve_* series are this server's own (HTTP codes, faults, lateness
// of token emission against the modelled schedule).
//
// Thread safety: not synchronised; the server updates and renders it from its
// loop thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace frontier::serve {

// A cumulative histogram with fixed upper bounds (seconds).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double v);
  // Appends the _bucket/_sum/_count lines for `name` with `labels` (e.g.
  // `model_name="x"`; may be empty).
  void Render(std::string& out, const std::string& name, const std::string& labels) const;
  uint64_t count() const { return count_; }
  double sum() const { return sum_; }

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // per bucket, not cumulative; last is +Inf
  uint64_t count_ = 0;
  double sum_ = 0;
};

struct ServeMetrics {
  ServeMetrics();

  // Gauges, set when rendering.
  int64_t running = 0, waiting = 0, open_connections = 0;
  double kv_usage = 0;
  // Engine counters, set when rendering; prefix_* < 0: no prefix cache (not rendered).
  int64_t preemptions = 0, prefix_queries = -1, prefix_hits = -1;
  // Counters.
  uint64_t prompt_tokens = 0, generation_tokens = 0;
  std::map<std::string, uint64_t> finished;     // finished_reason -> requests (stop, length, abort)
  std::map<int, uint64_t> http_responses;       // status code -> responses
  std::map<std::string, uint64_t> faults;       // kind -> injected faults
  uint64_t engine_steps = 0;
  // Generations stopped because their client closed the connection
  // mid-response (a client that cancels; not injected disconnects).
  uint64_t client_disconnects = 0;
  // Histograms (seconds).
  Histogram ttft, tpot, e2e, emission_lag;

  // The whole exposition; `model` labels the vllm:* series.
  std::string Render(const std::string& model) const;
};

}  // namespace frontier::serve
