#include "workload/spec.h"

#include <cmath>

#include "core/limits.h"
#include "core/parse.h"

namespace frontier::workload {
namespace {

std::optional<SpecProblem> Length(SpecField field, int64_t value, int64_t min) {
  if (value >= min && value <= kMaxRequestLength) return std::nullopt;
  return SpecProblem{field, "must be an integer in [" + std::to_string(min) + ", " +
                                std::to_string(kMaxRequestLength) + "], got " + std::to_string(value)};
}

}  // namespace

const char* SpecFieldName(SpecField field) {
  switch (field) {
    case SpecField::kDataset: return "dataset";
    case SpecField::kPath: return "path";
    case SpecField::kInputLen: return "input_len";
    case SpecField::kOutputLen: return "output_len";
    case SpecField::kRangeRatio: return "range_ratio";
    case SpecField::kPrefixLen: return "prefix_len";
    case SpecField::kSharegptOutputLen: return "sharegpt_output_len";
  }
  return "?";
}

std::optional<SpecProblem> CheckWorkloadSpec(const WorkloadSpec& s) {
  const Result<DatasetKind> kind = ParseDatasetKind(s.dataset);
  if (!kind.ok()) return SpecProblem{SpecField::kDataset, "must be random, sharegpt, jsonl, shared-prefix, trace or multi-turn, got '" + s.dataset + "'"};
  if (auto p = Length(SpecField::kInputLen, s.input_len, 1)) return p;
  if (auto p = Length(SpecField::kOutputLen, s.output_len, 1)) return p;
  if (!(s.range_ratio >= 0 && s.range_ratio < 1))
    return SpecProblem{SpecField::kRangeRatio, "must be in [0, 1), got " + FormatNumber(s.range_ratio)};
  if (auto p = Length(SpecField::kPrefixLen, s.prefix_len, 0)) return p;
  if (s.sharegpt_output_len)
    if (auto p = Length(SpecField::kSharegptOutputLen, *s.sharegpt_output_len, 1)) return p;
  const bool needs_file = *kind == DatasetKind::kShareGpt || *kind == DatasetKind::kJsonl || *kind == DatasetKind::kTrace;
  if (needs_file && s.path.empty())
    return SpecProblem{SpecField::kPath, "is required for dataset " + s.dataset};
  return std::nullopt;
}

DatasetOptions ToDatasetOptions(const WorkloadSpec& s) {
  DatasetOptions d;
  const Result<DatasetKind> kind = ParseDatasetKind(s.dataset);
  d.kind = kind.ok() ? *kind : DatasetKind::kRandom;
  d.path = s.path;
  d.random.input_len = static_cast<int32_t>(s.input_len);
  d.random.output_len = static_cast<int32_t>(s.output_len);
  d.random.range_ratio = s.range_ratio;
  d.random.prefix_len = static_cast<int32_t>(s.prefix_len);
  if (s.sharegpt_output_len) d.sharegpt_output_len = static_cast<int32_t>(*s.sharegpt_output_len);
  return d;
}

}  // namespace frontier::workload
