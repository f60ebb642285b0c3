// workload_flags.cc: the flags given, and the shared workload flags resolved
// (workload_flags.h).
#include "cli/workload_flags.h"

namespace frontier::cli {

std::map<std::string, std::string> GivenFlags(const std::vector<const CLI::Option*>& options) {
  std::map<std::string, std::string> given;
  for (const CLI::Option* o : options) {
    if (o->count() == 0) continue;
    std::string value;
    if (o->get_expected_max() == 0) {  // a flag
      value = o->results().back();
    } else {
      for (const auto& typed : o->results()) value += (value.empty() ? "" : " ") + typed;
    }
    given[o->get_name().substr(2)] = value;
  }
  return given;
}

std::map<std::string, std::string> GivenFlags(const CLI::App& app, const std::vector<std::string>& names) {
  std::vector<const CLI::Option*> options;
  for (const std::string& name : names) options.push_back(app.get_option(name));
  return GivenFlags(options);
}

Result<ResolvedWorkload> ResolveWorkload(WorkloadFlags& f) {
  f.given = GivenFlags(f.options);
  return loadgen::ResolveWorkload(f);
}

}  // namespace frontier::cli
