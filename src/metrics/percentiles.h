// percentiles.h: a list of percentiles as a user types it ("50,90,99.9").
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace frontier::metrics {

// 1 to 100 comma-separated numbers in [0, 100], in the order given.
// InvalidArgument naming `flag` ("--percentiles") otherwise.
Result<std::vector<double>> ParsePercentileList(const std::string& text, std::string_view flag);

}  // namespace frontier::metrics
