// copy.h: runs from one results database into another, across back ends
// (SQLite to PostgreSQL and back).
//
//   FRONTIER_ASSIGN_OR_RETURN(CopyOutcome o, CopyRuns(*sqlite, *postgres, {}));
//
// Ids are assigned by the destination (a run or point keeps its content, not
// its number). A run is the same run in both databases when its sweep, plan
// hash, system, source, creation time, configuration and provenance are
// equal; copying into a database that already has it adds only the points it
// lacks (by point key), so copying twice, or back again, duplicates nothing.
// Each point is one transaction with its requests and its series (server
// metrics and timeslices, when stored). Launch records are not
// copied: they name processes on the host that wrote them. A row of `from`
// that its reader skips as damaged (Store::SetWarningSink names each) is not
// copied; CopyOutcome counts them by run, so the caller can say what the
// copy lacks.
//
// Thread safety: functions over Stores the caller owns.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "core/status.h"
#include "store/store.h"

namespace frontier::store {

struct CopyOutcome {
  int64_t runs_created = 0;    // runs the destination did not have
  int64_t runs_matched = 0;    // runs it had already (only missing points added)
  int64_t points_copied = 0;
  int64_t points_present = 0;  // points the destination had already
  std::map<int64_t, int64_t> run_ids;  // source run id -> destination run id
  // Rows of `from` skipped as damaged and so not copied, for each source run
  // that had any (a skipped points row takes its requests with it).
  struct Skipped {
    int64_t run_id = 0;
    int64_t points = 0;
    int64_t requests = 0;
  };
  std::vector<Skipped> skipped;
  int64_t points_skipped = 0;
  int64_t requests_skipped = 0;
};

// Copies `run_ids` (every run when empty) from `from` into `to`. NotFound
// naming the id when `from` has no such run; on any other error the points
// copied so far stay (a second copy completes it).
Result<CopyOutcome> CopyRuns(Store& from, Store& to, const std::vector<int64_t>& run_ids);

}  // namespace frontier::store
