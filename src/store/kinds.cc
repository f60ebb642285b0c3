#include "store/kinds.h"

#include "core/name_table.h"

namespace frontier::store {
namespace {

// The stored names: stable, they are in every database and export.
constexpr NameEntry<LoadKind> kLoadKinds[] = {
    {LoadKind::kConcurrency, "concurrency"}, {LoadKind::kRequestRate, "request_rate"}, {LoadKind::kProbe, "probe"}};
constexpr NameEntry<Source> kSources[] = {
    {Source::kMeasured, "measured"}, {Source::kSimulated, "simulated"}, {Source::kImported, "imported"}};
constexpr NameEntry<SystemKind> kSystemKinds[] = {{SystemKind::kServer, "server"},
                                                  {SystemKind::kLaunched, "launched"},
                                                  {SystemKind::kSimulated, "simulated"},
                                                  {SystemKind::kSimulatedLive, "simulated-live"},
                                                  {SystemKind::kProbe, "probe"}};

// The value `text` names in `table`, else the error naming `field`, the names
// allowed and (its first 40 characters of) what was given.
template <typename E, size_t N>
Result<E> Parse(const NameEntry<E> (&table)[N], const char* field, std::string_view text) {
  if (const std::optional<E> v = ValueOf(table, text)) return *v;
  return InvalidArgument(std::string(field) + " must be " + NamesList(table) + ", got '" +
                         std::string(text.substr(0, 40)) + "'");
}

}  // namespace

std::string LoadKindName(LoadKind kind) { return NameOf(kLoadKinds, kind); }
Result<LoadKind> ParseLoadKind(std::string_view text) { return Parse(kLoadKinds, "load_kind", text); }

std::string SourceName(Source source) { return NameOf(kSources, source); }
Result<Source> ParseSource(std::string_view text) { return Parse(kSources, "source", text); }

std::string SystemKindName(SystemKind kind) { return NameOf(kSystemKinds, kind); }
Result<SystemKind> ParseSystemKind(std::string_view text) { return Parse(kSystemKinds, kSystemKindKey, text); }

Result<SystemKind> SystemKindOf(const std::map<std::string, std::string>& config) {
  const auto it = config.find(kSystemKindKey);
  if (it == config.end()) return InvalidArgument("the run's config has no kind");
  return ParseSystemKind(it->second);
}

}  // namespace frontier::store
