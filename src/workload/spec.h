// spec.h: a workload as a user writes it, on the command line (the workload
// flags of bench, simulate and search) or in a sweep plan's `workloads`
// entry: one struct, one validator, one conversion to the dataset options
// LoadDataset takes. Callers name the fields their own way ("--input-len",
// "workloads[0].input_len") and put the validator's words after the name.
//
//   workload::WorkloadSpec spec;              // filled from flags or YAML
//   if (auto bad = workload::CheckWorkloadSpec(spec))
//     return InvalidArgument(FlagName(bad->field) + " " + bad->message);
//   workload::DatasetOptions d = workload::ToDatasetOptions(spec);
//
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "workload/dataset.h"

namespace frontier::workload {

struct WorkloadSpec {
  std::string dataset = "random";              // random | sharegpt | jsonl
  std::string path;                            // sharegpt / jsonl file (required for them)
  int64_t input_len = 1024;                    // random: mean prompt tokens, [1, kMaxRequestLength]
  int64_t output_len = 128;                    // random: mean output tokens, [1, kMaxRequestLength]
  double range_ratio = 0;                      // random: lengths uniform in [(1-r)L, (1+r)L], [0, 1)
  int64_t prefix_len = 0;                      // random: shared prefix tokens, [0, kMaxRequestLength]
  std::optional<int64_t> sharegpt_output_len;  // sharegpt: fixed output length, [1, kMaxRequestLength]
};

enum class SpecField { kDataset, kPath, kInputLen, kOutputLen, kRangeRatio, kPrefixLen, kSharegptOutputLen };

// The field as a plan spells it: "dataset", "path", "input_len", ...
const char* SpecFieldName(SpecField field);

struct SpecProblem {
  SpecField field;
  std::string message;  // "must be an integer in [1, 10000000], got 0"
};

// The first rule `spec` breaks (ranges: docs/limits.md, core/limits.h), or
// nothing when it is a workload LoadDataset can build.
std::optional<SpecProblem> CheckWorkloadSpec(const WorkloadSpec& spec);

// REQUIRES: CheckWorkloadSpec(spec) found nothing. The dataset options of
// `spec`; num_prompts, seed, allow_repeat and the prompt format are the
// caller's.
DatasetOptions ToDatasetOptions(const WorkloadSpec& spec);

}  // namespace frontier::workload
