// load_request.cc: the load's rules that depend on the dataset (load_request.h).
#include "workload/load_request.h"

#include <cmath>
#include <limits>

#include "core/limits.h"
#include "core/parse.h"
#include "workload/trace.h"

namespace frontier::workload {
namespace {

// The arrival rate (sessions/s for a session workload) and burstiness; inf
// burstiness sends everything at once.
Status ResolveArrivals(const LoadRequest& r, bool sessions, LoadOptions* load) {
  FRONTIER_ASSIGN_OR_RETURN(double rate, ParseNumberOrInf("--request-rate", r.request_rate));
  if (sessions) {
    FRONTIER_ASSIGN_OR_RETURN(rate, ParseNumberOrInf("--session-rate", r.session_rate));
  }
  if (!(rate > 0) || (std::isfinite(rate) && rate > bounds::kMaxRequestRate))
    return InvalidArgument(std::string(sessions ? "--session-rate" : "--request-rate") +
                           " must be a number in (0, 1e9] or 'inf', got '" +
                           (sessions ? r.session_rate : r.request_rate) + "'");
  FRONTIER_ASSIGN_OR_RETURN(double burst, ParseNumberOrInf("--burstiness", r.burstiness));
  if (!(burst > 0) || (std::isfinite(burst) && burst > kMaxBurstiness))
    return InvalidArgument("--burstiness must be a number in (0, " + FormatNumber(kMaxBurstiness) +
                           "] or 'inf', got '" + r.burstiness + "'");
  if (std::isinf(burst)) {  // all at once
    rate = std::numeric_limits<double>::infinity();
    burst = 1.0;
  }
  load->request_rate = rate;
  load->burstiness = burst;
  return Status::Ok();
}

// The request count a workload picks when none is given.
void DefaultCount(const LoadRequest& r, const WorkloadSpec& spec, DatasetOptions* dataset, LoadOptions* load) {
  if (dataset->kind == DatasetKind::kSharedPrefix) {
    load->num_prompts = spec.gsp_num_groups * spec.gsp_prompts_per_group;
    dataset->num_prompts = load->num_prompts + r.warmup;
  } else if (dataset->kind == DatasetKind::kTrace) {
    dataset->num_prompts = 0;  // every session of the trace (PrepareWorkload sets the load's count)
  } else if (dataset->kind == DatasetKind::kMultiTurn) {
    load->num_prompts = dataset->num_prompts = 100;
  }
}

Status ResolveDuration(const LoadRequest& r, bool sessions, DatasetOptions* dataset, LoadOptions* load) {
  const double d = *r.duration_s;
  if (!(d > 0 && d <= 1e9))
    return InvalidArgument("--duration must be a number of seconds in (0, 1e9], got " + FormatNumber(d));
  if (!load->max_concurrency && std::isinf(load->request_rate) && !sessions)
    return InvalidArgument("--duration needs --max-concurrency or a finite --request-rate");
  load->duration_s = d;
  if (!r.num_prompts_given && !sessions) {
    load->num_prompts = kUnboundedPrompts;
    dataset->num_prompts = kDurationDatasetSize;
    dataset->allow_repeat = true;
  }
  return Status::Ok();
}

}  // namespace

Result<double> ParseNumberOrInf(const std::string& flag, const std::string& text) {
  if (text == "inf" || text == "infinity" || text == "Inf") return std::numeric_limits<double>::infinity();
  const Result<double> v =
      ParseNumber(flag, text, std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max());
  if (!v.ok()) return InvalidArgument(flag + " must be a number or 'inf', got '" + text + "'");
  return *v;
}

std::string SettingNumber(double v) {
  if (std::isinf(v)) return "inf";
  return FormatSignificant(v);
}

Status ResolveLoad(const LoadRequest& r, const WorkloadSpec& spec, DatasetOptions* dataset, LoadOptions* load) {
  FRONTIER_RETURN_IF_ERROR(CheckRange("--num-prompts", r.num_prompts, 1, kMaxRunRequests));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--warmup", r.warmup, 0, kMaxRunRequests - r.num_prompts));
  if (r.max_concurrency)
    FRONTIER_RETURN_IF_ERROR(CheckRange("--max-concurrency", *r.max_concurrency, 1, kMaxConcurrency));
  const bool sessions = IsSessionKind(dataset->kind);
  FRONTIER_RETURN_IF_ERROR(ResolveArrivals(r, sessions, load));
  load->seed = r.seed;
  load->warmup = r.warmup;
  load->max_concurrency = r.max_concurrency;
  load->num_prompts = r.num_prompts;
  dataset->num_prompts = r.num_prompts + r.warmup;
  if (!r.num_prompts_given) DefaultCount(r, spec, dataset, load);
  if (r.duration_s) FRONTIER_RETURN_IF_ERROR(ResolveDuration(r, sessions, dataset, load));
  return Status::Ok();
}

double RandomPromptTokens(const RandomDatasetOptions& r, double prompts) {
  return prompts *
         (std::ceil(static_cast<double>(r.input_len) * (1 + r.range_ratio)) + static_cast<double>(r.prefix_len));
}

Status CheckPromptMemory(const DatasetOptions& dataset) {
  if (dataset.kind != DatasetKind::kRandom && dataset.kind != DatasetKind::kMlperf) return Status::Ok();
  const double tokens = RandomPromptTokens(dataset.random, static_cast<double>(dataset.num_prompts));
  if (tokens > static_cast<double>(kMaxRunPromptTokens))
    return InvalidArgument("the prompts would hold " + FormatNumber(tokens) +
                           " tokens ((--num-prompts + --warmup) x (--input-len x (1 + --range-ratio) + "
                           "--prefix-len)); at most " + std::to_string(kMaxRunPromptTokens));
  return Status::Ok();
}

namespace {

// The settings of the dataset kind's own fields.
void DescribeDataset(const WorkloadSpec& spec, const DatasetOptions& d, const std::string& prompt_format,
                     std::map<std::string, std::string>& e) {
  const bool random = d.kind == DatasetKind::kRandom || d.kind == DatasetKind::kMlperf;
  if (random) {
    e["input_len"] = std::to_string(spec.input_len);
    e["output_len"] = std::to_string(spec.output_len);
    e["range_ratio"] = SettingNumber(spec.range_ratio);
    e["prefix_len"] = std::to_string(spec.prefix_len);
  } else if (d.sharegpt_output_len) {
    e["output_len"] = std::to_string(*d.sharegpt_output_len);
  }
  if (random || d.kind == DatasetKind::kMultiTurn) e["prompt_format"] = prompt_format;  // the kinds that take it
  if (d.kind == DatasetKind::kSharedPrefix) {
    e["gsp_num_groups"] = std::to_string(spec.gsp_num_groups);
    e["gsp_prompts_per_group"] = std::to_string(spec.gsp_prompts_per_group);
    e["gsp_system_prompt_len"] = std::to_string(spec.gsp_system_prompt_len);
    e["gsp_question_len"] = std::to_string(spec.gsp_question_len);
    e["gsp_output_len"] = std::to_string(spec.gsp_output_len);
  }
  if (d.kind == DatasetKind::kTrace) {
    e["trace_format"] = TraceFormatName(d.trace_format);
    e["trace_block_tokens"] = std::to_string(spec.trace_block_tokens);
  }
  if (d.kind == DatasetKind::kMultiTurn) {
    e["mt_turns"] = std::to_string(spec.mt_turns);
    e["mt_system_prompt_len"] = std::to_string(spec.mt_system_prompt_len);
    e["mt_message_len"] = std::to_string(spec.mt_message_len);
    e["output_len"] = std::to_string(spec.output_len);
    e["range_ratio"] = SettingNumber(spec.range_ratio);
  }
}

}  // namespace

void DescribeWorkload(const WorkloadSpec& spec, const DatasetOptions& dataset, const LoadOptions& load,
                      bool ignore_eos, const std::string& prompt_format,
                      std::map<std::string, std::string>* effective) {
  auto& e = *effective;
  e["dataset"] = DatasetKindName(dataset.kind);
  if (!dataset.path.empty()) e["dataset_path"] = dataset.path;
  DescribeDataset(spec, dataset, prompt_format, e);
  if (IsSessionKind(dataset.kind)) {
    e["think_time_ms"] = SettingNumber(spec.think_time_ms);
    e["max_think_time_ms"] = SettingNumber(spec.max_think_time_ms);
    e["session_rate"] = SettingNumber(load.request_rate);
  }
  if (spec.cancel_fraction > 0) {
    e["cancel_fraction"] = SettingNumber(spec.cancel_fraction);
    if (spec.cancel_after_tokens > 0) e["cancel_after_tokens"] = std::to_string(spec.cancel_after_tokens);
    if (spec.cancel_after_ms > 0) e["cancel_after_ms"] = SettingNumber(spec.cancel_after_ms);
  }
  e["ideal_block_tokens"] = std::to_string(spec.ideal_block_tokens);
  e["ignore_eos"] = ignore_eos ? "true" : "false";
  e["seed"] = std::to_string(spec.seed);
  e["num_prompts"] = load.num_prompts == kUnboundedPrompts ? "unbounded" : std::to_string(load.num_prompts);
  if (load.duration_s) e["duration_s"] = SettingNumber(*load.duration_s);
  e["warmup"] = std::to_string(load.warmup);
  e["max_concurrency"] = load.max_concurrency ? std::to_string(*load.max_concurrency) : "none";
  e["request_rate"] = SettingNumber(load.request_rate);
  e["burstiness"] = SettingNumber(load.burstiness);
}

}  // namespace frontier::workload
