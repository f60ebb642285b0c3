// over_time.h: a point's series over time, read from what the store keeps
// with it (store::PointSeries: the server's scraped samples and the
// timeslices), in the shape the report's charts draw.
//
// Server series, by the names vLLM, SGLang and llama.cpp expose:
//   KV-cache usage (%)   vllm:kv_cache_usage_perc, vllm:gpu_cache_usage_perc,
//                        sglang:token_usage, llamacpp:kv_cache_usage_ratio (x 100)
//   running / waiting    vllm:num_requests_running / _waiting, sglang:num_running_reqs
//                        / num_queue_reqs, llamacpp:requests_processing / _deferred
//   prefix hit rate (%)  per scrape interval from the deltas of vLLM's
//                        prefix_cache_hits_total / prefix_cache_queries_total,
//                        else the gauges sglang:cache_hit_rate, vllm:gpu_prefix_cache_hit_rate
// Text that is not the JSON expected (a hand-edited or foreign database) gives
// empty series, never an error: the report shows what it can read.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "store/records.h"

namespace frontier::report {

struct Curve {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (seconds from the run's start, value)
};

struct PointOverTime {
  // Timeslices: output tokens/s per window as a step line, and the steady span.
  double slice_s = 0;
  Curve output_tput;
  bool steady = false;
  double steady_start_s = 0, steady_end_s = 0, steady_output_tput = 0;
  // Scraped server samples (empty for a point without them, e.g. a simulated one).
  std::vector<Curve> kv_usage, queue, hit_rate;
  bool empty() const { return output_tput.points.empty() && kv_usage.empty() && queue.empty() && hit_rate.empty(); }
};

PointOverTime ParseOverTime(const store::PointSeries& series);

}  // namespace frontier::report
