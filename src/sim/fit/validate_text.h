// validate_text.h: `frontier validate`'s report as text: the calibration
// table by stack (with the held-out results), the LOO summary by model class,
// the transfer table with its bands and rates, and the time taken. Text only;
// the command prints it. A pure function, safe from any thread.
#pragma once

#include <string>

#include "sim/fit/validate.h"

namespace frontier::sim {

std::string ValidationReportText(const ValidationReport& report);

}  // namespace frontier::sim
