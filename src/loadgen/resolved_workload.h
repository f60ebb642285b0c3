// resolved_workload.h: a workload as a command resolved it (dataset, load,
// summary options, scenario request, provenance), and the steps every command
// takes after resolving one: the scenario's rules and load, the prompt pool of
// a scenario run, and the requests themselves (a dataset's specs or a session
// workload). `frontier bench`, `simulate` and `search` resolve their flags into
// a ResolvedWorkload (workload_request.h); what they do with it lives here
// and above, not in cli/.
//
// Thread safety: none; one command's thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "loadgen/scenario.h"
#include "metrics/summary.h"
#include "workload/dataset.h"
#include "workload/load.h"
#include "workload/load_request.h"
#include "workload/session.h"

namespace frontier::loadgen {

struct ResolvedWorkload {
  workload::DatasetOptions dataset;  // num_prompts = warmup + measured (or workload::kDurationDatasetSize)
  workload::LoadOptions load;
  metrics::SummaryOptions summary;
  bool ignore_eos = true;
  bool sessions = false;              // a session workload (trace, multi-turn): LoadSessionWorkload
  int ideal_block_tokens = 16;        // block of the ideal prefix-cache hit rate
  std::string result_json;            // empty: not written
  std::string requests_jsonl;         // empty: not written
  // --tokenizer: PrepareWorkload turns the random prompts into text that this
  // tokenizer encodes to exactly each request's input_len (workload/exact_text.h).
  std::string tokenizer;
  // Set when a scenario flag was given (--scenario, --slo, --min-interactivity, ...).
  std::optional<ScenarioRequest> scenario;
  // For provenance: the flags given on the command line (name without "--" ->
  // value as typed) and every resolved setting.
  std::map<std::string, std::string> requested;
  std::map<std::string, std::string> effective;
};

// The rules of w.scenario (none when no scenario flag was given): reads the
// MLPerf table under `data_dir` when a scenario is named; `model_hint` (a
// catalog model or served model name) picks the benchmark unless
// --mlperf-benchmark does. InvalidArgument naming the flag.
Result<std::optional<ScenarioRules>> ResolveScenarioRules(const ResolvedWorkload& w,
                                                                   const std::string& data_dir,
                                                                   std::string_view model_hint);

// Records the rules in w->effective; for rules with a scenario, also replaces
// w->load by the scenario's (ScenarioLoad) and sizes w->dataset.
Status ApplyScenarioLoad(const ScenarioRules& rules, ResolvedWorkload* w);

// Sizes w->dataset for scenario runs of at most `measured` queries after
// w->load.warmup: as many distinct prompts as the benchmark's performance
// sample count (else workload::kDurationDatasetSize), fewer when fewer are measured,
// reused cyclically. A search, whose trials' lengths are not known yet,
// passes workload::kUnboundedPrompts.
void UseScenarioPromptPool(const ScenarioRules& rules, int64_t measured, ResolvedWorkload* w);

// The requests of a resolved workload: the specs of a single-turn dataset, or
// the session workload of a session kind (then `specs` is empty). For a trace
// read whole, w->load.num_prompts becomes its session count.
struct PreparedWorkload {
  std::vector<workload::RequestSpec> specs;
  std::optional<workload::SessionWorkload> sessions;
};
Result<PreparedWorkload> PrepareWorkload(ResolvedWorkload* w);

}  // namespace frontier::loadgen
