#include "store/kinds.h"

namespace frontier::store {

std::string LoadKindName(LoadKind kind) {
  switch (kind) {
    case LoadKind::kConcurrency: return "concurrency";
    case LoadKind::kRequestRate: return "request_rate";
    case LoadKind::kProbe: return "probe";
  }
  return "concurrency";  // not reached: every kind is named above
}

Result<LoadKind> ParseLoadKind(std::string_view text) {
  for (LoadKind k : {LoadKind::kConcurrency, LoadKind::kRequestRate, LoadKind::kProbe})
    if (text == LoadKindName(k)) return k;
  return InvalidArgument("load_kind must be concurrency, request_rate or probe, got '" + std::string(text) + "'");
}

std::string SourceName(Source source) {
  switch (source) {
    case Source::kMeasured: return "measured";
    case Source::kSimulated: return "simulated";
    case Source::kImported: return "imported";
  }
  return "measured";  // not reached: every source is named above
}

Result<Source> ParseSource(std::string_view text) {
  for (Source s : {Source::kMeasured, Source::kSimulated, Source::kImported})
    if (text == SourceName(s)) return s;
  return InvalidArgument("source must be measured, simulated or imported, got '" + std::string(text.substr(0, 40)) + "'");
}

std::string SystemKindName(SystemKind kind) {
  switch (kind) {
    case SystemKind::kServer: return "server";
    case SystemKind::kLaunched: return "launched";
    case SystemKind::kSimulated: return "simulated";
    case SystemKind::kSimulatedLive: return "simulated-live";
    case SystemKind::kProbe: return "probe";
  }
  return "server";  // not reached: every kind is named above
}

Result<SystemKind> ParseSystemKind(std::string_view text) {
  for (SystemKind k : {SystemKind::kServer, SystemKind::kLaunched, SystemKind::kSimulated,
                       SystemKind::kSimulatedLive, SystemKind::kProbe})
    if (text == SystemKindName(k)) return k;
  return InvalidArgument("kind must be server, launched, simulated, simulated-live or probe, got '" +
                         std::string(text.substr(0, 40)) + "'");
}

Result<SystemKind> SystemKindOf(const std::map<std::string, std::string>& config) {
  const auto it = config.find(kSystemKindKey);
  if (it == config.end()) return InvalidArgument("the run's config has no kind");
  return ParseSystemKind(it->second);
}

}  // namespace frontier::store
