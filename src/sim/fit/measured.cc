#include "sim/fit/measured.h"

#include <utility>

namespace frontier::sim {

Result<std::vector<ResultModel>> MeasuredModels(const std::vector<MeasuredPoint>& points, const SimConfig& config,
                                                const std::string& where) {
  std::vector<ResultModel> out;
  for (const MeasuredPoint& p : points) {
    if (!p.closed_loop || p.output_throughput <= 0) continue;
    std::vector<workload::RequestSpec> requests;
    for (const MeasuredPoint::Request& r : p.requests) {
      if (r.warmup || !r.ok || r.prompt_tokens < 1 || r.output_tokens < 1) continue;
      workload::RequestSpec s;
      s.id = static_cast<int64_t>(requests.size());
      s.input_len = r.prompt_tokens;
      s.output_len = r.output_tokens;
      requests.push_back(s);
    }
    if (requests.empty()) continue;
    PublishedResult r;
    r.id = p.id;
    r.source = p.source;
    r.published = "measured";
    r.scenario = Scenario::kClosedLoop;
    r.concurrency = static_cast<int64_t>(p.load_value);
    r.value = p.output_throughput;
    out.push_back(ResultModel::FromRun(r, config, std::move(requests)));
  }
  if (out.empty()) return InvalidArgument("--runs: no concurrency points with output throughput in " + where);
  return out;
}

}  // namespace frontier::sim
