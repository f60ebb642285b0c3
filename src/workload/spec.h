// spec.h: a workload as a user writes it, on the command line (the workload
// flags of bench, simulate and search) or in a sweep plan's `workloads`
// entry: one struct, one validator, one conversion to the dataset options
// LoadDataset and LoadSessionWorkload take. Callers name the fields their own
// way ("--gsp-num-groups", "workloads[0].gsp_num_groups") and put the
// validator's words after the name.
//
//   workload::WorkloadSpec spec;              // filled from flags or YAML
//   if (auto bad = workload::CheckWorkloadSpec(spec))
//     return InvalidArgument(FlagName(bad->field) + " " + bad->message);
//   workload::DatasetOptions d = workload::ToDatasetOptions(spec);
//
// Which fields a dataset reads (the others keep their defaults; a plan
// rejects a field its dataset does not read, see SpecFieldApplies):
//   random         input_len, output_len, range_ratio, prefix_len, prompt_format
//   sharegpt       path, sharegpt_output_len
//   jsonl          path
//   shared-prefix  gsp_*
//   trace          path, trace_format, trace_block_tokens, think times
//   multi-turn     mt_*, output_len, range_ratio, think times, prompt_format
//   mlperf:NAME    prompt_format (lengths from the benchmark's table)
//   random, mlperf tokenizer
//   every dataset  cancel_*, ideal_block_tokens, seed, ignore_eos
//
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "workload/dataset.h"

