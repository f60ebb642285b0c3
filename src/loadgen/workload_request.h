// workload_request.h: the workload, load, scenario and output flags shared by
// `frontier bench`, `frontier simulate` and `frontier search` as raw values
// (WorkloadRequest), the one table of those flags (WorkloadFlagRows, which
// cli/workload_flags.h binds to CLI11), and their resolution into a
// ResolvedWorkload, each error naming the flag at fault.
//
//   WorkloadRequest r;                        // the defaults
//   r.input_len = 200; r.given["input-len"] = "200";
//   Result<ResolvedWorkload> w = ResolveWorkload(r);
//
// Flags (defaults in brackets):
//   --dataset random|sharegpt|jsonl|shared-prefix|trace|multi-turn [random]   --dataset-path FILE
//   --trace FILE  --trace-format auto|frontier|mooncake|agentic [auto]  --trace-block-tokens N [512]
//   --gsp-num-groups G [64]  --gsp-prompts-per-group P [16]  --gsp-system-prompt-len S [2048]
//   --gsp-question-len Q [128]  --gsp-output-len O [256]
//   --mt-turns T [5]  --mt-system-prompt-len S [0]  --mt-message-len U [256]
//   --think-time-ms MS [0]  --max-think-time-ms MS [60000]  --session-rate R|inf [inf]
//   --cancel-fraction F [0]  --cancel-after-tokens K  --cancel-after-ms T  --ideal-block-tokens B [16]
//   --input-len N [1024]  --output-len N [128]  --range-ratio R [0]  --prefix-len N [0]
//   --prompt-format token-ids|text [token-ids]  --ignore-eos / --no-ignore-eos [on for random]
//   --tokenizer PATH (random: text prompts of exact length by the model's tokenizer)
//   --seed N [0]  --num-prompts N [1000]  --duration S  --warmup N [0]
//   --max-concurrency N  --request-rate R|inf [inf]  --burstiness K|inf [1]
//   --percentiles 50,90,95,99,99.9  --goodput ttft:MS tpot:MS e2el:MS  --num-gpus N [1]
//   --timeslice S [0: automatic]
//   --result-json FILE  --requests-jsonl FILE
//   --scenario offline|server|interactive  --target-qps Q  --min-duration S [600]
//   --min-query-count N  --mlperf-benchmark NAME  --slo ttft_p99:MS tpot_p99:MS
//   --min-interactivity TOK_S (docs/scenarios.md; rules in loadgen/scenario.h)
//
// Conventions resolved here (documented in docs/bench.md):
//   * --burstiness inf sends every request at time zero (request_rate = inf).
//   * --duration without --num-prompts: load.num_prompts = kUnboundedPrompts and
//     the dataset (kDurationDatasetSize distinct requests) is cycled; the run
//     stops issuing after --duration seconds. --duration needs --max-concurrency
//     or a finite --request-rate (otherwise everything would be sent at once).
//   * --output-len with --dataset sharegpt fixes the output length (else the
//     reference answer's length is used); with jsonl it is ignored.
//   * dataset.num_prompts = warm-up + measured requests: the first `warmup`
//     specs are the warm-up ones.
//   * Session workloads (trace, multi-turn; docs/workloads.md): --num-prompts
//     counts sessions (trace: all of the file's unless given; multi-turn: 100
//     unless given), --max-concurrency counts open sessions, --session-rate
//     starts sessions per second (--request-rate, --warmup and the scenario
//     flags are usage errors with them). shared-prefix without --num-prompts
//     sends its G x P prompts once.
//   * --scenario sets the arrivals and the run length: --request-rate,
//     --max-concurrency, --burstiness, --duration and --num-prompts are usage
//     errors beside it. After ResolveWorkload, ResolveScenarioRules turns the
//     scenario flags into rules (the MLPerf table under the data folder) and
//     ApplyScenarioLoad replaces the load and sizes the dataset
//     (UseScenarioPromptPool: the benchmark's performance sample count of
//     distinct prompts, else kDurationDatasetSize, reused cyclically).
//     `frontier search` sets each trial's load itself and sizes the dataset
//     with UseScenarioPromptPool alone.
//
// The rules that are not about flags (the load's defaults by dataset, the
// provenance of a workload) live in workload/load_request.h.
//
// Thread safety: none; one command's thread.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "core/flag_table.h"
#include "core/status.h"
#include "loadgen/resolved_workload.h"
#include "loadgen/scenario.h"

