// workload_flags.cc: the shared workload flags bound to CLI11 (workload_flags.h).
#include "cli/workload_flags.h"

#include <string>

namespace frontier::cli {

void AddWorkloadFlags(CLI::App& app, WorkloadFlags* f) {
  for (const FlagRow<loadgen::WorkloadRequest>& row : loadgen::WorkloadFlagRows())
    f->options.push_back(AddFlagRow(app, row, f));
}

Result<ResolvedWorkload> ResolveWorkload(const WorkloadFlags& f) {
  loadgen::WorkloadRequest r = f;
  for (const CLI::Option* o : f.options) {
    if (o->count() == 0) continue;
    std::string name = o->get_name();
    if (name.rfind("--", 0) == 0) name = name.substr(2);
    std::string value;
    for (const auto& typed : o->results()) value += (value.empty() ? "" : " ") + typed;
    r.given[name] = value;
  }
  return loadgen::ResolveWorkload(r);
}

}  // namespace frontier::cli
