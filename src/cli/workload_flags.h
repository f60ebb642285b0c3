// workload_flags.h: the workload, load, scenario and output flags shared by
// `frontier bench`, `frontier simulate` and `frontier search`, defined in one
// place so the commands accept exactly the same spelling, defaults and checks.
//
//   CLI::App app{"..."};
//   WorkloadFlags flags;
//   AddWorkloadFlags(app, &flags);          // before parsing
//   ... cli::Parse(app, argc, argv) ...
//   Result<ResolvedWorkload> w = ResolveWorkload(flags);   // after parsing
//   if (!w.ok()) return cli::Fail("bench", w.status());     // one line, exit 2
//   LoadDataset(w->dataset) ... w->load ... Summarize(run, w->summary)
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
// Header-only (inline): the `frontier` binary compiles main.cc, cli_util.cc and
// *_cmd.cc from this folder, so each command that includes this header gets
// the definitions without another build rule.
//
// Thread safety: call from the parsing thread only.
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/limits.h"
#include "core/parse.h"
#include "core/status.h"
#include "loadgen/scenario.h"
#include "metrics/summary.h"
#include "tokenizer/tokenizer.h"
#include "workload/dataset.h"
#include "workload/exact_text.h"
#include "workload/load.h"
#include "workload/option_names.h"
#include "workload/spec.h"

