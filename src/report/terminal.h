// terminal.h: the report's tables as text (frontier per series, iso-interactivity
// comparison, cost and energy, provenance), the same tables the HTML report shows.
//
// Thread safety: pure function of the report.
#pragma once

#include <ostream>

#include "report/model.h"

namespace frontier::report {

void PrintReport(const Report& report, std::ostream& out);

}  // namespace frontier::report
