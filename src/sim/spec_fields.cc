// spec_fields.cc: the table of SimSpec's command-line fields (spec_fields.h).
#include "sim/spec_fields.h"

#include <vector>

#include "sim/engine/spec_table.h"

namespace frontier::sim {

std::span<const FlagRow<SimSpec>> SimSpecFields() {
  // The flag column of the one table (sim/engine/spec_table.h).
  static const std::vector<FlagRow<SimSpec>> kRows = [] {
    std::vector<FlagRow<SimSpec>> rows;
    for (const SimSpecField& f : SimSpecTable()) rows.push_back(f.flag);
    return rows;
  }();
  return kRows;
}

}  // namespace frontier::sim
