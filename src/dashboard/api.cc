#include "dashboard/api.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "analysis/cost.h"
#include "core/ascii.h"
#include "core/redact.h"
#include "dashboard/views.h"
#include "report/hardware_facts.h"

namespace frontier::dashboard {

using nlohmann::json;

std::string SafeJson(const json& j) {
  const std::string raw = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(raw.size() + 16);
  for (char c : raw) {
    // Outside strings JSON has none of these characters, so escaping every one is safe.
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

int HttpStatusOf(const Status& s) {
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange: return 400;
    case StatusCode::kNotFound: return 404;
    case StatusCode::kFailedPrecondition: return 403;
    case StatusCode::kIoError:
    case StatusCode::kUnavailable: return 503;
    default: return 500;
  }
}

ApiResponse Api::Handle(const std::string& method, const std::string& path, const std::string& query,
                        const std::string& body) {
  auto fail = [](const Status& s) {
    return ApiResponse{HttpStatusOf(s), SafeJson(json{{"error", s.message()}})};
  };
  Result<Query> q = Query::Parse(query);
  if (!q.ok()) return fail(q.status());
  const bool post = path == "/api/import";
  if (method != (post ? "POST" : "GET")) {
    return ApiResponse{405, SafeJson(json{{"error", path + " takes " + (post ? "POST" : "GET") +
                                                        ", not " + method}})};
  }
  // Every view sees what a running sweep has stored so far.
  if (Status st = data_.Refresh(); !st.ok()) return fail(st);
  Result<json> r = Status(StatusCode::kNotFound, "");
  // A throw from below (a JSON library on a malformed stored or uploaded value) answers
  // this request with a 500 naming it; the server goes on serving the others.
  try {
    r = Route(path, *q, body);
  } catch (const std::exception& e) {
    r = Internal("internal error answering " + path + ": " + e.what());
  }
  if (!r.ok()) return fail(r.status());
  return ApiResponse{200, SafeJson(*r)};
}

Result<json> Api::Route(const std::string& path, const Query& q, const std::string& body) {
  if (path == "/api/meta") return Meta(q);
  if (path == "/api/runs") return Runs(q);
  if (path == "/api/frontier") return Frontier(q);
  if (path == "/api/point") return Point(q);
  if (path == "/api/run") return Run(q);
  if (path == "/api/compare") return Compare(q);
  if (path == "/api/over-time") return OverTime(q);
  if (path == "/api/import") return Import(q, body);
  if (path == "/api/live") {
    FRONTIER_RETURN_IF_ERROR(q.OnlyKnown({"since"}));
    FRONTIER_ASSIGN_OR_RETURN(auto since, q.Index("since"));
    return LiveJson(data_, since.value_or(0));
  }
  return NotFound("no API at " + path + "; see docs/dashboard.md for the API");
}

Result<json> Api::Meta(const Query& q) {
  FRONTIER_RETURN_IF_ERROR(q.OnlyKnown({}));
  return json{{"version", options_.version},
              {"db", RedactUrl(options_.db_path)},
              {"allow_import", options_.allow_import},
              {"runs", data_.runs().size()},
              {"last_point_id", data_.last_point_id()}};
}

namespace {

bool Contains(const std::string& hay, const std::string& lower_needle) {
  return AsciiLower(hay).find(lower_needle) != std::string::npos;
}

// A filter value matches when it equals the run's value (any case); a list matches any.
bool Matches(const std::vector<std::string>& wanted, const std::string& value) {
  if (wanted.empty()) return true;
  for (const auto& w : wanted)
    if (AsciiEqualsIgnoreCase(w, value)) return true;
  return false;
}

}  // namespace

Result<json> Api::Runs(const Query& q) {
  FRONTIER_RETURN_IF_ERROR(q.OnlyKnown({"model", "hardware", "precision", "stack", "version",
                                        "workload", "source", "status", "from", "to", "q", "sort",
                                        "limit", "offset", "run"}));
  FRONTIER_ASSIGN_OR_RETURN(auto from, q.Date("from"));
  FRONTIER_ASSIGN_OR_RETURN(auto to, q.Date("to"));
  FRONTIER_ASSIGN_OR_RETURN(auto sort, q.OneOf("sort", {"date", "-date", "name", "-name", "model",
                                                        "hardware", "points", "-points", "peak",
                                                        "-peak", "interactivity", "-interactivity"},
                                               "-date"));
  FRONTIER_ASSIGN_OR_RETURN(auto limit, q.Number("limit", 1, 5000));
  FRONTIER_ASSIGN_OR_RETURN(auto offset, q.Number("offset", 0, 1e9));
  FRONTIER_ASSIGN_OR_RETURN(auto sources,
                            q.OneOf("source", {"measured", "simulated", "imported"}, ""));
  FRONTIER_ASSIGN_OR_RETURN(auto status, q.OneOf("status", {"ok", "broken"}, ""));
  FRONTIER_ASSIGN_OR_RETURN(auto selected, q.Ids("run"));
  const std::string search = AsciiLower(q.Text("q"));
  // Any name of a GPU filters by its catalog name (h100 finds the runs stored as h100-sxm).
  std::vector<std::string> hardware = q.List("hardware");
  for (std::string& h : hardware) h = report::HardwareKey(h);

  std::vector<const RunRow*> rows;
  std::map<std::string, std::set<std::string>> facets;
  for (const RunRow& r : data_.runs()) {
    facets["model"].insert(r.Config("model"));
    facets["hardware"].insert(r.hardware);
    facets["precision"].insert(r.Config("precision"));
    facets["stack"].insert(r.Stack());
    facets["version"].insert(r.StackVersion());
    facets["source"].insert(store::SourceName(r.run.source));
    for (const auto& w : r.workloads) facets["workload"].insert(w);
    const std::string day = r.run.created_utc.substr(0, 10);
    if (!Matches(q.List("model"), r.Config("model")) ||
        !Matches(hardware, r.hardware) ||
        !Matches(q.List("precision"), r.Config("precision")) ||
        !Matches(q.List("stack"), r.Stack()) || !Matches(q.List("version"), r.StackVersion()) ||
        (!sources.empty() && store::SourceName(r.run.source) != sources) ||
        (status == "ok" && !r.run.status.ok()) || (status == "broken" && r.run.status.ok()) ||
        (from && day < *from) || (to && day > *to)) {
      continue;
    }
    if (const auto w = q.List("workload"); !w.empty()) {
      bool any = false;
      for (const auto& name : r.workloads) any = any || Matches(w, name);
      if (!any) continue;
    }
    if (!selected.empty() &&
        std::find(selected.begin(), selected.end(), r.run.id) == selected.end()) {
      continue;
    }
    if (!search.empty()) {
      std::string text = r.run.Label() + " " + r.Config("model") + " " + r.hardware + " " +
                         r.Config("precision") + " " + r.Stack() + " " + store::SourceName(r.run.source);
      for (const auto& w : r.workloads) text += " " + w;
      if (!Contains(text, search)) continue;
    }
    rows.push_back(&r);
  }
  auto key = [&](const RunRow* r) -> std::tuple<double, std::string> {
    const std::string s = sort[0] == '-' ? sort.substr(1) : sort;
    if (s == "date") return {0.0, r->run.created_utc + "#" + std::to_string(1000000000 + r->run.id)};
    if (s == "name") return {0.0, AsciiLower(r->run.Label())};
    if (s == "model") return {0.0, AsciiLower(r->Config("model"))};
    if (s == "hardware") return {0.0, r->hardware};
    if (s == "points") return {static_cast<double>(r->points), ""};
    if (s == "peak") return {r->peak_total_tput_per_gpu, ""};
    return {r->peak_interactivity, ""};
  };
  const bool descending = sort[0] == '-';
  std::stable_sort(rows.begin(), rows.end(), [&](const RunRow* a, const RunRow* b) {
    return descending ? key(b) < key(a) : key(a) < key(b);
  });
  json list = json::array();
  const size_t first = static_cast<size_t>(offset.value_or(0));
  const size_t count = static_cast<size_t>(limit.value_or(200));
  for (size_t i = first; i < rows.size() && i < first + count; ++i) list.push_back(RunJson(*rows[i]));
  json f = json::object();
  for (auto& [k, v] : facets) {
    json values = json::array();
    for (const auto& x : v)
      if (!x.empty()) values.push_back(x);
    f[k] = values;
  }
  return json{{"total", rows.size()}, {"offset", first}, {"runs", list}, {"facets", f},
              {"all_runs", data_.runs().size()}};
}

Result<json> Api::Frontier(const Query& q) {
  FRONTIER_RETURN_IF_ERROR(q.OnlyKnown({"run", "y", "x", "at", "workload"}));
  FRONTIER_ASSIGN_OR_RETURN(auto ids, q.Ids("run"));
  FRONTIER_ASSIGN_OR_RETURN(auto y, q.OneOf("y", {"total", "output", "per_dollar", "per_joule"}, "total"));
  FRONTIER_ASSIGN_OR_RETURN(auto x, q.OneOf("x", {"interactivity", "ttft_p50", "ttft_p99", "e2el"},
                                            "interactivity"));
  FRONTIER_ASSIGN_OR_RETURN(auto at, q.Number("at", 1e-6, 1e9));
  if (ids.size() > kMaxOverlaid) {
    return InvalidArgument("query parameter 'run' names " + std::to_string(ids.size()) +
                           " runs; at most " + std::to_string(kMaxOverlaid) + " are overlaid");
  }
  const bool chosen = !ids.empty();
  if (!chosen) ids = DefaultRuns(data_);
  std::vector<double> targets;
  if (at) targets.push_back(*at);
  FRONTIER_ASSIGN_OR_RETURN(report::Report rep, data_.BuildReport(ids, targets));
  json out = FrontierJson(rep, y, x, data_);
  out["runs"] = ids;
  out["default_runs"] = !chosen;
  if (at) out["at"] = *at;
  return out;
}

Result<json> Api::Point(const Query& q) {
  FRONTIER_RETURN_IF_ERROR(q.OnlyKnown({"id"}));
  FRONTIER_ASSIGN_OR_RETURN(auto id, q.Id("id"));
  if (!id) return InvalidArgument("query parameter 'id' is missing; give a point id (/point?id=12)");
  FRONTIER_ASSIGN_OR_RETURN(DashboardData::PointDetail d, data_.Point(*id));
  return PointJson(d);
}

Result<json> Api::Run(const Query& q) {
  FRONTIER_RETURN_IF_ERROR(q.OnlyKnown({"id"}));
  FRONTIER_ASSIGN_OR_RETURN(auto id, q.Id("id"));
  if (!id) return InvalidArgument("query parameter 'id' is missing; give a run id (/run?id=3)");
  FRONTIER_ASSIGN_OR_RETURN(auto points, data_.RunPoints(*id));
  return RunViewJson(*data_.FindRun(*id), points);
}

Result<json> Api::Compare(const Query& q) {
  FRONTIER_RETURN_IF_ERROR(q.OnlyKnown({"baseline", "candidate", "min_change", "threshold", "confidence"}));
  FRONTIER_ASSIGN_OR_RETURN(auto b, q.Id("baseline"));
  FRONTIER_ASSIGN_OR_RETURN(auto c, q.Id("candidate"));
  analysis::RegressionOptions o;
  FRONTIER_ASSIGN_OR_RETURN(auto min_change, q.Number("min_change", 0, 1));
  FRONTIER_ASSIGN_OR_RETURN(auto threshold, q.Number("threshold", 0, 1));
  FRONTIER_ASSIGN_OR_RETURN(auto level, q.OneOf("confidence", {"0.9", "0.95", "0.99"}, "0.95"));
  if (min_change) o.min_relative = *min_change;
  if (threshold) o.unmeasured_threshold = *threshold;
  o.level = std::stod(level);
  json runs = json::array();
  for (const RunRow& r : data_.runs())
    runs.push_back({{"id", r.run.id}, {"label", r.run.Label()}, {"points", r.points}});
  if (!b || !c) return json{{"runs", runs}, {"ready", false}};
  for (int64_t id : {*b, *c}) {
    if (!data_.FindRun(id)) {
      return NotFound("run " + std::to_string(id) + " is not in the database; the Runs page lists the runs");
    }
  }
  FRONTIER_ASSIGN_OR_RETURN(auto report, data_.Compare(*b, *c, o));
  FRONTIER_ASSIGN_OR_RETURN(auto bands, data_.CompareBands(*b, *c));
  json out = CompareJson(report, *data_.FindRun(*b), *data_.FindRun(*c), o, bands);
  out["runs"] = runs;
  out["ready"] = true;
  return out;
}

Result<json> Api::OverTime(const Query& q) {
  FRONTIER_RETURN_IF_ERROR(q.OnlyKnown({"config", "workload", "at"}));
  FRONTIER_ASSIGN_OR_RETURN(auto at, q.Number("at", 1e-6, 1e9));
  return OverTimeJson(data_, q.Text("config"), q.Text("workload"), at);
}

Result<json> Api::Live(int64_t since) {
  FRONTIER_RETURN_IF_ERROR(data_.Refresh());
  return LiveJson(data_, since);
}

Result<json> Api::Import(const Query& q, const std::string& body) {
  if (!options_.allow_import) {
    return FailedPrecondition("import is off: start the dashboard with --allow-import "
                              "(the database is then opened for writing)");
  }
  FRONTIER_RETURN_IF_ERROR(q.OnlyKnown({"name", "gpus", "hardware", "system"}));
  store::ImportOptions o;
  FRONTIER_ASSIGN_OR_RETURN(auto gpus, q.Number("gpus", 1, 100000));
  if (gpus) o.num_gpus = static_cast<int>(*gpus);
  o.hardware = q.Text("hardware");
  o.system = q.Text("system");
  const std::string name = q.Text("name", "upload.json");
  if (body.empty()) return InvalidArgument("the upload is empty; choose a vLLM result JSON or an InferenceX agg_*.json");
  FRONTIER_ASSIGN_OR_RETURN(auto runs, data_.Import(body, "upload:" + name, o));
  FRONTIER_RETURN_IF_ERROR(data_.Refresh());
  json list = json::array();
  for (const auto& r : runs) list.push_back({{"id", r.id}, {"label", r.Label()}});
  return json{{"imported", list}};
}

}  // namespace frontier::dashboard