namespace frontier::cli {

inline constexpr int64_t kUnboundedPrompts = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kDurationDatasetSize = 1000;

// Raw flag values as CLI11 fills them. Read them only through ResolveWorkload.
struct WorkloadFlags {
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
  double min_duration_s = loadgen::kDefaultMinDurationS;
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
  // Filled by AddWorkloadFlags: to tell given flags from defaults.
  std::vector<CLI::Option*> options;
};

struct ResolvedWorkload {
  workload::DatasetOptions dataset;  // num_prompts = warmup + measured (or kDurationDatasetSize)
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
  std::optional<loadgen::ScenarioRequest> scenario;
  // For provenance: the flags given on the command line (name without "--" ->
  // value as typed) and every resolved setting.
  std::map<std::string, std::string> requested;
  std::map<std::string, std::string> effective;
};

// Registers the flags above on `app`, bound to `*flags` (which must outlive app).
inline void AddWorkloadFlags(CLI::App& app, WorkloadFlags* flags);

// Validates and resolves the parsed flags. InvalidArgument with a one-line
// message naming the flag and what is allowed.
inline Result<ResolvedWorkload> ResolveWorkload(const WorkloadFlags& flags);

// "inf" / "infinity" -> +inf, else a finite number. InvalidArgument naming `flag`.
inline Result<double> ParseNumberOrInf(const std::string& flag, const std::string& text);

// The rules of w.scenario (none when no scenario flag was given): reads the
// MLPerf table under `data_dir` when a scenario is named; `model_hint` (a
// catalog model or served model name) picks the benchmark unless
// --mlperf-benchmark does. InvalidArgument naming the flag.
inline Result<std::optional<loadgen::ScenarioRules>> ResolveScenarioRules(const ResolvedWorkload& w,
                                                                          const std::string& data_dir,
                                                                          std::string_view model_hint);

// Records the rules in w->effective; for rules with a scenario, also replaces
// w->load by the scenario's (loadgen::ScenarioLoad) and sizes w->dataset.
inline Status ApplyScenarioLoad(const loadgen::ScenarioRules& rules, ResolvedWorkload* w);

// Sizes w->dataset for scenario runs of at most `measured` queries after
// w->load.warmup: as many distinct prompts as the benchmark's performance
// sample count (else kDurationDatasetSize), fewer when fewer are measured,
// reused cyclically. A search, whose trials' lengths are not known yet,
// passes kUnboundedPrompts.
inline void UseScenarioPromptPool(const loadgen::ScenarioRules& rules, int64_t measured, ResolvedWorkload* w) {
  const int64_t pool = rules.performance_sample_count > 0 ? rules.performance_sample_count : kDurationDatasetSize;
  w->dataset.num_prompts = std::min(measured, pool) + w->load.warmup;
  w->dataset.allow_repeat = true;
}

// The requests of a resolved workload: the specs of a single-turn dataset, or
// the session workload of a session kind (then `specs` is empty). For a trace
// read whole, w->load.num_prompts becomes its session count.
struct PreparedWorkload {
  std::vector<workload::RequestSpec> specs;
  std::optional<workload::SessionWorkload> sessions;
};
inline Result<PreparedWorkload> PrepareWorkload(ResolvedWorkload* w) {
  PreparedWorkload p;
  if (!w->sessions) {
    FRONTIER_ASSIGN_OR_RETURN(p.specs, workload::LoadDataset(w->dataset));
    if (!w->tokenizer.empty()) {
      FRONTIER_ASSIGN_OR_RETURN(auto tok, tokenizer::Tokenizer::Load(w->tokenizer));
      workload::ExactTextStats stats;
      FRONTIER_RETURN_IF_ERROR(
          workload::MakeExactTextPrompts(p.specs, w->dataset.random.prefix_len, *tok, w->dataset.seed, &stats));
      w->effective["tokenizer"] = tok->Describe();
      w->effective["tokenizer_exact_prompts"] =
          std::to_string(stats.exact) + "/" + std::to_string(stats.prompts) +
          " re-encode to input_len; max deviation " + std::to_string(stats.max_abs_deviation) + " tokens";
    }
    return p;
  }
  FRONTIER_ASSIGN_OR_RETURN(workload::SessionWorkload s, workload::LoadSessionWorkload(w->dataset));
  if (w->dataset.num_prompts == 0) {
    w->load.num_prompts = static_cast<int64_t>(s.sessions.size());
    w->effective["num_prompts"] = std::to_string(w->load.num_prompts);
  }
  p.sessions = std::move(s);
  return p;
}

// ---------------------------------------------------------------------------
// Implementation.

inline Result<double> ParseNumberOrInf(const std::string& flag, const std::string& text) {
  if (text == "inf" || text == "infinity" || text == "Inf")
    return std::numeric_limits<double>::infinity();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
    return InvalidArgument(flag + " must be a number or 'inf', got '" + text + "'");
  return v;
}

inline void AddWorkloadFlags(CLI::App& app, WorkloadFlags* f) {
  auto add = [&](CLI::Option* o) { f->options.push_back(o); };
  add(app.add_option("--dataset", f->dataset,
                     "Workload: random, sharegpt, jsonl, shared-prefix, trace, multi-turn, or mlperf:BENCHMARK "
                     "(llama2-70b, mixtral-8x7b: its published length distribution) [random]")
          ->group("Workload"));
  add(app.add_option("--trace", f->trace, "trace: session trace JSONL (docs/workloads.md)")->group("Workload"));
  add(app.add_option("--trace-format", f->trace_format,
                     "trace: auto, frontier, mooncake or agentic [auto: from the first line]")
          ->group("Workload"));
  add(app.add_option("--trace-block-tokens", f->trace_block_tokens,
                     "trace: tokens per hash_ids block [512, Mooncake's]")
          ->group("Workload"));
  add(app.add_option("--gsp-num-groups", f->gsp_num_groups, "shared-prefix: groups G [64]")->group("Workload"));
  add(app.add_option("--gsp-prompts-per-group", f->gsp_prompts_per_group, "shared-prefix: prompts per group P [16]")
          ->group("Workload"));
  add(app.add_option("--gsp-system-prompt-len", f->gsp_system_prompt_len,
                     "shared-prefix: shared system prompt per group, tokens [2048]")
          ->group("Workload"));
  add(app.add_option("--gsp-question-len", f->gsp_question_len, "shared-prefix: question tokens [128]")
          ->group("Workload"));
  add(app.add_option("--gsp-output-len", f->gsp_output_len, "shared-prefix: output tokens [256]")
          ->group("Workload"));
  add(app.add_option("--mt-turns", f->mt_turns, "multi-turn: turns per session [5]")->group("Workload"));
  add(app.add_option("--mt-system-prompt-len", f->mt_system_prompt_len,
                     "multi-turn: system prompt shared by every session, tokens [0]")
          ->group("Workload"));
  add(app.add_option("--mt-message-len", f->mt_message_len,
                     "multi-turn: user message per turn, tokens (--range-ratio applies) [256]")
          ->group("Workload"));
  add(app.add_option("--think-time-ms", f->think_time_ms,
                     "Sessions: mean think time between turns (exponential), where the trace gives none [0]")
          ->group("Workload"));
  add(app.add_option("--max-think-time-ms", f->max_think_time_ms, "Sessions: think time cap [60000]")
          ->group("Workload"));
  add(app.add_option("--cancel-fraction", f->cancel_fraction,
                     "Cancel this fraction of requests (client abort; counted apart) [0]")
          ->group("Workload"));
  add(app.add_option("--cancel-after-tokens", f->cancel_after_tokens, "Cancel after K output tokens")
          ->group("Workload"));
  add(app.add_option("--cancel-after-ms", f->cancel_after_ms, "Cancel T ms after the request was sent")
          ->group("Workload"));
  add(app.add_option("--ideal-block-tokens", f->ideal_block_tokens,
                     "Block size of the ideal prefix-cache hit rate [16, vLLM's]")
          ->group("Metrics"));
  add(app.add_option("--dataset-path", f->dataset_path,
                     "ShareGPT JSON or JSONL file ({\"prompt\": ..., \"output_len\": N} a line)")
          ->group("Workload"));
  add(app.add_option("--input-len", f->input_len, "random: mean input length, tokens [1024]")
          ->group("Workload"));
  add(app.add_option("--output-len", f->output_len,
                     "random: mean output length; sharegpt: fixed output length [128]")
          ->group("Workload"));
  add(app.add_option("--range-ratio", f->range_ratio,
                     "random: lengths uniform in [(1-r)L, (1+r)L], 0 <= r < 1 [0]")
          ->group("Workload"));
  add(app.add_option("--prefix-len", f->prefix_len, "random: shared prefix tokens [0]")
          ->group("Workload"));
  add(app.add_option("--prompt-format", f->prompt_format,
                     "random, multi-turn: send prompts as token-ids (exact length) or text; multi-turn over HTTP needs text [token-ids]")
          ->group("Workload"));
  add(app.add_option("--tokenizer", f->tokenizer,
                     "random, mlperf: send text prompts of exactly --input-len tokens by this tokenizer "
                     "(tokenizer.json, a directory holding one, or a .gguf model; docs/workloads.md)")
          ->group("Workload"));
  add(app.add_flag("--ignore-eos,!--no-ignore-eos", f->ignore_eos,
                   "Ask the server to ignore EOS so outputs reach max_tokens [on for random]")
          ->group("Workload"));
  add(app.add_option("--seed", f->seed, "Seeds the dataset and the arrival schedule [0]")
          ->group("Workload"));
  add(app.add_option("--num-prompts", f->num_prompts, "Requests measured, after warm-up [1000]")
          ->group("Load"));
  add(app.add_option("--duration", f->duration_s, "Stop issuing after this many seconds")
          ->group("Load"));
  add(app.add_option("--warmup", f->warmup, "Requests sent first and left out of metrics [0]")
          ->group("Load"));
  add(app.add_option("--max-concurrency", f->max_concurrency,
                     "Closed loop: at most N requests in flight [no cap]")
          ->group("Load"));
  add(app.add_option("--request-rate", f->request_rate,
                     "Open loop: requests/s, or inf for all at once [inf]")
          ->group("Load"));
  add(app.add_option("--session-rate", f->session_rate,
                     "Sessions: sessions started per second, or inf (trace arrivals, else all at once) [inf]")
          ->group("Load"));
  add(app.add_option("--burstiness", f->burstiness,
                     "Gamma shape of arrival gaps: 1 = Poisson, inf = all at once [1]")
          ->group("Load"));
  add(app.add_option("--percentiles", f->percentiles,
                     "Comma-separated percentiles to report [50,90,95,99,99.9]")
          ->group("Metrics"));
  add(app.add_option("--goodput", f->goodput, "SLOs for goodput: ttft:MS tpot:MS e2el:MS")
          ->group("Metrics"));
  add(app.add_option("--num-gpus", f->num_gpus, "GPUs serving the endpoint, for per-GPU throughput [1]")
          ->group("Metrics"));
  add(app.add_option("--timeslice", f->timeslice_s,
                     "Window in seconds of the per-window metrics and the steady-state span; 0 = the run's "
                     "duration / 30 rounded up to 1, 2 or 5 x 10^k s [0]")
          ->group("Metrics"));
  add(app.add_option("--result-json", f->result_json, "Write the result JSON here (atomically)")
          ->group("Output"));
  add(app.add_option("--requests-jsonl", f->requests_jsonl,
                     "Write one JSON record per request here, as each ends")
          ->group("Output"));
  add(app.add_option("--scenario", f->scenario,
                     "MLPerf scenario: offline (all at once), server (Poisson at --target-qps), interactive "
                     "(server with the tighter limits); judged VALID or INVALID")
          ->group("Scenario"));
  add(app.add_option("--target-qps", f->target_qps, "Server/Interactive: Poisson arrival rate; Offline: expected QPS")
          ->group("Scenario"));
  add(app.add_option("--min-duration", f->min_duration_s, "Scenario: minimum run length, seconds [600]")
          ->group("Scenario"));
  add(app.add_option("--min-query-count", f->min_query_count,
                     "Scenario: minimum queries (Offline: samples) [Server 459 at p99, Offline the benchmark's]")
          ->group("Scenario"));
  add(app.add_option("--mlperf-benchmark", f->mlperf_benchmark,
                     "Scenario constraints of this MLPerf benchmark (data/mlperf/benchmarks.json) [from the model]")
          ->group("Scenario"));
  add(app.add_option("--slo", f->slo, "Latency constraints metric_pP:MS, e.g. ttft_p99:450 tpot_p99:40")
          ->group("Scenario"));
  add(app.add_option("--min-interactivity", f->min_interactivity,
                     "SLO: at least this many tokens/s per user (1000 / median TPOT)")
          ->group("Scenario"));
}

inline Result<ResolvedWorkload> ResolveWorkload(const WorkloadFlags& f) {
  ResolvedWorkload w;
  auto given = [&](const std::string& name) {
    for (const CLI::Option* o : f.options)
      if (o->get_name() == name || o->check_lname(name.substr(2))) return o->count() > 0;
    return false;
  };
  for (const CLI::Option* o : f.options) {
    if (o->count() == 0) continue;
    std::string name = o->get_name();
    if (name.rfind("--", 0) == 0) name = name.substr(2);
    std::string value;
    for (const auto& r : o->results()) value += (value.empty() ? "" : " ") + r;
    w.requested[name] = value;
  }

  // Dataset: the one workload spec and its validator (workload/spec.h).
  // Rules that depend on which flags were given (not on their values) come first.
  const bool session_kind = f.dataset == "trace" || f.dataset == "multi-turn";
  if (!session_kind)
    for (const char* flag : {"--think-time-ms", "--max-think-time-ms", "--session-rate"})
      if (given(flag)) return InvalidArgument(std::string(flag) + " needs a session workload (--dataset trace or multi-turn)");
  if (f.cancel_fraction == 0 && (given("--cancel-after-tokens") || given("--cancel-after-ms")))
    return InvalidArgument("--cancel-after-tokens and --cancel-after-ms need --cancel-fraction F > 0");
  workload::WorkloadSpec spec;
  spec.dataset = f.dataset;
  spec.path = f.dataset == "trace" ? f.trace : f.dataset_path;
  spec.input_len = f.input_len;
  spec.output_len = f.output_len;
  spec.range_ratio = f.range_ratio;
  spec.prefix_len = f.prefix_len;
  if (f.dataset == "sharegpt" && given("--output-len")) spec.sharegpt_output_len = f.output_len;
  spec.trace_format = f.trace_format;
  spec.trace_block_tokens = f.trace_block_tokens;
  spec.gsp_num_groups = f.gsp_num_groups;
  spec.gsp_prompts_per_group = f.gsp_prompts_per_group;
  spec.gsp_system_prompt_len = f.gsp_system_prompt_len;
  spec.gsp_question_len = f.gsp_question_len;
  spec.gsp_output_len = f.gsp_output_len;
  spec.mt_turns = f.mt_turns;
  spec.mt_system_prompt_len = f.mt_system_prompt_len;
  spec.mt_message_len = f.mt_message_len;
  spec.think_time_ms = f.think_time_ms;
  spec.max_think_time_ms = f.max_think_time_ms;
  spec.cancel_fraction = f.cancel_fraction;
  spec.cancel_after_tokens = f.cancel_after_tokens;
  spec.cancel_after_ms = f.cancel_after_ms;
  spec.ideal_block_tokens = f.ideal_block_tokens;
  spec.seed = f.seed;
  if (given("--prompt-format")) spec.prompt_format = f.prompt_format;  // else the dataset's default
  if (std::optional<workload::SpecProblem> bad = workload::CheckWorkloadSpec(spec))
    return InvalidArgument(std::string(workload::SpecFieldFlag(bad->field, f.dataset)) + " " + bad->message);
  w.dataset = workload::ToDatasetOptions(spec);
  // Synthetic prompts have no natural end: their outputs run to max_tokens.
  const bool random =
      w.dataset.kind == workload::DatasetKind::kRandom || w.dataset.kind == workload::DatasetKind::kMlperf;
  const bool file_dataset = w.dataset.kind == workload::DatasetKind::kShareGpt ||
                            w.dataset.kind == workload::DatasetKind::kJsonl;
  if (!file_dataset && !f.dataset_path.empty())
    return InvalidArgument(std::string("--dataset-path needs --dataset sharegpt or jsonl (") +
                           workload::DatasetKindName(w.dataset.kind) + " takes " +
                           (w.dataset.kind == workload::DatasetKind::kTrace ? "--trace FILE)" : "no file)"));
  w.sessions = workload::IsSessionKind(w.dataset.kind);
  if (w.dataset.kind != workload::DatasetKind::kTrace && given("--trace")) {
    return InvalidArgument("--trace needs --dataset trace");
  }
  if (w.sessions)
    for (const char* flag : {"--request-rate", "--warmup"})
      if (given(flag))
        return InvalidArgument(std::string(flag) + " cannot be given with --dataset " +
                               workload::DatasetKindName(w.dataset.kind) +
                               ": sessions start at --session-rate (or the trace's arrivals), without warm-up");
  if (given("--tokenizer")) {
    if (!random)
      return InvalidArgument(std::string("--tokenizer needs --dataset random or mlperf:NAME (") +
                             workload::DatasetKindName(w.dataset.kind) + " prompts are not made to a token count)");
    if (given("--prompt-format") && f.prompt_format != "text")
      return InvalidArgument("--tokenizer makes text prompts: drop --prompt-format " + f.prompt_format +
                             " or give --prompt-format text");
    if (f.tokenizer.empty()) return InvalidArgument("--tokenizer needs a path (tokenizer.json, a directory, or a .gguf)");
    w.tokenizer = f.tokenizer;
    w.dataset.random.format = workload::PromptFormat::kText;
  }
  w.ideal_block_tokens = static_cast<int>(f.ideal_block_tokens);
  w.ignore_eos = given("--ignore-eos") ? f.ignore_eos : random;

  // Load.
  FRONTIER_RETURN_IF_ERROR(CheckRange("--num-prompts", f.num_prompts, 1, kMaxRunRequests));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--warmup", f.warmup, 0, kMaxRunRequests - f.num_prompts));
  if (given("--max-concurrency"))
    FRONTIER_RETURN_IF_ERROR(CheckRange("--max-concurrency", f.max_concurrency, 1, kMaxRunRequests));
  FRONTIER_ASSIGN_OR_RETURN(double rate, ParseNumberOrInf("--request-rate", f.request_rate));
  if (w.sessions) {
    FRONTIER_ASSIGN_OR_RETURN(rate, ParseNumberOrInf("--session-rate", f.session_rate));
  }
  if (!(rate > 0) || (std::isfinite(rate) && rate > 1e9))
    return InvalidArgument(std::string(w.sessions ? "--session-rate" : "--request-rate") +
                           " must be a number in (0, 1e9] or 'inf', got '" +
                           (w.sessions ? f.session_rate : f.request_rate) + "'");
  FRONTIER_ASSIGN_OR_RETURN(double burst, ParseNumberOrInf("--burstiness", f.burstiness));
  if (!(burst > 0) || (std::isfinite(burst) && burst > 1e6))
    return InvalidArgument("--burstiness must be a number in (0, 1e6] or 'inf', got '" + f.burstiness + "'");
  if (std::isinf(burst)) {  // all at once
    rate = std::numeric_limits<double>::infinity();
    burst = 1.0;
  }
  w.load.request_rate = rate;
  w.load.burstiness = burst;
  w.load.seed = f.seed;
  w.load.warmup = f.warmup;
  if (given("--max-concurrency")) w.load.max_concurrency = f.max_concurrency;
  w.load.num_prompts = f.num_prompts;
  w.dataset.num_prompts = f.num_prompts + f.warmup;
  if (!given("--num-prompts")) {
    if (w.dataset.kind == workload::DatasetKind::kSharedPrefix) {
      w.load.num_prompts = f.gsp_num_groups * f.gsp_prompts_per_group;
      w.dataset.num_prompts = w.load.num_prompts + f.warmup;
    } else if (w.dataset.kind == workload::DatasetKind::kTrace) {
      w.dataset.num_prompts = 0;  // every session of the trace (PrepareWorkload sets the load's count)
    } else if (w.dataset.kind == workload::DatasetKind::kMultiTurn) {
      w.load.num_prompts = w.dataset.num_prompts = 100;
    }
  }
  if (given("--duration")) {
    if (!(f.duration_s > 0 && f.duration_s <= 1e9))
      return InvalidArgument("--duration must be a number of seconds in (0, 1e9], got " + FormatNumber(f.duration_s));
    if (!w.load.max_concurrency && std::isinf(rate) && !w.sessions)
      return InvalidArgument("--duration needs --max-concurrency or a finite --request-rate");
    w.load.duration_s = f.duration_s;
    if (!given("--num-prompts") && !w.sessions) {
      w.load.num_prompts = kUnboundedPrompts;
      w.dataset.num_prompts = kDurationDatasetSize;
      w.dataset.allow_repeat = true;
    }
  }

  // Metrics.
  w.summary.percentiles.clear();
  std::string rest = f.percentiles;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string item = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    char* end = nullptr;
    const double p = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !(p >= 0 && p <= 100) ||
        w.summary.percentiles.size() >= 100)
      return InvalidArgument("--percentiles must be at most 100 comma-separated numbers in [0, 100], got '" +
                             f.percentiles + "'");
    w.summary.percentiles.push_back(p);
  }
  if (w.summary.percentiles.empty()) return InvalidArgument("--percentiles must list at least one value");
  for (const std::string& g : f.goodput) {
    const size_t colon = g.find(':');
    const std::string key = g.substr(0, colon);
    char* end = nullptr;
    const std::string num = colon == std::string::npos ? "" : g.substr(colon + 1);
    const double ms = std::strtod(num.c_str(), &end);
    if (num.empty() || end != num.c_str() + num.size() || !(ms > 0) || !(ms <= 1e9))
      return InvalidArgument("--goodput takes ttft:MS, tpot:MS or e2el:MS with MS in (0, 1e9], got '" + g + "'");
    if (key == "ttft") {
      w.summary.goodput.ttft_ms = ms;
    } else if (key == "tpot") {
      w.summary.goodput.tpot_ms = ms;
    } else if (key == "e2el") {
      w.summary.goodput.e2el_ms = ms;
    } else {
      return InvalidArgument("--goodput metric must be ttft, tpot or e2el, got '" + key + "'");
    }
  }
  FRONTIER_RETURN_IF_ERROR(CheckRange("--num-gpus", int64_t{f.num_gpus}, 1, 1'000'000));
  // A random workload's prompts are held in memory as token ids.
  if (random) {
    const double tokens = static_cast<double>(w.dataset.num_prompts) *
                          (std::ceil(static_cast<double>(f.input_len) * (1 + f.range_ratio)) +
                           static_cast<double>(f.prefix_len));
    if (tokens > static_cast<double>(kMaxRunPromptTokens))
      return InvalidArgument("the prompts would hold " + FormatNumber(tokens) +
                             " tokens ((--num-prompts + --warmup) x (--input-len x (1 + --range-ratio) + "
                             "--prefix-len)); at most " + std::to_string(kMaxRunPromptTokens));
  }
  w.summary.num_gpus = f.num_gpus;
  w.summary.timeslice.slice_s = f.timeslice_s;
  FRONTIER_RETURN_IF_ERROR(metrics::CheckTimesliceOptions(w.summary.timeslice));
  w.result_json = f.result_json;
  w.requests_jsonl = f.requests_jsonl;

  // Scenario and SLO.
  const bool any_scenario_flag =
      given("--scenario") || given("--target-qps") || given("--min-duration") || given("--min-query-count") ||
      given("--mlperf-benchmark") || given("--slo") || given("--min-interactivity");
  if (any_scenario_flag && w.sessions)
    return InvalidArgument("the scenario flags (--scenario, --slo, ...) take single-turn workloads, not --dataset " +
                           std::string(workload::DatasetKindName(w.dataset.kind)));
  if (any_scenario_flag) {
    loadgen::ScenarioRequest q;
    if (given("--scenario")) {
      FRONTIER_ASSIGN_OR_RETURN(q.scenario, loadgen::ParseScenario(f.scenario));
      for (const char* flag : {"--request-rate", "--max-concurrency", "--burstiness", "--duration", "--num-prompts"})
        if (given(flag))
          return InvalidArgument(std::string(flag) + " cannot be given with --scenario, which sets the arrivals and "
                                                     "the run length (--target-qps, --min-duration, --min-query-count)");
    }
    if (given("--target-qps")) q.target_qps = f.target_qps;
    if (given("--min-duration")) q.min_duration_s = f.min_duration_s;
    if (given("--min-query-count")) q.min_query_count = f.min_query_count;
    if (given("--min-interactivity")) q.min_interactivity = f.min_interactivity;
    q.benchmark = f.mlperf_benchmark;
    FRONTIER_ASSIGN_OR_RETURN(q.slo, loadgen::ParseSlo(f.slo));
    w.scenario = q;
  }

  // Everything as resolved, for the result's provenance.
  auto num = [](double v) {
    if (std::isinf(v)) return std::string("inf");
    std::ostringstream ss;
    ss << v;
    return ss.str();
  };
  auto& e = w.effective;
  e["dataset"] = workload::DatasetKindName(w.dataset.kind);
  if (!w.dataset.path.empty()) e["dataset_path"] = w.dataset.path;
  if (random) {
    e["input_len"] = std::to_string(f.input_len);
    e["output_len"] = std::to_string(f.output_len);
    e["range_ratio"] = num(f.range_ratio);
    e["prefix_len"] = std::to_string(f.prefix_len);
    e["prompt_format"] = w.tokenizer.empty() ? f.prompt_format : "text";
  } else if (w.dataset.sharegpt_output_len) {
    e["output_len"] = std::to_string(*w.dataset.sharegpt_output_len);
  }
  if (w.dataset.kind == workload::DatasetKind::kSharedPrefix) {
    e["gsp_num_groups"] = std::to_string(f.gsp_num_groups);
    e["gsp_prompts_per_group"] = std::to_string(f.gsp_prompts_per_group);
    e["gsp_system_prompt_len"] = std::to_string(f.gsp_system_prompt_len);
    e["gsp_question_len"] = std::to_string(f.gsp_question_len);
    e["gsp_output_len"] = std::to_string(f.gsp_output_len);
  }
  if (w.dataset.kind == workload::DatasetKind::kTrace) {
    e["trace_format"] = workload::TraceFormatName(w.dataset.trace_format);
    e["trace_block_tokens"] = std::to_string(f.trace_block_tokens);
  }
  if (w.dataset.kind == workload::DatasetKind::kMultiTurn) {
    e["mt_turns"] = std::to_string(f.mt_turns);
    e["mt_system_prompt_len"] = std::to_string(f.mt_system_prompt_len);
    e["mt_message_len"] = std::to_string(f.mt_message_len);
    e["output_len"] = std::to_string(f.output_len);
    e["range_ratio"] = num(f.range_ratio);
  }
  if (w.sessions) {
    e["think_time_ms"] = num(f.think_time_ms);
    e["max_think_time_ms"] = num(f.max_think_time_ms);
    e["session_rate"] = num(w.load.request_rate);
  }
  if (f.cancel_fraction > 0) {
    e["cancel_fraction"] = num(f.cancel_fraction);
    if (f.cancel_after_tokens > 0) e["cancel_after_tokens"] = std::to_string(f.cancel_after_tokens);
    if (f.cancel_after_ms > 0) e["cancel_after_ms"] = num(f.cancel_after_ms);
  }
  e["ideal_block_tokens"] = std::to_string(f.ideal_block_tokens);
  e["ignore_eos"] = w.ignore_eos ? "true" : "false";
  e["seed"] = std::to_string(f.seed);
  e["num_prompts"] = w.load.num_prompts == kUnboundedPrompts ? "unbounded" : std::to_string(w.load.num_prompts);
  if (w.load.duration_s) e["duration_s"] = num(*w.load.duration_s);
  e["warmup"] = std::to_string(w.load.warmup);
  e["max_concurrency"] = w.load.max_concurrency ? std::to_string(*w.load.max_concurrency) : "none";
  e["request_rate"] = num(w.load.request_rate);
  e["burstiness"] = num(w.load.burstiness);
  std::string ps;
  for (double p : w.summary.percentiles) ps += (ps.empty() ? "" : ",") + num(p);
  e["percentiles"] = ps;
  if (w.summary.goodput.ttft_ms) e["goodput_ttft_ms"] = num(*w.summary.goodput.ttft_ms);
  if (w.summary.goodput.tpot_ms) e["goodput_tpot_ms"] = num(*w.summary.goodput.tpot_ms);
  if (w.summary.goodput.e2el_ms) e["goodput_e2el_ms"] = num(*w.summary.goodput.e2el_ms);
  e["num_gpus"] = std::to_string(w.summary.num_gpus);
  e["timeslice_s"] = w.summary.timeslice.slice_s > 0 ? num(w.summary.timeslice.slice_s) : "auto";
  return w;
}

