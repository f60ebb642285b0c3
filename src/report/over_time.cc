#include "report/over_time.h"

#include <cmath>

#include <nlohmann/json.hpp>

namespace frontier::report {
namespace {

using nlohmann::json;

// The numbers of column `name` of a columns object (null and non-numbers as NaN).
std::vector<double> Column(const json& cols, const char* name) {
  std::vector<double> out;
  auto it = cols.find(name);
  if (it == cols.end() || !it->is_array()) return out;
  for (const auto& v : *it) out.push_back(v.is_number() ? v.get<double>() : std::nan(""));
  return out;
}

// (t, scale x value) where both are finite.
Curve Pairs(const std::string& name, const std::vector<double>& t, const std::vector<double>& v, double scale) {
  Curve c;
  c.name = name;
  for (size_t i = 0; i < t.size() && i < v.size(); ++i)
    if (std::isfinite(t[i]) && std::isfinite(v[i])) c.points.emplace_back(t[i], scale * v[i]);
  return c;
}

// A number field of an object, or NaN.
double Num(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_number() ? it->get<double>() : std::nan("");
}

void ReadTimeslices(const std::string& text, PointOverTime* out) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return;
  out->slice_s = std::isfinite(Num(j, "slice_s")) ? Num(j, "slice_s") : 0;
  auto w = j.find("windows");
  if (w == j.end() || !w->is_object()) return;
  const auto start = Column(*w, "start_s"), end = Column(*w, "end_s"), tput = Column(*w, "output_throughput");
  out->output_tput.name = "output tokens/s";
  for (size_t i = 0; i < start.size() && i < end.size() && i < tput.size(); ++i) {
    if (!std::isfinite(start[i]) || !std::isfinite(end[i]) || !std::isfinite(tput[i])) continue;
    out->output_tput.points.emplace_back(start[i], tput[i]);
    out->output_tput.points.emplace_back(end[i], tput[i]);
  }
  auto s = j.find("steady");
  if (s != j.end() && s->is_object() && std::isfinite(Num(*s, "start_s")) && std::isfinite(Num(*s, "end_s"))) {
    out->steady = true;
    out->steady_start_s = Num(*s, "start_s");
    out->steady_end_s = Num(*s, "end_s");
    out->steady_output_tput = std::isfinite(Num(*s, "output_throughput")) ? Num(*s, "output_throughput") : 0;
  }
}

void ReadServerMetrics(const std::string& text, PointOverTime* out) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto samples = j.is_object() ? j.find("samples") : j.end();
  if (!j.is_object() || samples == j.end() || !samples->is_object()) return;
  const json& cols = *samples;
  const auto t = Column(cols, "t_s");
  auto add = [&](std::vector<Curve>* to, const char* series, const std::string& label, double scale) {
    Curve c = Pairs(label, t, Column(cols, series), scale);
    if (!c.points.empty()) to->push_back(std::move(c));
  };
  add(&out->kv_usage, "vllm:kv_cache_usage_perc", "KV cache used (vLLM)", 100);
  if (out->kv_usage.empty()) add(&out->kv_usage, "vllm:gpu_cache_usage_perc", "KV cache used (vLLM)", 100);
  add(&out->kv_usage, "sglang:token_usage", "KV tokens used (SGLang)", 100);
  add(&out->kv_usage, "llamacpp:kv_cache_usage_ratio", "KV cache used (llama.cpp)", 100);
  add(&out->queue, "vllm:num_requests_running", "running", 1);
  add(&out->queue, "vllm:num_requests_waiting", "waiting", 1);
  add(&out->queue, "sglang:num_running_reqs", "running", 1);
  add(&out->queue, "sglang:num_queue_reqs", "waiting", 1);
  add(&out->queue, "llamacpp:requests_processing", "running", 1);
  add(&out->queue, "llamacpp:requests_deferred", "waiting", 1);
  // The hit rate of each scrape interval, from the counters' deltas.
  const auto hits = Column(cols, "vllm:prefix_cache_hits_total");
  const auto queries = Column(cols, "vllm:prefix_cache_queries_total");
  Curve rate;
  rate.name = "prefix-cache hit rate";
  for (size_t i = 1; i < t.size() && i < hits.size() && i < queries.size(); ++i) {
    const double dq = queries[i] - queries[i - 1], dh = hits[i] - hits[i - 1];
    if (std::isfinite(dq) && std::isfinite(dh) && std::isfinite(t[i]) && dq > 0)
      rate.points.emplace_back(t[i], 100 * dh / dq);
  }
  if (!rate.points.empty()) {
    out->hit_rate.push_back(std::move(rate));
  } else {
    add(&out->hit_rate, "sglang:cache_hit_rate", "prefix-cache hit rate (SGLang)", 100);
    add(&out->hit_rate, "vllm:gpu_prefix_cache_hit_rate", "prefix-cache hit rate (vLLM)", 100);
  }
}

}  // namespace

PointOverTime ParseOverTime(const store::PointSeries& series) {
  PointOverTime out;
  if (!series.timeslices_json.empty()) ReadTimeslices(series.timeslices_json, &out);
  if (!series.server_metrics_json.empty()) ReadServerMetrics(series.server_metrics_json, &out);
  return out;
}

}  // namespace frontier::report
