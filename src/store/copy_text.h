// copy_text.h: what `frontier db copy` says of a CopyOutcome, as text in the
// order it is printed: the renumbered runs and the summary on stdout, the
// warnings of rows skipped as damaged and the incompleteness on stderr. A row
// skipped is said per run, in the summary and by the exit status, never lost
// silently. Pure functions, safe from any thread.
#pragma once

#include <string>

#include "store/copy.h"

namespace frontier::store {

struct CopyText {
  std::string runs;        // "run A -> B" per copied run (stdout)
  std::string warnings;    // per source run with skipped rows (stderr)
  std::string summary;     // runs and points created, present, skipped (stdout)
  std::string incomplete;  // empty unless rows were skipped (stderr; exit 1)
};

// `from` is the source's location as given (redacted and escaped here).
CopyText DescribeCopy(const CopyOutcome& o, const std::string& from);

}  // namespace frontier::store
