// api.h: the dashboard's JSON API, as pure request -> response functions over
// DashboardData (no sockets: server.h carries them over HTTP, tests call them
// directly).
//
//   GET  /api/meta                      version, database, counts, import on/off
//   GET  /api/runs?model=&hardware=&precision=&stack=&version=&workload=&source=
//                  &from=&to=&q=&sort=&limit=&offset=        runs, filtered, sorted
//   GET  /api/frontier?run=&y=&x=&at=  series (means, 95% intervals), frontier
//                                       flags, iso-interactivity table
//   GET  /api/run?id=                   one run: its points with verdicts, a
//                                       search's outcome and trials in order
//   GET  /api/point?id=                 one point: percentiles, histograms,
//                                       series over time (timeslices, server
//                                       samples), provenance, reproduce command
//   GET  /api/compare?baseline=&candidate=&min_change=&threshold=&confidence=
//   GET  /api/over-time?config=SWEEP/SYSTEM&workload=&at=
//   GET  /api/live?since=               points stored after `since`, sweep progress
//   POST /api/import?name=&gpus=&hardware=&system=   body: a vLLM or InferenceX file
//
// Every response is JSON. A bad query parameter is a 400 naming it, the value
// and what is allowed; an unknown id is a 404; only a failing store (503) or a
// bug (500) is anything else. Strings are JSON-escaped, and '<', '>' and '&'
// are written as \u escapes, so no stored text can close a script or tag.
//
// Thread safety: an Api belongs to the thread that owns its DashboardData.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "dashboard/data.h"
#include "dashboard/query.h"

namespace frontier::dashboard {

struct ApiResponse {
  int status = 200;
  std::string body;  // JSON
};

struct ApiOptions {
  std::string db_path;         // shown by /api/meta
  bool allow_import = false;   // POST /api/import; the store must be writable
  std::string version;         // frontier's version, shown by /api/meta
};

// The JSON text of `j` with '<', '>' and '&' escaped and invalid UTF-8 replaced.
std::string SafeJson(const nlohmann::json& j);

class Api {
 public:
  Api(DashboardData& data, ApiOptions options) : data_(data), options_(std::move(options)) {}

  // `path` without the query string; `query` undecoded.
  ApiResponse Handle(const std::string& method, const std::string& path, const std::string& query,
                     const std::string& body);

  // What /api/live answers, read afresh from the store: points stored after
  // `since` and the progress of the latest sweep's runs. The server's event
  // stream sends the same.
  Result<nlohmann::json> Live(int64_t since);

 private:
  // The view at `path` (its method already checked).
  Result<nlohmann::json> Route(const std::string& path, const Query& q, const std::string& body);
  Result<nlohmann::json> Meta(const Query& q);
  Result<nlohmann::json> Runs(const Query& q);
  Result<nlohmann::json> Frontier(const Query& q);
  Result<nlohmann::json> Point(const Query& q);
  Result<nlohmann::json> Run(const Query& q);
  Result<nlohmann::json> Compare(const Query& q);
  Result<nlohmann::json> OverTime(const Query& q);
  Result<nlohmann::json> Import(const Query& q, const std::string& body);

  DashboardData& data_;
  ApiOptions options_;
};

// The HTTP status for a failed view: 400 bad input, 404 unknown id, 403
// import off, 503 store unreadable, 500 otherwise.
int HttpStatusOf(const Status& s);

}  // namespace frontier::dashboard
