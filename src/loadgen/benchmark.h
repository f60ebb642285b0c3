// benchmark.h: one measured benchmark run end to end, for `frontier bench` and
// for sweeps that call it without the command line: the HTTP target, the
// timing core, per-request JSONL records as requests end, the summary, and
// the result JSON (written atomically, also after an interruption).
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
#include "loadgen/runner.h"
#include "metrics/summary.h"
#include "workload/dataset.h"
#include "workload/load.h"
#include "workload/request_spec.h"

namespace frontier::loadgen {

struct BenchOptions {
  client::ClientOptions client;
  int workers = 1;                      // event loops on their own threads (worker_pool.h)
  RunOptions run;                       // its clock must stay the steady clock for HTTP
  metrics::SummaryOptions summary;
  std::string result_json;              // "" = not written
  std::string requests_jsonl;           // "" = not written
  // Provenance copied into the RunResult.
  std::string command_line;
  std::map<std::string, std::string> requested_settings;
  std::map<std::string, std::string> effective_settings;
  // Extra top-level fields of the result JSON (vLLM's backend, num_prompts, ...).
  nlohmann::json extra_result_fields = nlohmann::json::object();
};

struct BenchOutcome {
  RunResult run;
  metrics::Summary summary;
};

// Runs the benchmark. Fails for bad options (InvalidArgument naming the flag)
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

// The machine's host name, for provenance.
std::string HostName();

}  // namespace frontier::loadgen