namespace frontier::loadgen {

// The flags' raw values, defaults as above, and which flags were given.
struct WorkloadRequest {
  std::string dataset = "random";
  std::string dataset_path;
  int64_t input_len = 1024;   // int64 so that an out-of-range value reaches the range check
  int64_t output_len = 128;
  double range_ratio = 0.0;
  int64_t prefix_len = 0;
  std::string prompt_format = "token-ids";
  std::string tokenizer;  // tokenizer.json, a directory holding one, or a .gguf
  bool ignore_eos = true;
  uint64_t seed = 0;
  int64_t num_prompts = 1000;
  double duration_s = 0;
  int64_t warmup = 0;
  int64_t max_concurrency = 0;
  std::string request_rate = "inf";
  std::string burstiness = "1";
  std::string percentiles = "50,90,95,99,99.9";
  std::vector<std::string> goodput;
  int num_gpus = 1;
  double timeslice_s = 0;  // 0: automatic (metrics/timeslice.h)
  std::string result_json;
  std::string requests_jsonl;
  std::string scenario;
  double target_qps = 0;
  double min_duration_s = kDefaultMinDurationS;
  int64_t min_query_count = 0;
  std::string mlperf_benchmark;
  std::vector<std::string> slo;
  double min_interactivity = 0;
  // Session and prefix-sharing workloads, cancellation (docs/workloads.md).
  std::string trace;
  std::string trace_format = "auto";
  int64_t trace_block_tokens = 512;
  int64_t gsp_num_groups = 64, gsp_prompts_per_group = 16, gsp_system_prompt_len = 2048, gsp_question_len = 128,
          gsp_output_len = 256;
  int64_t mt_turns = 5, mt_system_prompt_len = 0, mt_message_len = 256;
  double think_time_ms = 0, max_think_time_ms = 60'000;
  std::string session_rate = "inf";
  double cancel_fraction = 0;
  int64_t cancel_after_tokens = 0;
  double cancel_after_ms = 0;
  int64_t ideal_block_tokens = 16;
  // Not a flag: whether the prompts go to a server (bench, search --base-url),
  // where a multi-turn workload's prompts default to text, as a plan's do
  // (workload::PromptFormatFor), and token ids for it are refused.
  bool over_http = false;
  // The flags given on the command line, by their first long name without
  // "--" ("ignore-eos" for --no-ignore-eos too) -> the values as typed, joined
  // by spaces. A field whose flag is absent here holds its default, whatever
  // its value: some rules depend on whether a flag was given.
  std::map<std::string, std::string> given;
};

// Every flag above, in the order --help lists it.
std::span<const FlagRow<WorkloadRequest>> WorkloadFlagRows();

// The workload flags a sweep plan has no field for: --result-json,
// --requests-jsonl (the rest have a plan key, workload/option_names.h, or are
// --goodput, a plan's `slo`, --percentiles and --timeslice, its `percentiles`
// and `timeslice_s`, --duration, its `load.duration_s`, and --num-gpus, its
// system's `gpus`). Every command's --as-plan refuses them (sweep/as_plan.h).
std::span<const char* const> WorkloadFlagsWithoutPlanForm();

// "FLAG has no plan form; drop it or run COMMAND without --as-plan" for the
// first of `flags` given, else "".
std::string PlanFormProblem(const std::string& command, std::span<const std::string> flags, const FlagGiven& given);

// Validates and resolves `r`. InvalidArgument with a one-line message naming
// the flag and what is allowed.
Result<ResolvedWorkload> ResolveWorkload(const WorkloadRequest& r);

}  // namespace frontier::loadgen
