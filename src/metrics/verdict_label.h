// verdict_label.h: the word a verdict is written with, "VALID" or "INVALID".
//
// A judged point's verdict (loadgen/verdict.h) is written in the result file
// ("verdict": {"result": ...}), stored with the point (store/records.h), and
// printed in the sweep's progress and the search's trial table. Every one of
// them writes and reads the word through these two functions, so the stored
// text, the file and the terminal cannot drift apart. The word lives here,
// with the result schema, because the store reads it and may not depend on
// loadgen.
//
//   line += metrics::VerdictLabel(v.valid);               // "VALID"
//   std::optional<bool> ok = metrics::ParseVerdictLabel("INVALID");  // false
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string_view>

namespace frontier::metrics {

// "VALID" when `valid`, else "INVALID".
constexpr const char* VerdictLabel(bool valid) { return valid ? "VALID" : "INVALID"; }

// The inverse of VerdictLabel: true for "VALID", false for "INVALID",
// nullopt for any other text (case matters: the label is stored as written).
constexpr std::optional<bool> ParseVerdictLabel(std::string_view label) {
  if (label == VerdictLabel(true)) return true;
  if (label == VerdictLabel(false)) return false;
  return std::nullopt;
}

}  // namespace frontier::metrics
