#include "workload/spec.h"

#include <cmath>

#include "core/clock.h"
#include "core/limits.h"
#include "core/parse.h"
#include "workload/option_names.h"

namespace frontier::workload {
namespace {

std::optional<SpecProblem> Integer(SpecField field, int64_t value, int64_t min, int64_t max) {
  if (value >= min && value <= max) return std::nullopt;
  return SpecProblem{field, "must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                                "], got " + std::to_string(value)};
}

std::optional<SpecProblem> Length(SpecField field, int64_t value, int64_t min) {
  return Integer(field, value, min, kMaxRequestLength);
}

std::optional<SpecProblem> Number(SpecField field, double value, double min, double max) {
  if (std::isfinite(value) && value >= min && value <= max) return std::nullopt;
  return SpecProblem{field, "must be a number in [" + FormatNumber(min) + ", " + FormatNumber(max) + "], got " +
                                FormatNumber(value)};
}

}  // namespace

const char* SpecFieldName(SpecField field) {
  for (const OptionName& n : OptionNames())
    if (n.spec && n.field == field) return n.plan;
  return "?";
}

std::optional<SpecField> SpecFieldByName(std::string_view name) {
  for (const OptionName& n : OptionNames())
    if (n.spec && name == n.plan) return n.field;
  return std::nullopt;
}

bool SpecFieldApplies(SpecField field, DatasetKind kind) {
  using F = SpecField;
  using K = DatasetKind;
  switch (field) {
    case F::kDataset: case F::kCancelFraction: case F::kCancelAfterTokens: case F::kCancelAfterMs:
    case F::kIdealBlockTokens: case F::kSeed: case F::kIgnoreEos:
      return true;
    case F::kPath: return kind == K::kShareGpt || kind == K::kJsonl || kind == K::kTrace;
    case F::kInputLen: case F::kPrefixLen: return kind == K::kRandom;
    case F::kPromptFormat: return kind == K::kRandom || kind == K::kMultiTurn || kind == K::kMlperf;
    case F::kTokenizer: return kind == K::kRandom || kind == K::kMlperf;
    case F::kOutputLen: case F::kRangeRatio: return kind == K::kRandom || kind == K::kMultiTurn;
    case F::kSharegptOutputLen: return kind == K::kShareGpt;
    case F::kTraceFormat: case F::kTraceBlockTokens: return kind == K::kTrace;
    case F::kGspNumGroups: case F::kGspPromptsPerGroup: case F::kGspSystemPromptLen: case F::kGspQuestionLen:
    case F::kGspOutputLen:
      return kind == K::kSharedPrefix;
    case F::kMtTurns: case F::kMtSystemPromptLen: case F::kMtMessageLen: return kind == K::kMultiTurn;
    case F::kThinkTimeMs: case F::kMaxThinkTimeMs: return IsSessionKind(kind);
  }
  return false;
}

std::optional<SpecProblem> CheckWorkloadSpec(const WorkloadSpec& s) {
  using F = SpecField;
  const Result<DatasetKind> kind = ParseDatasetKind(s.dataset);
  if (!kind.ok())
    return SpecProblem{F::kDataset, "must be random, sharegpt, jsonl, shared-prefix, trace, multi-turn or "
                                    "mlperf:BENCHMARK (llama2-70b, mixtral-8x7b), got '" + s.dataset + "'"};
  if (auto p = Length(F::kInputLen, s.input_len, 1)) return p;
  if (auto p = Length(F::kOutputLen, s.output_len, 1)) return p;
  if (!(s.range_ratio >= 0 && s.range_ratio < 1))
    return SpecProblem{F::kRangeRatio, "must be in [0, 1), got " + FormatNumber(s.range_ratio)};
  if (auto p = Length(F::kPrefixLen, s.prefix_len, 0)) return p;
  if (s.sharegpt_output_len)
    if (auto p = Length(F::kSharegptOutputLen, *s.sharegpt_output_len, 1)) return p;
  if (!ParseTraceFormat(s.trace_format).ok())
    return SpecProblem{F::kTraceFormat, "must be auto, frontier, mooncake or agentic, got '" + s.trace_format + "'"};
  if (auto p = Integer(F::kTraceBlockTokens, s.trace_block_tokens, 1, 1'000'000)) return p;
  if (auto p = Integer(F::kGspNumGroups, s.gsp_num_groups, 1, kMaxRunRequests)) return p;
  if (auto p = Integer(F::kGspPromptsPerGroup, s.gsp_prompts_per_group, 1, kMaxRunRequests)) return p;
  if (auto p = Length(F::kGspSystemPromptLen, s.gsp_system_prompt_len, 0)) return p;
  if (auto p = Length(F::kGspQuestionLen, s.gsp_question_len, 1)) return p;
  if (auto p = Length(F::kGspOutputLen, s.gsp_output_len, 1)) return p;
  if (auto p = Integer(F::kMtTurns, s.mt_turns, 1, 10'000)) return p;
  if (auto p = Length(F::kMtSystemPromptLen, s.mt_system_prompt_len, 0)) return p;
  if (auto p = Length(F::kMtMessageLen, s.mt_message_len, 1)) return p;
  if (auto p = Number(F::kThinkTimeMs, s.think_time_ms, 0, 1e9)) return p;
  if (auto p = Number(F::kMaxThinkTimeMs, s.max_think_time_ms, 0, 1e9)) return p;
  if (s.think_time_ms > 0 && !IsSessionKind(*kind))
    return SpecProblem{F::kThinkTimeMs, "needs a session workload (dataset trace or multi-turn), got dataset " + s.dataset};
  if (auto p = Number(F::kCancelFraction, s.cancel_fraction, 0, 1)) return p;
  if (auto p = Length(F::kCancelAfterTokens, s.cancel_after_tokens, 0)) return p;
  if (auto p = Number(F::kCancelAfterMs, s.cancel_after_ms, 0, 1e9)) return p;
  const bool by_tokens = s.cancel_after_tokens > 0, by_time = s.cancel_after_ms > 0;
  if (s.cancel_fraction > 0 && by_tokens == by_time)
    return SpecProblem{F::kCancelFraction, "> 0 needs exactly one of cancel_after_tokens K >= 1 and "
                                           "cancel_after_ms T > 0, where requests are cancelled"};
  if (s.cancel_fraction == 0 && (by_tokens || by_time))
    return SpecProblem{by_tokens ? F::kCancelAfterTokens : F::kCancelAfterMs,
                       "needs cancel_fraction F > 0 (the fraction of requests cancelled)"};
  if (auto p = Integer(F::kIdealBlockTokens, s.ideal_block_tokens, 1, 1'000'000)) return p;
  if (!s.prompt_format.empty() && s.prompt_format != "token-ids" && s.prompt_format != "text")
    return SpecProblem{F::kPromptFormat, "must be token-ids or text, got '" + s.prompt_format + "'"};
  const bool needs_file = *kind == DatasetKind::kShareGpt || *kind == DatasetKind::kJsonl || *kind == DatasetKind::kTrace;
  if (needs_file && s.path.empty())
    return SpecProblem{F::kPath, "is required for dataset " + s.dataset};
  return std::nullopt;
}

DatasetOptions ToDatasetOptions(const WorkloadSpec& s) {
  DatasetOptions d;
  const Result<DatasetKind> kind = ParseDatasetKind(s.dataset);
  d.kind = kind.ok() ? *kind : DatasetKind::kRandom;
  d.path = s.path;
  d.length_table = MlperfTableName(s.dataset);
  d.seed = s.seed;
  d.random.input_len = static_cast<int32_t>(s.input_len);
  d.random.output_len = static_cast<int32_t>(s.output_len);
  d.random.range_ratio = s.range_ratio;
  d.random.prefix_len = static_cast<int32_t>(s.prefix_len);
  if (s.sharegpt_output_len) d.sharegpt_output_len = static_cast<int32_t>(*s.sharegpt_output_len);
  const Result<TraceFormat> format = ParseTraceFormat(s.trace_format);
  d.trace_format = format.ok() ? *format : TraceFormat::kAuto;
  d.trace_block_tokens = static_cast<int32_t>(s.trace_block_tokens);
  d.shared_prefix.num_groups = s.gsp_num_groups;
  d.shared_prefix.prompts_per_group = s.gsp_prompts_per_group;
  d.shared_prefix.system_prompt_len = static_cast<int32_t>(s.gsp_system_prompt_len);
  d.shared_prefix.question_len = static_cast<int32_t>(s.gsp_question_len);
  d.shared_prefix.output_len = static_cast<int32_t>(s.gsp_output_len);
  d.multi_turn.turns = static_cast<int32_t>(s.mt_turns);
  d.multi_turn.system_prompt_len = static_cast<int32_t>(s.mt_system_prompt_len);
  d.multi_turn.message_len = static_cast<int32_t>(s.mt_message_len);
  d.multi_turn.output_len = static_cast<int32_t>(s.output_len);
  d.multi_turn.range_ratio = s.range_ratio;
  d.think.mean_ms = s.think_time_ms;
  d.think.max_ms = s.max_think_time_ms;
  d.cancel.fraction = s.cancel_fraction;
  d.cancel.after_tokens = static_cast<int32_t>(s.cancel_after_tokens);
  d.cancel.after_ns = static_cast<Nanos>(std::llround(s.cancel_after_ms * kNanosPerMilli));
  d.random.format = PromptFormatFor(s, /*over_http=*/false);
  return d;
}

PromptFormat PromptFormatFor(const WorkloadSpec& s, bool over_http) {
  if (s.prompt_format == "text" || !s.tokenizer.empty()) return PromptFormat::kText;
  if (s.prompt_format == "token-ids") return PromptFormat::kTokenIds;
  return over_http && s.dataset == "multi-turn" ? PromptFormat::kText : PromptFormat::kTokenIds;
}

bool IgnoreEosFor(const WorkloadSpec& s) {
  if (s.ignore_eos) return *s.ignore_eos;
  const Result<DatasetKind> kind = ParseDatasetKind(s.dataset);
  return kind.ok() && (*kind == DatasetKind::kRandom || *kind == DatasetKind::kMlperf);
}

std::optional<SpecProblem> CheckPromptFormatOverHttp(const WorkloadSpec& s) {
  if (s.dataset != "multi-turn" || s.prompt_format != "token-ids") return std::nullopt;
  return SpecProblem{SpecField::kPromptFormat,
                     "token-ids cannot carry a multi-turn session to a server: each turn resends the server's "
                     "streamed answer, which arrives as text and cannot be turned back into token ids without the "
                     "server's tokenizer; use text (the default there)"};
}

}  // namespace frontier::workload
