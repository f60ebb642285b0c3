// run_list.cc: `db ls`'s table of runs.
#include "report/run_list.h"

#include <map>
#include <sstream>

#include "core/redact.h"
#include "report/table.h"

namespace frontier::report {

Result<std::string> RunListText(store::Store& s, const std::string& location) {
  FRONTIER_ASSIGN_OR_RETURN(auto runs, s.ListRuns(store::Store::PlanText::kWithout));
  FRONTIER_ASSIGN_OR_RETURN(auto points, s.ListPoints(0));
  std::map<int64_t, int64_t> count;
  for (const auto& p : points) ++count[p.run_id];
  TextTable t({"id", "run", "source", "status", "points", "hardware", "gpus", "created (UTC)"});
  for (const auto& r : runs) {
    auto get = [&](const char* k) { return r.config.count(k) ? r.config.at(k) : std::string("-"); };
    t.Add({std::to_string(r.id), r.sweep + "/" + r.system, store::SourceName(r.source), r.status.ToString(),
           std::to_string(count[r.id]), get("hardware"), get("gpus"), r.created_utc});
  }
  std::ostringstream out;
  t.Print(out, "");
  out << runs.size() << " runs, " << points.size() << " points in " << RedactUrl(location) << " (schema "
      << s.SchemaVersion() << ")\n";
  return out.str();
}

}  // namespace frontier::report