inline Result<std::optional<loadgen::ScenarioRules>> ResolveScenarioRules(const ResolvedWorkload& w,
                                                                          const std::string& data_dir,
                                                                          std::string_view model_hint) {
  if (!w.scenario) return std::optional<loadgen::ScenarioRules>();
  std::vector<loadgen::MlperfBenchmark> table;
  if (w.scenario->scenario || !w.scenario->benchmark.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(table, loadgen::LoadMlperfBenchmarks(data_dir));
  }
  FRONTIER_ASSIGN_OR_RETURN(loadgen::ScenarioRules rules, loadgen::ResolveScenario(*w.scenario, table, model_hint));
  return std::optional<loadgen::ScenarioRules>(std::move(rules));
}

inline Status ApplyScenarioLoad(const loadgen::ScenarioRules& rules, ResolvedWorkload* w) {
  auto& e = w->effective;
  std::string slo;
  for (const auto& c : rules.constraints) slo += (slo.empty() ? "" : " ") + loadgen::FormatConstraint(c);
  if (!slo.empty()) e["slo"] = slo;
  if (rules.min_interactivity) e["min_interactivity"] = std::to_string(*rules.min_interactivity);
  if (!rules.scenario) return Status::Ok();
  FRONTIER_ASSIGN_OR_RETURN(w->load, loadgen::ScenarioLoad(rules, w->load));
  UseScenarioPromptPool(rules, w->load.num_prompts, w);
  e["scenario"] = loadgen::ScenarioName(*rules.scenario);
  if (!rules.benchmark.empty()) e["mlperf_benchmark"] = rules.benchmark;
  if (rules.target_qps) e["target_qps"] = std::to_string(*rules.target_qps);
  e["min_duration_s"] = std::to_string(rules.min_duration_s);
  e["min_query_count"] = std::to_string(rules.min_query_count);
  e["num_prompts"] = std::to_string(w->load.num_prompts);
  e["request_rate"] = std::isinf(w->load.request_rate) ? "inf" : std::to_string(w->load.request_rate);
  e["burstiness"] = "1";
  e.erase("duration_s");  // the load's duration bounds nothing (loadgen::ScenarioLoad)
  return Status::Ok();
}

}  // namespace frontier::cli
