// percentile_list.h: the percentiles a flag's value names ("50,90,99.9"),
// parsed one way for every command that takes one (bench, simulate, search
// and bench merge's --percentiles).
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace frontier::metrics {

// One to 100 comma-separated numbers in [0, 100], in the order given.
// InvalidArgument naming `flag_name` (e.g. "--percentiles") and the value.
Result<std::vector<double>> ParsePercentileList(const std::string& text, const std::string& flag_name);

}  // namespace frontier::metrics
