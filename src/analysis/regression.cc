#include "analysis/regression.h"

#include <algorithm>
#include <cmath>

#include "analysis/repetitions.h"

namespace frontier::analysis {

std::vector<MetricSpec> DefaultRegressionMetrics() {
  return {{"total_tput_per_gpu", true},
          {"output_tput_per_gpu", true},
          {"interactivity", true},
          {"median_ttft_ms", false},
          {"median_tpot_ms", false}};
}

RegressionReport FindRegressions(const std::vector<PointSamples>& baseline,
                                 const std::vector<PointSamples>& candidate,
                                 const std::vector<MetricSpec>& metrics,
                                 const RegressionOptions& o) {
  RegressionReport report;
  std::map<std::string, const PointSamples*> cand;
  for (const auto& c : candidate) cand[c.key] = &c;
  std::map<std::string, bool> matched;
  for (const auto& b : baseline) {
    auto it = cand.find(b.key);
    if (it == cand.end()) {
      report.only_baseline.push_back(b.key);
      continue;
    }
    matched[b.key] = true;
    for (const auto& spec : metrics) {
      auto bs = b.metrics.find(spec.name);
      auto cs = it->second->metrics.find(spec.name);
      if (bs == b.metrics.end() || cs == it->second->metrics.end() || bs->second.empty() ||
          cs->second.empty())
        continue;
      const MeanCi mb = MeanConfidence(bs->second, o.level);
      const MeanCi mc = MeanConfidence(cs->second, o.level);
      MetricDelta d;
      d.key = b.key;
      d.metric = spec.name;
      d.baseline = mb.mean;
      d.candidate = mc.mean;
      d.n_baseline = mb.n;
      d.n_candidate = mc.n;
      const double scale = std::abs(mb.mean);
      d.relative_change = scale > 0 ? (mc.mean - mb.mean) / scale : 0;
      const double worse = spec.higher_is_better ? mb.mean - mc.mean : mc.mean - mb.mean;
      double noise;
      if (mb.measured && mc.measured) {
        const double vb = mb.stddev * mb.stddev / mb.n, vc = mc.stddev * mc.stddev / mc.n;
        const double se = std::sqrt(vb + vc);
        // Welch-Satterthwaite degrees of freedom.
        double dof = 1;
        const double denom = (vb * vb) / (mb.n - 1) + (vc * vc) / (mc.n - 1);
        if (denom > 0) dof = (vb + vc) * (vb + vc) / denom;
        noise = StudentT(o.level, std::max(1, static_cast<int>(std::floor(dof)))) * se;
        d.noise_measured = true;
      } else {
        noise = o.unmeasured_threshold * scale;
      }
      d.threshold = std::max(noise, o.min_relative * scale);
      d.regression = worse > d.threshold;
      d.improvement = -worse > d.threshold;
      report.regressions += d.regression;
      report.improvements += d.improvement;
      report.deltas.push_back(std::move(d));
    }
  }
  for (const auto& c : candidate)
    if (!matched.count(c.key)) report.only_candidate.push_back(c.key);
  return report;
}

}  // namespace frontier::analysis
