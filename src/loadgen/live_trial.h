// live_trial.h: the search's TrialRunner (search.h) for a live server: each
// trial is one measured benchmark (benchmark.h's RunBenchmark, so RunPoint)
// over HTTP. The trial's point options (summary, rules, provenance) come
// from the search; the client, workers and run options from `options`, whose
// own settings and extra result fields are kept beside the search's.
//
//   BenchOptions bench;                       // client, summary, provenance
//   LiveTrialRunner runner(bench, &specs);
//   Search(runner, search_options, on_trial);
//
// Requests are reported to the search as they end and a trial stops when the
// search asks (over-saturation, Ctrl-C); in-flight requests get bench.run.grace
// to finish, then end failed (failure::kInterrupted). Trials write no result
// or JSONL files of their own (the search writes one result file).
//
// Thread safety: one Run at a time, on the calling thread.
#pragma once

#include <string>
#include <vector>

#include "loadgen/benchmark.h"
#include "loadgen/search.h"

namespace frontier::loadgen {

class LiveTrialRunner final : public TrialRunner {
 public:
  // REQUIRES: *specs outlives the runner.
  LiveTrialRunner(BenchOptions options, const std::vector<workload::RequestSpec>* specs);

  std::string Name() const override { return options_.client.base_url; }
  Result<PointOutcome> Run(const workload::LoadOptions& load, const PointOptions& point, Observer* observer,
                           const std::atomic<bool>* stop) override;

 private:
  BenchOptions options_;
  const std::vector<workload::RequestSpec>* specs_;
};

}  // namespace frontier::loadgen
