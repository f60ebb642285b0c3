// copy_text.cc: `db copy`'s lines of a CopyOutcome.
#include "store/copy_text.h"

#include "core/redact.h"
#include "core/terminal_text.h"

namespace frontier::store {

CopyText DescribeCopy(const CopyOutcome& o, const std::string& from) {
  CopyText t;
  const std::string source = EscapeControls(RedactUrl(from));
  for (const auto& [a, b] : o.run_ids) t.runs += "run " + std::to_string(a) + " -> " + std::to_string(b) + "\n";
  for (const auto& sk : o.skipped)
    t.warnings += "frontier db copy: warning: run " + std::to_string(sk.run_id) + " of " + source + ": " +
                  std::to_string(sk.points) + " points rows and " + std::to_string(sk.requests) +
                  " requests rows were skipped as damaged (named above) and are not in the copy\n";
  t.summary = std::to_string(o.runs_created) + " runs created, " + std::to_string(o.runs_matched) +
              " already there; " + std::to_string(o.points_copied) + " points copied, " +
              std::to_string(o.points_present) + " already there";
  if (!o.skipped.empty())
    t.summary += "; " + std::to_string(o.points_skipped) + " points rows and " + std::to_string(o.requests_skipped) +
                 " requests rows skipped as damaged";
  t.summary += "\n";
  if (!o.skipped.empty())
    t.incomplete = "frontier db copy: the copy is incomplete: " + std::to_string(o.points_skipped) +
                   " points rows and " + std::to_string(o.requests_skipped) + " requests rows of " + source +
                   " could not be read (exit 1)\n";
  return t;
}

}  // namespace frontier::store
