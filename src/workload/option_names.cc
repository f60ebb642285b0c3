#include "workload/option_names.h"

#include <cctype>
#include <cstring>

namespace frontier::workload {

namespace {
using F = SpecField;
}  // namespace

namespace {
const OptionName kOptionNames[] = {
    // Workload fields (workload/spec.h).
    {"--dataset", "dataset", true, F::kDataset},
    {"--dataset-path", "path", true, F::kPath},
    {"--input-len", "input_len", true, F::kInputLen},
    {"--output-len", "output_len", true, F::kOutputLen},
    {"--range-ratio", "range_ratio", true, F::kRangeRatio},
    {"--prefix-len", "prefix_len", true, F::kPrefixLen},
    {"--output-len", "sharegpt_output_len", true, F::kSharegptOutputLen},
    {"--trace-format", "trace_format", true, F::kTraceFormat},
    {"--trace-block-tokens", "trace_block_tokens", true, F::kTraceBlockTokens},
    {"--gsp-num-groups", "gsp_num_groups", true, F::kGspNumGroups},
    {"--gsp-prompts-per-group", "gsp_prompts_per_group", true, F::kGspPromptsPerGroup},
    {"--gsp-system-prompt-len", "gsp_system_prompt_len", true, F::kGspSystemPromptLen},
    {"--gsp-question-len", "gsp_question_len", true, F::kGspQuestionLen},
    {"--gsp-output-len", "gsp_output_len", true, F::kGspOutputLen},
    {"--mt-turns", "mt_turns", true, F::kMtTurns},
    {"--mt-system-prompt-len", "mt_system_prompt_len", true, F::kMtSystemPromptLen},
    {"--mt-message-len", "mt_message_len", true, F::kMtMessageLen},
    {"--think-time-ms", "think_time_ms", true, F::kThinkTimeMs},
    {"--max-think-time-ms", "max_think_time_ms", true, F::kMaxThinkTimeMs},
    {"--cancel-fraction", "cancel_fraction", true, F::kCancelFraction},
    {"--cancel-after-tokens", "cancel_after_tokens", true, F::kCancelAfterTokens},
    {"--cancel-after-ms", "cancel_after_ms", true, F::kCancelAfterMs},
    {"--ideal-block-tokens", "ideal_block_tokens", true, F::kIdealBlockTokens},
    {"--seed", "seed", true, F::kSeed},
    {"--prompt-format", "prompt_format", true, F::kPromptFormat},
    {"--ignore-eos", "ignore_eos", true, F::kIgnoreEos},
    {"--tokenizer", "tokenizer", true, F::kTokenizer},
    {"--trace", "path", true, F::kPath},
    // Load (a plan's `load:`; a scenario's target QPS is each load value).
    {"--num-prompts", "load.num_prompts"},
    {"--warmup", "load.warmup"},
    {"--max-concurrency", "load.max_concurrency"},
    {"--request-rate", "load.request_rate"},
    {"--burstiness", "load.burstiness"},
    {"--target-qps", "load.request_rate"},
    // Scenario and SLO (loadgen/scenario.h).
    {"--scenario", "scenario"},
    {"--mlperf-benchmark", "scenario.mlperf_benchmark"},
    {"--min-interactivity", "scenario.min_interactivity"},
    {"--min-query-count", "scenario.min_query_count"},
    {"--min-duration", "scenario.min_duration_s"},
    {"--slo", "scenario.slo"},
    // Search (loadgen/search.h).
    {"--over", "search.over"},
    {"--start", "search.start"},
    {"--growth", "search.growth"},
    {"--tolerance", "search.tolerance"},
    {"--max-trials", "search.max_trials"},
    {"--min-value", "search.min_value"},
    {"--max-value", "search.max_value"},
    {"--no-saturation-stop", "search.saturation_stop"},
    // A simulated system (sim/engine/config.h).
    {"--max-num-batched-tokens", "sim.max_num_batched_tokens"},
    {"--gpu-memory-utilization", "sim.gpu_memory_utilization"},
    {"--max-num-seqs", "sim.max_num_seqs"},
    {"--kv-precision", "sim.kv_precision"},
    {"--spec-tokens", "sim.spec_tokens"},
    {"--acceptance", "sim.acceptance"},
    {"--precision", "sim.precision"},
    {"--hardware", "hardware"},
    {"--model", "sim.model"},
    {"--stack", "sim.stack"},
    {"--gpus", "gpus"},
    {"--tp", "sim.tp"},
    {"--ep", "sim.ep"},
    {"--dp", "sim.dp"},
};
}  // namespace

std::span<const OptionName> OptionNames() { return kOptionNames; }

const char* SpecFieldFlag(SpecField field, std::string_view dataset) {
  if (field == F::kPath && dataset == "trace") return "--trace";
  for (const OptionName& n : kOptionNames)
    if (n.spec && n.field == field) return n.flag;
  return "?";
}

std::optional<std::string> PlanFieldOfFlag(std::string_view flag) {
  for (const OptionName& n : kOptionNames) {
    if (flag == n.flag) return n.spec ? std::string("workloads[].") + n.plan : std::string(n.plan);
  }
  return std::nullopt;
}

std::string InPlanTerms(std::string m) {
  for (size_t at = m.find("--"); at != std::string::npos; at = m.find("--", at)) {
    size_t end = at + 2;
    while (end < m.size() && (std::isalnum(static_cast<unsigned char>(m[end])) || m[end] == '-')) ++end;
    const std::optional<std::string> field = PlanFieldOfFlag(std::string_view(m).substr(at, end - at));
    if (!field) {
      at = end;
      continue;
    }
    m.replace(at, end - at, *field);
    at += field->size();
  }
  return m;
}

}  // namespace frontier::workload
