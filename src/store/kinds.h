// kinds.h: the store's closed sets of names as enums: a point's load kind
// and a run's or point's source. The text is the stored form (database
// rows, export JSON, reports, the dashboard's JSON); it is named and parsed
// only at those edges, here.
//
//   FRONTIER_ASSIGN_OR_RETURN(LoadKind k, ParseLoadKind(text));   // "request_rate" -> kRequestRate
//   out << LoadKindName(k);                                       // kRequestRate -> "request_rate"
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace frontier::store {

// What a point's load_value is: a closed loop's concurrency, an open loop's
// request rate (requests/s), or a `frontier probe` measurement's size
// (probe/record.h: no serving metrics). Stable names: they are stored.
enum class LoadKind { kConcurrency, kRequestRate, kProbe };

// "concurrency", "request_rate" or "probe".
std::string LoadKindName(LoadKind kind);
// The inverse of LoadKindName; InvalidArgument "load_kind must be
// concurrency, request_rate or probe, got '<text>'" for any other text.
Result<LoadKind> ParseLoadKind(std::string_view text);

// Where a point's numbers (and its run's) came from. Stable names: they are stored.
enum class Source { kMeasured, kSimulated, kImported };

// "measured", "simulated" or "imported".
std::string SourceName(Source source);
// The inverse of SourceName; InvalidArgument "source must be measured,
// simulated or imported, got '<text>'" (its first 40 characters) for any
// other text.
Result<Source> ParseSource(std::string_view text);

}  // namespace frontier::store
