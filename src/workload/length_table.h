// length_table.h: the length distributions of published benchmarks' datasets
// (MLPerf's OpenOrca sample for Llama 2 70B, its Mixtral mix), as quantile
// tables of input and output tokens, and requests drawn from them.
//
// A table holds 51 quantiles (0 %, 2 %, ..., 100 %) of each length. Lengths
// are drawn by inverse-CDF sampling, linear between quantiles, so the drawn
// lengths follow the published distribution (its mean is QuantileTableMean).
// The file is data/validation/datasets.json: {"datasets": {NAME: {...}}}, each
// number either bare or {"value": ..., "source": ...}:
//   benchmark         the MLPerf benchmark it serves ("llama2-70b"), optional
//   samples           the dataset's sample count
//   input_quantiles   non-decreasing lengths >= 1
//   output_quantiles  non-decreasing lengths >= 1
//   max_output        the benchmark's cap on output tokens [1024]
//
// `frontier validate` draws its Offline and Server runs from these tables;
// `--dataset mlperf:llama2-70b` (dataset.h) sends the same lengths to a
// server or the simulator.
//
// Thread safety: values and pure functions (ReadLengthTables reads a file).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "workload/request_spec.h"

namespace frontier::workload {

struct LengthTable {
  std::string name;       // "openorca-mlperf"
  std::string benchmark;  // "llama2-70b"; "" when it serves none
  int64_t samples = 0;
  std::vector<double> input_quantiles, output_quantiles;
  int32_t max_output = 1024;
  double InputMean() const;
  double OutputMean() const;
};

// The inverse CDF of a quantile table at u in [0, 1], linear between quantiles.
double QuantileAt(const std::vector<double>& q, double u);
// The mean of that piecewise-linear inverse CDF (the trapezoid rule over u).
double QuantileTableMean(const std::vector<double>& q);

// Every table of a datasets file; InvalidArgument naming the file and field
// for a malformed one.
Result<std::vector<LengthTable>> ReadLengthTables(const std::string& path);

// The table called `name`, or serving benchmark `name`; nullptr if none.
const LengthTable* FindLengthTable(const std::vector<LengthTable>& tables, std::string_view name);

// `count` requests (ids 0..count-1, lengths only) drawn from `t` with `seed`;
// outputs scaled to `output_mean` (0: as tabled) and capped at max_output.
std::vector<RequestSpec> DrawLengths(const LengthTable& t, int64_t count, double output_mean, uint64_t seed);

}  // namespace frontier::workload
