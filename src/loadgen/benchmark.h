// benchmark.h: one measured benchmark run end to end, for `frontier bench`,
// the search's live trials and sweeps that call it without the command line:
// the HTTP target (one event loop or a WorkerPool) run as a point (point.h:
// timing core, summary, verdict, provenance, result JSON and JSONL).
//
//   BenchOptions o;
//   o.client.base_url = "http://127.0.0.1:8000";
//   o.client.model = "meta-llama/Llama-3.1-8B-Instruct";
//   o.result_json = "point.json";
//   auto specs = workload::LoadDataset(dataset);
//   Result<BenchOutcome> r = RunBenchmark(o, *specs, load, &progress, &stop);
//
// Thread safety: runs on the calling thread; `stop` may be set from anywhere.
#pragma once

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/stream_client.h"
#include "core/run_result.h"
#include "core/status.h"
#include "loadgen/point.h"
#include "loadgen/runner.h"
#include "metrics/summary.h"
#include "power/open.h"
#include "workload/dataset.h"
#include "workload/load.h"
#include "workload/request_spec.h"

namespace frontier::loadgen {

// The point's options (PointOptions::model "" = client.model) and the HTTP target's.
struct BenchOptions : PointOptions {
  client::ClientOptions client;
  int workers = 1;                      // event loops on their own threads (worker_pool.h)
  // The server's Prometheus endpoint to sample during the run (metrics_scraper.h),
  // "" = none; the samples and the achieved prefix-cache hit rate go into
  // the result as "server_metrics".
  std::string scrape_metrics_url;
  Nanos scrape_period_ns = kNanosPerSecond;
  // Measured power (power/open.h): the source to open, and the interval
  // between readings (PointOptions::power_interval_ns is set from it). Its
  // scrape_url is fetched with `client`'s options; fetch is set here.
  power::PowerOptions power;
};

using BenchOutcome = PointOutcome;

// Runs the benchmark. Fails for bad options (InvalidArgument naming the flag),
// a power source asked for by name that cannot open ("--power nvml: ...")
// or when an output file cannot be written (IoError naming it); a request
// that fails is a result, not an error. On interruption the outcome has
// run.interrupted = true and the files hold what was measured.
Result<BenchOutcome> RunBenchmark(const BenchOptions& options,
                                  const std::vector<workload::RequestSpec>& specs,
                                  const workload::LoadOptions& load, Observer* observer,
                                  const std::atomic<bool>* stop);

// Token-id prompts stay inside the served model's vocabulary: asks the
// server's GET /v1/models (5 s at most) and, when it gives a vocabulary size
// (llama.cpp: meta.n_vocab), sets dataset->random.vocab_size to it; else uses
// `vocab_flag` when > 0, else keeps the dataset's default. Records
// "vocab_size" and "vocab_size_source" ("server /v1/models meta.n_vocab",
// "--vocab-size" or "default") in `effective`. Does nothing for datasets that
// are not token-id prompts. Returns a note for the user when the server's
// figure overrode the flag ("" otherwise). Never fails: a server without
// /v1/models keeps the flag's value.
std::string ResolveVocabulary(const client::ClientOptions& client, int64_t vocab_flag,
                              workload::DatasetOptions* dataset, std::map<std::string, std::string>* effective);

}  // namespace frontier::loadgen
