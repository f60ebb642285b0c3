// job.h: one `frontier probe` from its open setup to what it leaves: the
// database opened first (one that cannot be written fails before the GPU is
// busy), the probe run, its text shown, the result JSON written (with the
// time it started) and the run stored. cli/probe_cmd.cc parses the flags,
// opens the probe (setup.h) and prints; the work is here.
//
//   FRONTIER_ASSIGN_OR_RETURN(ProbeSetup setup, OpenProbe(flags, dir));
//   FRONTIER_RETURN_IF_ERROR(RunProbeJob(setup, {flags.result_json, db, label, command_line}, show, std::cerr));
//
// Thread safety: one job per thread (the backend's).
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "core/status.h"
#include "probe/setup.h"

namespace frontier::probe {

// Where a probe's result goes besides the terminal.
struct ProbeOutputs {
  std::string result_json;   // --result-json ("" = not written)
  std::string db;            // --db ("" = not stored)
  std::string run_label;     // --run-label: the stored run's sweep name
  std::string command_line;  // the stored run's provenance, secrets redacted
};

// Runs `setup`'s probe and hands `show` its text (probe/text.h), then
// "wrote FILE" and "stored run N (LABEL) in DB" (the database redacted), each
// a line; `notes` gets the database's creation. The store's, the backend's or
// the file's error.
Status RunProbeJob(const ProbeSetup& setup, const ProbeOutputs& outputs,
                   const std::function<void(const std::string&)>& show, std::ostream& notes);

}  // namespace frontier::probe
