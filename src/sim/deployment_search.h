// deployment_search.h: the best deployment of a model on N GPUs at each
// interactivity, as submitters tune their configurations: every way to lay
// the GPUs out (tensor, data and expert parallelism, DeepSeek-style attention
// DP, and optionally disaggregated prefill / decode splits) is swept over the
// same concurrencies, and the Pareto frontier of output tokens/s per GPU
// against tokens/s per user is taken across all of them, each point naming the
// deployment that reached it.
//
//   DeploymentSearch s = ...;  // base spec with --gpus, workload, concurrencies
//   Result<SearchResult> r = SearchDeployments(s);
//
// Candidates that do not resolve (heads not divisible, weights do not fit,
// ...) are listed with the reason and skipped.
//
// Thread safety: pure function of its arguments apart from reading the catalog.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "sim/concurrency_sweep.h"
#include "sim/engine/config.h"

namespace frontier::sim {

struct DeploymentSearch {
  SimSpec base;                     // model, hardware, gpus (required), precision, stack, limits
  std::vector<workload::RequestSpec> requests;
  workload::LoadOptions load;
  std::vector<int64_t> concurrencies;
  SweepOptions sweep;               // each point's summary options in sweep.point
  bool disaggregated = false;       // also try prefill / decode splits
};

struct Candidate {
  std::string label;                // "tp4 dp2", "attention-dp ep8", "P1x(tp8) D1x(tp8)", ...
  SimSpec spec;
  std::string skipped;              // why it did not resolve ("" when it ran)
  std::vector<SweepPoint> points;
};

struct FrontierPoint {
  std::string deployment;
  SweepPoint point;
};

struct SearchResult {
  std::vector<Candidate> candidates;
  std::vector<FrontierPoint> frontier;  // Pareto over every candidate's points, by falling interactivity
};

// The layouts SearchDeployments tries for `base` (before resolving them).
std::vector<Candidate> DeploymentCandidates(const SimSpec& base, bool disaggregated);

// Fails with InvalidArgument when base.gpus is not set or no candidate resolves.
Result<SearchResult> SearchDeployments(const DeploymentSearch& search);

}  // namespace frontier::sim
