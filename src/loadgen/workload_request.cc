// workload_request.cc: the shared workload flags (workload_request.h): one
// table of flags, and their resolution in steps (dataset, load, metrics,
// scenario, provenance), each naming the flag at fault.
#include "loadgen/workload_request.h"

#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>

#include "core/parse.h"
#include "metrics/percentile_list.h"
#include "metrics/summary.h"
#include "workload/dataset.h"
#include "workload/load_request.h"
#include "workload/option_names.h"
#include "workload/spec.h"

namespace frontier::loadgen {
namespace {

// Every flag in the order --help lists it.
const FlagRow<WorkloadRequest> kFlags[] = {
    {"--dataset", &WorkloadRequest::dataset, "Workload: random, sharegpt, jsonl, shared-prefix, trace, multi-turn, or mlperf:BENCHMARK (llama2-70b, mixtral-8x7b: its published length distribution) [random]", "Workload"},
    {"--trace", &WorkloadRequest::trace, "trace: session trace JSONL (docs/workloads.md)", "Workload"},
    {"--trace-format", &WorkloadRequest::trace_format, "trace: auto, frontier, mooncake or agentic [auto: from the first line]", "Workload"},
    {"--trace-block-tokens", &WorkloadRequest::trace_block_tokens, "trace: tokens per hash_ids block [512, Mooncake's]", "Workload"},
    {"--gsp-num-groups", &WorkloadRequest::gsp_num_groups, "shared-prefix: groups G [64]", "Workload"},
    {"--gsp-prompts-per-group", &WorkloadRequest::gsp_prompts_per_group, "shared-prefix: prompts per group P [16]", "Workload"},
    {"--gsp-system-prompt-len", &WorkloadRequest::gsp_system_prompt_len, "shared-prefix: shared system prompt per group, tokens [2048]", "Workload"},
    {"--gsp-question-len", &WorkloadRequest::gsp_question_len, "shared-prefix: question tokens [128]", "Workload"},
    {"--gsp-output-len", &WorkloadRequest::gsp_output_len, "shared-prefix: output tokens [256]", "Workload"},
    {"--mt-turns", &WorkloadRequest::mt_turns, "multi-turn: turns per session [5]", "Workload"},
    {"--mt-system-prompt-len", &WorkloadRequest::mt_system_prompt_len, "multi-turn: system prompt shared by every session, tokens [0]", "Workload"},
    {"--mt-message-len", &WorkloadRequest::mt_message_len, "multi-turn: user message per turn, tokens (--range-ratio applies) [256]", "Workload"},
    {"--think-time-ms", &WorkloadRequest::think_time_ms, "Sessions: mean think time between turns (exponential), where the trace gives none [0]", "Workload"},
    {"--max-think-time-ms", &WorkloadRequest::max_think_time_ms, "Sessions: think time cap [60000]", "Workload"},
    {"--cancel-fraction", &WorkloadRequest::cancel_fraction, "Cancel this fraction of requests (client abort; counted apart) [0]", "Workload"},
    {"--cancel-after-tokens", &WorkloadRequest::cancel_after_tokens, "Cancel after K output tokens", "Workload"},
    {"--cancel-after-ms", &WorkloadRequest::cancel_after_ms, "Cancel T ms after the request was sent", "Workload"},
    {"--ideal-block-tokens", &WorkloadRequest::ideal_block_tokens, "Block size of the ideal prefix-cache hit rate [16, vLLM's]", "Metrics"},
    {"--dataset-path", &WorkloadRequest::dataset_path, "ShareGPT JSON or JSONL file ({\"prompt\": ..., \"output_len\": N} a line)", "Workload"},
    {"--input-len", &WorkloadRequest::input_len, "random: mean input length, tokens [1024]", "Workload"},
    {"--output-len", &WorkloadRequest::output_len, "random: mean output length; sharegpt: fixed output length [128]", "Workload"},
    {"--range-ratio", &WorkloadRequest::range_ratio, "random: lengths uniform in [(1-r)L, (1+r)L], 0 <= r < 1 [0]", "Workload"},
    {"--prefix-len", &WorkloadRequest::prefix_len, "random: shared prefix tokens [0]", "Workload"},
    {"--prompt-format", &WorkloadRequest::prompt_format, "random, multi-turn: send prompts as token-ids (exact length) or text [token-ids; text for a multi-turn workload sent to a server]", "Workload"},
    {"--tokenizer", &WorkloadRequest::tokenizer, "random, mlperf: send text prompts of exactly --input-len tokens by this tokenizer (tokenizer.json, a directory holding one, or a .gguf model; docs/workloads.md)", "Workload"},
    {"--ignore-eos,!--no-ignore-eos", &WorkloadRequest::ignore_eos, "Ask the server to ignore EOS so outputs reach max_tokens [on for random]", "Workload"},
    {"--seed", &WorkloadRequest::seed, "Seeds the dataset and the arrival schedule [0]", "Workload"},
    {"--num-prompts", &WorkloadRequest::num_prompts, "Requests measured, after warm-up [1000]", "Load"},
    {"--duration", &WorkloadRequest::duration_s, "Stop issuing after this many seconds", "Load"},
    {"--warmup", &WorkloadRequest::warmup, "Requests sent first and left out of metrics [0]", "Load"},
    {"--max-concurrency", &WorkloadRequest::max_concurrency, "Closed loop: at most N requests in flight [no cap]", "Load"},
    {"--request-rate", &WorkloadRequest::request_rate, "Open loop: requests/s, or inf for all at once [inf]", "Load"},
    {"--session-rate", &WorkloadRequest::session_rate, "Sessions: sessions started per second, or inf (trace arrivals, else all at once) [inf]", "Load"},
    {"--burstiness", &WorkloadRequest::burstiness, "Gamma shape of arrival gaps: 1 = Poisson, inf = all at once [1]", "Load"},
    {"--percentiles", &WorkloadRequest::percentiles, "Comma-separated percentiles to report [50,90,95,99,99.9]", "Metrics"},
    {"--goodput", &WorkloadRequest::goodput, "SLOs for goodput: ttft:MS tpot:MS e2el:MS", "Metrics"},
    {"--num-gpus", &WorkloadRequest::num_gpus, "GPUs serving the endpoint, for per-GPU throughput [1]", "Metrics"},
    {"--timeslice", &WorkloadRequest::timeslice_s, "Window in seconds of the per-window metrics and the steady-state span; 0 = the run's duration / 30 rounded up to 1, 2 or 5 x 10^k s [0]", "Metrics"},
    {"--result-json", &WorkloadRequest::result_json, "Write the result JSON here (atomically)", "Output"},
    {"--requests-jsonl", &WorkloadRequest::requests_jsonl, "Write one JSON record per request here, as each ends", "Output"},
    {"--scenario", &WorkloadRequest::scenario, "MLPerf scenario: offline (all at once), server (Poisson at --target-qps), interactive (server with the tighter limits); judged VALID or INVALID", "Scenario"},
    {"--target-qps", &WorkloadRequest::target_qps, "Server/Interactive: Poisson arrival rate; Offline: expected QPS", "Scenario"},
    {"--min-duration", &WorkloadRequest::min_duration_s, "Scenario: minimum run length, seconds [600]", "Scenario"},
    {"--min-query-count", &WorkloadRequest::min_query_count, "Scenario: minimum queries (Offline: samples) [Server 459 at p99, Offline the benchmark's]", "Scenario"},
    {"--mlperf-benchmark", &WorkloadRequest::mlperf_benchmark, "Scenario constraints of this MLPerf benchmark (data/mlperf/benchmarks.json) [from the model]", "Scenario"},
    {"--slo", &WorkloadRequest::slo, "Latency constraints metric_pP:MS, e.g. ttft_p99:450 tpot_p99:40", "Scenario"},
    {"--min-interactivity", &WorkloadRequest::min_interactivity, "SLO: at least this many tokens/s per user (1000 / median TPOT)", "Scenario"},
};

// Whether the flag `name` ("--seed") was given on the command line.
bool Given(const WorkloadRequest& f, std::string_view name) { return f.given.contains(std::string(name.substr(2))); }

// The flags' workload fields as the one spec the validator checks; the rules
// that depend on which flags were given (not on their values) first.
Result<workload::WorkloadSpec> SpecOf(const WorkloadRequest& f) {
  const bool session_kind = f.dataset == "trace" || f.dataset == "multi-turn";
  if (!session_kind)
    for (const char* flag : {"--think-time-ms", "--max-think-time-ms", "--session-rate"})
      if (Given(f, flag))
        return InvalidArgument(std::string(flag) + " needs a session workload (--dataset trace or multi-turn)");
  if (f.cancel_fraction == 0 && (Given(f, "--cancel-after-tokens") || Given(f, "--cancel-after-ms")))
    return InvalidArgument("--cancel-after-tokens and --cancel-after-ms need --cancel-fraction F > 0");
  workload::WorkloadSpec spec;
  spec.dataset = f.dataset;
  spec.path = f.dataset == "trace" ? f.trace : f.dataset_path;
  spec.input_len = f.input_len;
  spec.output_len = f.output_len;
  spec.range_ratio = f.range_ratio;
  spec.prefix_len = f.prefix_len;
  if (f.dataset == "sharegpt" && Given(f, "--output-len")) spec.sharegpt_output_len = f.output_len;
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
  if (Given(f, "--prompt-format")) spec.prompt_format = f.prompt_format;  // else the dataset's default
  if (Given(f, "--ignore-eos")) spec.ignore_eos = f.ignore_eos;            // else the dataset's default
  if (Given(f, "--tokenizer")) spec.tokenizer = f.tokenizer;
  if (std::optional<workload::SpecProblem> bad = workload::CheckWorkloadSpec(spec))
    return InvalidArgument(std::string(workload::SpecFieldFlag(bad->field, f.dataset)) + " " + bad->message);
  return spec;
}

bool RandomPrompts(workload::DatasetKind kind) {
  return kind == workload::DatasetKind::kRandom || kind == workload::DatasetKind::kMlperf;
}

// The flags a dataset kind does not take, and --tokenizer's conditions.
Status CheckDatasetFlags(const WorkloadRequest& f, const ResolvedWorkload& w) {
  const workload::DatasetKind kind = w.dataset.kind;
  const bool file_dataset = kind == workload::DatasetKind::kShareGpt || kind == workload::DatasetKind::kJsonl;
  if (!file_dataset && !f.dataset_path.empty())
    return InvalidArgument(std::string("--dataset-path needs --dataset sharegpt or jsonl (") +
                           workload::DatasetKindName(kind) + " takes " +
                           (kind == workload::DatasetKind::kTrace ? "--trace FILE)" : "no file)"));
  if (kind != workload::DatasetKind::kTrace && Given(f, "--trace")) return InvalidArgument("--trace needs --dataset trace");
  if (w.sessions)
    for (const char* flag : {"--request-rate", "--warmup"})
      if (Given(f, flag))
        return InvalidArgument(std::string(flag) + " cannot be given with --dataset " +
                               workload::DatasetKindName(kind) +
                               ": sessions start at --session-rate (or the trace's arrivals), without warm-up");
  if (!Given(f, "--tokenizer")) return Status::Ok();
  if (!RandomPrompts(kind))
    return InvalidArgument(std::string("--tokenizer needs --dataset random or mlperf:NAME (") +
                           workload::DatasetKindName(kind) + " prompts are not made to a token count)");
  if (Given(f, "--prompt-format") && f.prompt_format != "text")
    return InvalidArgument("--tokenizer makes text prompts: drop --prompt-format " + f.prompt_format +
                           " or give --prompt-format text");
  if (f.tokenizer.empty()) return InvalidArgument("--tokenizer needs a path (tokenizer.json, a directory, or a .gguf)");
  return Status::Ok();
}

Status ResolveDataset(const WorkloadRequest& f, const workload::WorkloadSpec& spec, ResolvedWorkload* w) {
  w->dataset = workload::ToDatasetOptions(spec);
  w->dataset.random.format = workload::PromptFormatFor(spec, f.over_http);
  if (f.over_http)
    if (std::optional<workload::SpecProblem> bad = workload::CheckPromptFormatOverHttp(spec))
      return InvalidArgument(std::string(workload::SpecFieldFlag(bad->field, f.dataset)) + " " + bad->message);
  w->sessions = workload::IsSessionKind(w->dataset.kind);
  FRONTIER_RETURN_IF_ERROR(CheckDatasetFlags(f, *w));
  w->tokenizer = spec.tokenizer;  // its prompts are text (workload::PromptFormatFor)
  w->ideal_block_tokens = static_cast<int>(f.ideal_block_tokens);
  w->ignore_eos = workload::IgnoreEosFor(spec);
  return Status::Ok();
}

workload::LoadRequest LoadRequestOf(const WorkloadRequest& f) {
  workload::LoadRequest r;
  r.num_prompts = f.num_prompts;
  r.num_prompts_given = Given(f, "--num-prompts");
  r.warmup = f.warmup;
  if (Given(f, "--max-concurrency")) r.max_concurrency = f.max_concurrency;
  r.request_rate = f.request_rate;
  r.session_rate = f.session_rate;
  r.burstiness = f.burstiness;
  if (Given(f, "--duration")) r.duration_s = f.duration_s;
  r.seed = f.seed;
  return r;
}

Status ParseGoodput(const std::vector<std::string>& items, metrics::GoodputSlo* slo) {
  for (const std::string& g : items) {
    const size_t colon = g.find(':');
    const std::string key = g.substr(0, colon);
    const std::string num = colon == std::string::npos ? "" : g.substr(colon + 1);
    const Result<double> parsed = ParseNumber("--goodput", num, 0, 1e9);  // all of the text
    const double ms = parsed.ok() ? *parsed : 0;
    if (!(ms > 0))
      return InvalidArgument("--goodput takes ttft:MS, tpot:MS or e2el:MS with MS in (0, 1e9], got '" + g + "'");
    if (key == "ttft") {
      slo->ttft_ms = ms;
    } else if (key == "tpot") {
      slo->tpot_ms = ms;
    } else if (key == "e2el") {
      slo->e2el_ms = ms;
    } else {
      return InvalidArgument("--goodput metric must be ttft, tpot or e2el, got '" + key + "'");
    }
  }
  return Status::Ok();
}

Status ResolveMetrics(const WorkloadRequest& f, ResolvedWorkload* w) {
  FRONTIER_ASSIGN_OR_RETURN(w->summary.percentiles, metrics::ParsePercentileList(f.percentiles, "--percentiles"));
  FRONTIER_RETURN_IF_ERROR(ParseGoodput(f.goodput, &w->summary.goodput));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--num-gpus", int64_t{f.num_gpus}, 1, 1'000'000));
  FRONTIER_RETURN_IF_ERROR(workload::CheckPromptMemory(w->dataset));
  w->summary.num_gpus = f.num_gpus;
  w->summary.timeslice.slice_s = f.timeslice_s;
  FRONTIER_RETURN_IF_ERROR(metrics::CheckTimesliceOptions(w->summary.timeslice));
  w->result_json = f.result_json;
  w->requests_jsonl = f.requests_jsonl;
  return Status::Ok();
}

Status ResolveScenario(const WorkloadRequest& f, ResolvedWorkload* w) {
  const bool any_scenario_flag = Given(f, "--scenario") || Given(f, "--target-qps") || Given(f, "--min-duration") ||
                                 Given(f, "--min-query-count") || Given(f, "--mlperf-benchmark") ||
                                 Given(f, "--slo") || Given(f, "--min-interactivity");
  if (!any_scenario_flag) return Status::Ok();
  if (w->sessions)
    return InvalidArgument("the scenario flags (--scenario, --slo, ...) take single-turn workloads, not --dataset " +
                           std::string(workload::DatasetKindName(w->dataset.kind)));
  loadgen::ScenarioRequest q;
  if (Given(f, "--scenario")) {
    FRONTIER_ASSIGN_OR_RETURN(q.scenario, loadgen::ParseScenario(f.scenario));
    for (const char* flag : {"--request-rate", "--max-concurrency", "--burstiness", "--duration", "--num-prompts"})
      if (Given(f, flag))
        return InvalidArgument(std::string(flag) + " cannot be given with --scenario, which sets the arrivals and "
                                                   "the run length (--target-qps, --min-duration, --min-query-count)");
  }
  if (Given(f, "--target-qps")) q.target_qps = f.target_qps;
  if (Given(f, "--min-duration")) q.min_duration_s = f.min_duration_s;
  if (Given(f, "--min-query-count")) q.min_query_count = f.min_query_count;
  if (Given(f, "--min-interactivity")) q.min_interactivity = f.min_interactivity;
  q.benchmark = f.mlperf_benchmark;
  FRONTIER_ASSIGN_OR_RETURN(q.slo, loadgen::ParseSlo(f.slo));
  w->scenario = q;
  return Status::Ok();
}

// The summary's settings, for provenance.
void DescribeSummary(const metrics::SummaryOptions& s, std::map<std::string, std::string>* effective) {
  auto& e = *effective;
  std::string ps;
  for (double p : s.percentiles) ps += (ps.empty() ? "" : ",") + workload::SettingNumber(p);
  e["percentiles"] = ps;
  if (s.goodput.ttft_ms) e["goodput_ttft_ms"] = workload::SettingNumber(*s.goodput.ttft_ms);
  if (s.goodput.tpot_ms) e["goodput_tpot_ms"] = workload::SettingNumber(*s.goodput.tpot_ms);
  if (s.goodput.e2el_ms) e["goodput_e2el_ms"] = workload::SettingNumber(*s.goodput.e2el_ms);
  e["num_gpus"] = std::to_string(s.num_gpus);
  e["timeslice_s"] = s.timeslice.slice_s > 0 ? workload::SettingNumber(s.timeslice.slice_s) : "auto";
}

}  // namespace

std::span<const FlagRow<WorkloadRequest>> WorkloadFlagRows() { return kFlags; }

std::span<const char* const> WorkloadFlagsWithoutPlanForm() {
  // --session-rate has one: a session workload's request_rate points start that many sessions a second;
  // --duration is load.duration_s, --percentiles and --timeslice the plan's percentiles and timeslice_s.
  static const char* const kWithoutPlanForm[] = {"--result-json", "--requests-jsonl"};
  return kWithoutPlanForm;
}

std::string PlanFormProblem(const std::string& command, std::span<const std::string> flags, const FlagGiven& given) {
  for (const std::string& flag : flags)
    if (given(flag)) return flag + " has no plan form; drop it or run " + command + " without --as-plan";
  return "";
}

Result<ResolvedWorkload> ResolveWorkload(const WorkloadRequest& f) {
  ResolvedWorkload w;
  w.requested = f.given;
  FRONTIER_ASSIGN_OR_RETURN(const workload::WorkloadSpec spec, SpecOf(f));
  FRONTIER_RETURN_IF_ERROR(ResolveDataset(f, spec, &w));
  FRONTIER_RETURN_IF_ERROR(workload::ResolveLoad(LoadRequestOf(f), spec, &w.dataset, &w.load));
  FRONTIER_RETURN_IF_ERROR(ResolveMetrics(f, &w));
  FRONTIER_RETURN_IF_ERROR(ResolveScenario(f, &w));
  workload::DescribeWorkload(spec, w.dataset, w.load, w.ignore_eos, w.dataset.random.format == workload::PromptFormat::kText ? "text" : "token-ids",
                             &w.effective);
  DescribeSummary(w.summary, &w.effective);
  return w;
}

}  // namespace frontier::loadgen
