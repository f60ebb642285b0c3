// option_names.h: the one table of the options that both the command line and
// a sweep plan take, as each spells them: a workload field ("--input-len",
// `input_len` of a plan's workload entry), a load, scenario, search or
// simulated-system setting ("--min-duration", `scenario.min_duration_s`).
//
//   // A check shared with the flags speaks the flags' names; a plan says its own:
//   return c.Error(node, ..., workload::InPlanTerms(status.message()));
//
// Validators below the command line (workload/spec.h, loadgen's scenario and
// search checks, the simulator's catalog) name the flags in their messages; a
// plan reads them through InPlanTerms, so no second table of names exists.
//
// Thread safety: constants and pure functions.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "workload/spec.h"

namespace frontier::workload {

struct OptionName {
  const char* flag;   // "--input-len"
  const char* plan;   // the plan's spelling: a workload entry's key ("input_len") when
                      // `spec`, else the field's path in the plan ("scenario.min_duration_s")
  bool spec = false;  // a field of WorkloadSpec
  SpecField field = SpecField::kDataset;  // which one, when `spec`
};

// Every option, workload fields first in SpecField order. A flag may appear
// twice (--output-len sets output_len, or sharegpt_output_len for sharegpt);
// the first entry is the one a message is translated by.
std::span<const OptionName> OptionNames();

// The flag that sets `field` for a workload of `dataset` ("--trace" for a
// trace's path, "--dataset-path" for another's).
const char* SpecFieldFlag(SpecField field, std::string_view dataset);

// The plan field a flag sets (a workload field as "workloads[].KEY"), or
// nothing for a flag plans do not take.
std::optional<std::string> PlanFieldOfFlag(std::string_view flag);

// `message` with every flag the table knows replaced by its plan field; a
// flag is matched whole ("--max-num-seqs" is not the start of
// "--max-num-seqs-auto").
std::string InPlanTerms(std::string message);

}  // namespace frontier::workload
