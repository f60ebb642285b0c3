// kinds.h: the store's closed sets of names as enums: a point's load kind,
// a run's or point's source, and the kind of system a run is of. The text is the stored form (database
// rows, export JSON, reports, the dashboard's JSON); it is named and parsed
// only at those edges, here.
//
//   FRONTIER_ASSIGN_OR_RETURN(LoadKind k, ParseLoadKind(text));   // "request_rate" -> kRequestRate
//   out << LoadKindName(k);                                       // kRequestRate -> "request_rate"
//
// Thread safety: pure functions.
#pragma once

#include <map>
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
// concurrency, request_rate or probe, got '<text>'" (its first 40 characters) for any other text.
Result<LoadKind> ParseLoadKind(std::string_view text);

// Where a point's numbers (and its run's) came from. Stable names: they are stored.
enum class Source { kMeasured, kSimulated, kImported };

// "measured", "simulated" or "imported".
std::string SourceName(Source source);
// The inverse of SourceName; InvalidArgument "source must be measured,
// simulated or imported, got '<text>'" (its first 40 characters) for any
// other text.
Result<Source> ParseSource(std::string_view text);

// What a run's system is: a server frontier measured (kServer) or started
// itself (kLaunched), frontier's simulator in virtual time (kSimulated) or
// served over HTTP and measured (kSimulatedLive), or a `frontier probe`
// of a GPU (kProbe). Kept in the run's config under kSystemKindKey (the
// config stays a map of strings in the store); imported runs have none.
enum class SystemKind { kServer, kLaunched, kSimulated, kSimulatedLive, kProbe };

inline constexpr char kSystemKindKey[] = "kind";

// "server", "launched", "simulated", "simulated-live" or "probe".
std::string SystemKindName(SystemKind kind);
// The inverse of SystemKindName; InvalidArgument "kind must be server,
// launched, simulated, simulated-live or probe, got '<text>'" for any other text.
Result<SystemKind> ParseSystemKind(std::string_view text);
// The kind a run's config names under kSystemKindKey; InvalidArgument when it
// names none ("the run's config has no kind") or one ParseSystemKind refuses.
Result<SystemKind> SystemKindOf(const std::map<std::string, std::string>& config);

}  // namespace frontier::store
