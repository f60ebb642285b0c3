#include "serve/metrics.h"

#include <algorithm>

#include "core/parse.h"

namespace frontier::serve {
namespace {

void Header(std::string& out, const std::string& name, const char* type, const char* help) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

void Sample(std::string& out, const std::string& name, const std::string& labels, double v) {
  out += name;
  if (!labels.empty()) out += "{" + labels + "}";
  out += " " + FormatSignificant(v, 9) + "\n";
}

// Label values written by this server contain no quotes or backslashes except
// the model name, which is escaped here.
std::string LabelValue(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1) {}

void Histogram::Observe(double v) {
  const size_t i = static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
  ++counts_[i];
  ++count_;
  sum_ += v;
}

void Histogram::Render(std::string& out, const std::string& name, const std::string& labels) const {
  const std::string sep = labels.empty() ? "" : labels + ",";
  uint64_t cum = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cum += counts_[i];
    out += name + "_bucket{" + sep + "le=\"" + FormatSignificant(bounds_[i], 9) + "\"} " + std::to_string(cum) + "\n";
  }
  out += name + "_bucket{" + sep + "le=\"+Inf\"} " + std::to_string(count_) + "\n";
  Sample(out, name + "_sum", labels, sum_);
  out += name + "_count";
  if (!labels.empty()) out += "{" + labels + "}";
  out += " " + std::to_string(count_) + "\n";
}

ServeMetrics::ServeMetrics()
    // Bucket bounds as vLLM uses for the same series (seconds).
    : ttft({0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
            20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}),
      tpot({0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
            20.0, 40.0, 80.0}),
      e2e({0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
           240.0, 480.0, 960.0, 1920.0, 7680.0}),
      emission_lag({0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                    1.0}) {}

std::string ServeMetrics::Render(const std::string& model) const {
  std::string out;
  out.reserve(8192);
  const std::string m = "model_name=\"" + LabelValue(model) + "\"";

  Header(out, "vllm:num_requests_running", "gauge", "Requests in the running batch.");
  Sample(out, "vllm:num_requests_running", m, static_cast<double>(running));
  Header(out, "vllm:num_requests_waiting", "gauge", "Requests admitted and waiting to be scheduled.");
  Sample(out, "vllm:num_requests_waiting", m, static_cast<double>(waiting));
  Header(out, "vllm:kv_cache_usage_perc", "gauge", "Fraction of KV-cache blocks in use (1 = full).");
  Sample(out, "vllm:kv_cache_usage_perc", m, kv_usage);
  Header(out, "vllm:num_preemptions_total", "counter", "Requests preempted by the engine (their KV cache dropped).");
  Sample(out, "vllm:num_preemptions_total", m, static_cast<double>(preemptions));
  if (prefix_queries >= 0) {
    // As vLLM names them: counters of tokens (its vllm:prefix_cache_queries and
    // _hits, exposed with the _total suffix Prometheus clients add).
    Header(out, "vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in prompt tokens looked up.");
    Sample(out, "vllm:prefix_cache_queries_total", m, static_cast<double>(prefix_queries));
    Header(out, "vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in prompt tokens found cached.");
    Sample(out, "vllm:prefix_cache_hits_total", m, static_cast<double>(prefix_hits));
  }
  Header(out, "vllm:prompt_tokens_total", "counter", "Prompt tokens of admitted requests.");
  Sample(out, "vllm:prompt_tokens_total", m, static_cast<double>(prompt_tokens));
  Header(out, "vllm:generation_tokens_total", "counter", "Generated tokens sent.");
  Sample(out, "vllm:generation_tokens_total", m, static_cast<double>(generation_tokens));
  Header(out, "vllm:request_success_total", "counter", "Finished requests by finish reason.");
  for (const char* r : {"stop", "length", "abort"}) {
    auto it = finished.find(r);
    Sample(out, "vllm:request_success_total", m + ",finished_reason=\"" + r + "\"",
           static_cast<double>(it == finished.end() ? 0 : it->second));
  }
  Header(out, "vllm:time_to_first_token_seconds", "histogram", "Time from admission to the first token.");
  ttft.Render(out, "vllm:time_to_first_token_seconds", m);
  Header(out, "vllm:time_per_output_token_seconds", "histogram",
         "Per finished request: (last token - first token) / (tokens - 1).");
  tpot.Render(out, "vllm:time_per_output_token_seconds", m);
  Header(out, "vllm:e2e_request_latency_seconds", "histogram", "Time from admission to the last token.");
  e2e.Render(out, "vllm:e2e_request_latency_seconds", m);

  Header(out, "frontier_serve_open_connections", "gauge", "Open client connections.");
  Sample(out, "frontier_serve_open_connections", "", static_cast<double>(open_connections));
  Header(out, "frontier_serve_engine_steps_total", "counter", "Engine iterations run.");
  Sample(out, "frontier_serve_engine_steps_total", "", static_cast<double>(engine_steps));
  Header(out, "frontier_serve_client_disconnects_total", "counter",
         "Generations stopped because the client closed its connection mid-response.");
  Sample(out, "frontier_serve_client_disconnects_total", "", static_cast<double>(client_disconnects));
  Header(out, "frontier_serve_http_responses_total", "counter", "HTTP responses by status code.");
  for (const auto& [code, n] : http_responses)
    Sample(out, "frontier_serve_http_responses_total", "code=\"" + std::to_string(code) + "\"",
           static_cast<double>(n));
  Header(out, "frontier_serve_faults_total", "counter", "Injected faults by kind.");
  for (const char* k : {"error", "rate_limit", "disconnect", "stall"}) {
    auto it = faults.find(k);
    Sample(out, "frontier_serve_faults_total", std::string("kind=\"") + k + "\"",
           static_cast<double>(it == faults.end() ? 0 : it->second));
  }
  Header(out, "frontier_serve_emission_lag_seconds", "histogram",
         "How late each token event was written, against its modelled time.");
  emission_lag.Render(out, "frontier_serve_emission_lag_seconds", "");
  return out;
}

}  // namespace frontier::serve
