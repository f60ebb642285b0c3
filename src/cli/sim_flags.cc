// sim_flags.cc: SimSpec's flags from its field table, and --client-rtt-us.
#include "cli/sim_flags.h"

#include "sim/spec_fields.h"

namespace frontier::cli {

void AddSimSpecFlags(CLI::App& app, sim::SimSpec* s) { AddFlagRows(app, sim::SimSpecFields(), s); }

// In the table's order: `frontier search --base-url` names the first given.
const std::vector<std::string>& SimSpecFlagNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const FlagRow<sim::SimSpec>& row : sim::SimSpecFields()) v.push_back(row.name);
    return v;
  }();
  return names;
}

void AddClientRttFlag(CLI::App& app, double* us) {
  app.add_option("--client-rtt-us", *us,
                 "Client round trip: a request reaches the engine this long after it is sent, so a closed-loop "
                 "replacement misses the step that starts as its predecessor finishes; 0 = instantaneous client "
                 "[150]")
      ->group("Load");
}

}  // namespace frontier::cli
