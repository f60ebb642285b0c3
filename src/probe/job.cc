#include "probe/job.h"

#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/redact.h"
#include "probe/record.h"
#include "probe/text.h"
#include "store/records.h"
#include "store/store.h"

namespace frontier::probe {

Status RunProbeJob(const ProbeSetup& setup, const ProbeOutputs& outputs,
                   const std::function<void(const std::string&)>& show, std::ostream& notes) {
  std::unique_ptr<store::Store> store;
  if (!outputs.db.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(store, store::OpenResultsDb("probe", outputs.db, notes));
  }
  const std::string started = UtcTimestampNow();
  FRONTIER_ASSIGN_OR_RETURN(ProbeResult r, RunProbe(*setup.backend, setup.hardware, setup.models, setup.options));
  show(ProbeResultText(r));
  if (!outputs.result_json.empty()) {
    nlohmann::json j = ProbeToJson(r);
    j["started_utc"] = started;
    FRONTIER_RETURN_IF_ERROR(WriteFileAtomically(outputs.result_json, j.dump(2) + "\n"));
    show("wrote " + outputs.result_json + "\n");
  }
  if (store) {
    std::map<std::string, std::string> provenance = store::RunProvenance(outputs.command_line);
    provenance["started_utc"] = started;
    FRONTIER_ASSIGN_OR_RETURN(store::RunInfo run, StoreProbe(*store, r, outputs.run_label, provenance));
    show("stored run " + std::to_string(run.id) + " (" + run.Label() + ") in " + RedactUrl(outputs.db) + "\n");
  }
  return Status::Ok();
}

}  // namespace frontier::probe
