#include "sim/deployment_search.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace frontier::sim {
namespace {

SimSpec Aggregated(const SimSpec& base, int tp, int ep) {
  SimSpec s = base;
  s.tp = tp;
  s.ep = ep;
  s.dp = 0;
  s.attention_dp = false;
  s.prefill_workers = s.decode_workers = 0;
  return s;
}

}  // namespace

std::vector<Candidate> DeploymentCandidates(const SimSpec& base, bool disaggregated) {
  std::vector<Candidate> out;
  const int gpus = base.gpus;
  Result<ModelSpec> model = LoadModel(base.model, base.data_dir.empty() ? DefaultDataDir() : base.data_dir);
  const bool moe = model.ok() && model->moe();
  for (int tp = 1; tp <= gpus; tp *= 2) {
    if (gpus % tp != 0) continue;
    const std::string dp = gpus / tp > 1 ? " dp" + std::to_string(gpus / tp) : "";
    out.push_back({"tp" + std::to_string(tp) + dp, Aggregated(base, tp, 1), "", {}});
    if (moe && gpus > 1)
      out.push_back({"tp" + std::to_string(tp) + dp + " ep" + std::to_string(gpus), Aggregated(base, tp, gpus), "", {}});
  }
  if (moe && gpus > 1) {
    SimSpec s = Aggregated(base, 1, 1);
    s.attention_dp = true;
    // The same layout as tp1 dp<gpus> ep<gpus>: listed once under its name.
    out.erase(std::remove_if(out.begin(), out.end(),
                             [&](const Candidate& c) { return c.spec.tp == 1 && c.spec.ep == gpus; }),
              out.end());
    out.push_back({"attention-dp ep" + std::to_string(gpus), s, "", {}});
  }
  if (disaggregated) {
    // Equal-sized workers; every split of the GPUs between prefill and decode.
    for (int w = 1; w <= gpus / 2; w *= 2) {
      if (gpus % w != 0) continue;
      const int workers = gpus / w;
      for (int p = 1; p < workers; ++p) {
        for (bool adp : moe && w > 1 ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
          SimSpec s = Aggregated(base, 1, 1);
          s.prefill_workers = p;
          s.decode_workers = workers - p;
          s.prefill_tp = w;
          s.decode_tp = adp ? 1 : w;
          s.decode_dp = adp ? w : 1;
          s.decode_ep = adp ? w : 1;
          const std::string pool = adp ? "(attention-dp ep" + std::to_string(w) + ")" : "(tp" + std::to_string(w) + ")";
          out.push_back({"P" + std::to_string(p) + "x(tp" + std::to_string(w) + ") D" + std::to_string(workers - p) +
                             "x" + pool,
                         s, "", {}});
        }
      }
    }
  }
  return out;
}

Result<SearchResult> SearchDeployments(const DeploymentSearch& search) {
  if (search.base.gpus < 1) return InvalidArgument("--best-deployment needs --gpus (the GPUs to lay out)");
  SearchResult out;
  out.candidates = DeploymentCandidates(search.base, search.disaggregated);
  int ran = 0;
  for (auto& c : out.candidates) {
    Result<SimConfig> config = ResolveSimConfig(c.spec);
    if (!config.ok()) {
      c.skipped = config.status().message();
      continue;
    }
    Result<std::vector<SweepPoint>> points =
        SweepConcurrency(*config, search.requests, search.load, search.concurrencies, search.sweep);
    if (!points.ok()) {
      c.skipped = points.status().message();
      continue;
    }
    c.points = std::move(*points);
    ++ran;
  }
  if (ran == 0) {
    std::string why;
    for (const auto& c : out.candidates) why += "\n  " + c.label + ": " + c.skipped;
    return InvalidArgument("no deployment of " + search.base.model + " on " + std::to_string(search.base.gpus) + "x " +
                           search.base.hardware + " resolves:" + why);
  }
  // The Pareto frontier across every candidate.
  std::vector<FrontierPoint> all;
  for (const auto& c : out.candidates)
    for (const auto& p : c.points) all.push_back({c.label, p});
  std::vector<SweepPoint> pts;
  for (const auto& f : all) pts.push_back(f.point);
  MarkPareto(pts);
  for (size_t i = 0; i < all.size(); ++i)
    if (pts[i].pareto) out.frontier.push_back(all[i]);
  std::sort(out.frontier.begin(), out.frontier.end(), [](const FrontierPoint& a, const FrontierPoint& b) {
    return a.point.summary.interactivity > b.point.summary.interactivity;
  });
  return out;
}

}  // namespace frontier::sim