namespace frontier::workload {

struct WorkloadSpec {
  std::string dataset = "random";              // random | sharegpt | jsonl | shared-prefix | trace | multi-turn | mlperf:NAME
  std::string path;                            // sharegpt / jsonl / trace file (required for them)
  int64_t input_len = 1024;                    // random: mean prompt tokens, [1, kMaxRequestLength]
  int64_t output_len = 128;                    // random, multi-turn: mean output tokens, [1, kMaxRequestLength]
  double range_ratio = 0;                      // random, multi-turn: lengths uniform in [(1-r)L, (1+r)L], [0, 1)
  int64_t prefix_len = 0;                      // random: shared prefix tokens, [0, kMaxRequestLength]
  // random, multi-turn: how prompts are sent, "token-ids" (exact lengths) or
  // "text"; "" = the default for where they go (PromptFormatFor).
  std::string prompt_format;
  std::optional<int64_t> sharegpt_output_len;  // sharegpt: fixed output length, [1, kMaxRequestLength]
  // trace (workload/trace.h).
  std::string trace_format = "auto";           // auto | frontier | mooncake | agentic
  int64_t trace_block_tokens = kMooncakeBlockTokens;  // tokens per hash_ids block, [1, 1000000]
  // shared-prefix (workload/generators.h): G x P prompts.
  int64_t gsp_num_groups = 64;                 // G, [1, kMaxRunRequests]
  int64_t gsp_prompts_per_group = 16;          // P, [1, kMaxRunRequests]
  int64_t gsp_system_prompt_len = 2048;        // S, [0, kMaxRequestLength]
  int64_t gsp_question_len = 128;              // Q, [1, kMaxRequestLength]
  int64_t gsp_output_len = 256;                // O, [1, kMaxRequestLength]
  // multi-turn (workload/generators.h); answers ask for output_len tokens.
  int64_t mt_turns = 5;                        // T, [1, 10000]
  int64_t mt_system_prompt_len = 0;            // S, [0, kMaxRequestLength]
  int64_t mt_message_len = 256;                // U, [1, kMaxRequestLength]
  // Session workloads (trace, multi-turn): think time between turns.
  double think_time_ms = 0;                    // mean (exponential), [0, 1e9]; > 0 needs a session dataset
  double max_think_time_ms = 60'000;           // cap, [0, 1e9]
  // Cancellation (workload/cancel.h): exactly one of the two points when the fraction is > 0.
  double cancel_fraction = 0;                  // [0, 1]
  int64_t cancel_after_tokens = 0;             // K, [0, kMaxRequestLength]; 0 = not used
  double cancel_after_ms = 0;                  // T, [0, 1e9]; 0 = not used
  // Block size of the ideal prefix-cache hit rate (workload/prefix_blocks.h).
  int64_t ideal_block_tokens = 16;             // [1, 1000000]
  uint64_t seed = 0;                           // seeds the prompts, think times and cancellation
  // Whether a server is asked to ignore EOS, so that outputs reach their
  // max_tokens; unset: IgnoreEosFor's default.
  std::optional<bool> ignore_eos;
  // random, mlperf:NAME: prompts sent as text of exactly their token length
  // by this tokenizer (tokenizer.json, a directory holding one, or a .gguf;
  // workload/exact_text.h), which makes the prompt format text; "" none.
  std::string tokenizer;
};

enum class SpecField {
  kDataset, kPath, kInputLen, kOutputLen, kRangeRatio, kPrefixLen, kSharegptOutputLen,
  kTraceFormat, kTraceBlockTokens,
  kGspNumGroups, kGspPromptsPerGroup, kGspSystemPromptLen, kGspQuestionLen, kGspOutputLen,
  kMtTurns, kMtSystemPromptLen, kMtMessageLen,
  kThinkTimeMs, kMaxThinkTimeMs,
  kCancelFraction, kCancelAfterTokens, kCancelAfterMs,
  kIdealBlockTokens, kSeed, kPromptFormat, kIgnoreEos, kTokenizer,
};

// The field as a plan spells it: "dataset", "path", "input_len", "gsp_num_groups", ...
const char* SpecFieldName(SpecField field);
// The field a plan key names, or nothing for an unknown key.
std::optional<SpecField> SpecFieldByName(std::string_view name);
// Every field, in declaration order (for lists of allowed keys).
inline constexpr SpecField kAllSpecFields[] = {
    SpecField::kDataset, SpecField::kPath, SpecField::kInputLen, SpecField::kOutputLen, SpecField::kRangeRatio,
    SpecField::kPrefixLen, SpecField::kSharegptOutputLen, SpecField::kTraceFormat, SpecField::kTraceBlockTokens,
    SpecField::kGspNumGroups, SpecField::kGspPromptsPerGroup, SpecField::kGspSystemPromptLen,
    SpecField::kGspQuestionLen, SpecField::kGspOutputLen, SpecField::kMtTurns, SpecField::kMtSystemPromptLen,
    SpecField::kMtMessageLen, SpecField::kThinkTimeMs, SpecField::kMaxThinkTimeMs, SpecField::kCancelFraction,
    SpecField::kCancelAfterTokens, SpecField::kCancelAfterMs, SpecField::kIdealBlockTokens, SpecField::kSeed,
    SpecField::kPromptFormat, SpecField::kIgnoreEos, SpecField::kTokenizer};

// Whether a dataset of `kind` reads `field` (the table in the file comment).
bool SpecFieldApplies(SpecField field, DatasetKind kind);

struct SpecProblem {
  SpecField field;
  std::string message;  // "must be an integer in [1, 10000000], got 0"
};

// The first rule `spec` breaks (ranges: docs/limits.md, core/limits.h), or
// nothing when it is a workload LoadDataset / LoadSessionWorkload can build.
std::optional<SpecProblem> CheckWorkloadSpec(const WorkloadSpec& spec);

// REQUIRES: CheckWorkloadSpec(spec) found nothing. The dataset options of
// `spec` with its seed and the prompt format PromptFormatFor(spec, false);
// num_prompts and allow_repeat are the caller's (multi_turn.output_len is
// output_len).
DatasetOptions ToDatasetOptions(const WorkloadSpec& spec);

// The prompt format of `spec`'s requests when they are sent `over_http` (to
// a server, not to the simulator in virtual time): text with a tokenizer;
// prompt_format when given;
// by default token ids, except text for a multi-turn workload sent over HTTP
// (each turn carries the server's streamed answer, which arrives as text and
// cannot be turned back into token ids without the server's tokenizer).
PromptFormat PromptFormatFor(const WorkloadSpec& spec, bool over_http);

// Whether `spec`'s requests ask a server to ignore EOS: ignore_eos when
// given; by default yes for synthetic prompts (random, mlperf:NAME), which
// have no natural end and whose output lengths are the workload's, and no for
// the others (a dataset's answers end where the model ends them).
bool IgnoreEosFor(const WorkloadSpec& spec);

// Why `spec`'s prompts cannot be sent over HTTP as it asks (nothing when they
// can): prompt_format token-ids on a multi-turn workload.
std::optional<SpecProblem> CheckPromptFormatOverHttp(const WorkloadSpec& spec);

}  // namespace frontier::workload
