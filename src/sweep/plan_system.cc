// plan_system.cc: a plan's systems: served, launched or simulated, with the
// client settings and the measurement of those measured over HTTP.
#include <set>
#include <string>

#include "client/backend.h"
#include "core/terminal_text.h"
#include "loadgen/target_request.h"
#include "sweep/bench_job.h"
#include "sweep/plan_yaml.h"
#include "sweep/proc_scan.h"

namespace frontier::sweep::internal {

namespace {

// A server's client settings: the target's fields with a plan key
// (loadgen::TargetFieldTable), in their bounds, then the target's own checks
// (--usage's words, --workers, --extra-body's JSON) named by the plan key.
Status ParseTarget(const Checker& c, const YAML::Node& n, const std::string& f, loadgen::TargetRequest* t) {
  for (const loadgen::TargetField& field : loadgen::TargetFieldTable()) {
    const std::string key = field.plan_key;
    if (key.empty()) continue;
    if (key == "extra_body" && n[key].IsDefined() && n[key].IsMap())  // `{"top_p": 0.9}` unquoted is YAML's map
      return c.Error(n[key], f + "." + key, "must be a JSON object in quotes, e.g. extra_body: '{\"top_p\": 0.9}'");
    FRONTIER_RETURN_IF_ERROR(
        ReadTableField<loadgen::TargetRequest>(c, n, f, key, field.flag.field, field.min, field.max, false, t));
  }
  if (std::optional<loadgen::TargetProblem> bad = loadgen::CheckTargetRequest(*t)) {
    for (const loadgen::TargetField& field : loadgen::TargetFieldTable())
      if (field.flag.name == std::string_view(bad->flag) && *field.plan_key != '\0' && n[field.plan_key].IsDefined())
        return c.Error(n[field.plan_key], f + "." + field.plan_key, bad->message);
    return c.Error(n, f, std::string(bad->flag) + " " + bad->message);  // a field a plan does not set: a bug
  }
  return Status::Ok();
}

}  // namespace

Status ParseLaunch(const Checker& c, const YAML::Node& n, const std::string& f, LaunchSpec* l) {
  FRONTIER_RETURN_IF_ERROR(c.Map(n, f));
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n, f, {"command", "env", "cwd", "health", "timeout_s",
                                              "stop_timeout_s", "log", "check_owner"}));
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "command", &l->command, true));
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "cwd", &l->cwd));
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "health", &l->health, true));
  if (l->health.rfind("http://", 0) != 0) {
    return c.Error(n["health"], f + ".health", "must be an http:// URL, got '" + l->health + "'");
  }
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "log", &l->log));
  FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "timeout_s", &l->timeout_s, 0.1, 86400));
  FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "stop_timeout_s", &l->stop_timeout_s, 0, 3600));
  FRONTIER_RETURN_IF_ERROR(c.Bool(n, f, "check_owner", &l->check_owner));
  const YAML::Node env = n["env"];
  if (env.IsDefined() && !env.IsNull()) {
    FRONTIER_RETURN_IF_ERROR(c.Map(env, f + ".env"));
    for (auto it = env.begin(); it != env.end(); ++it) {
      if (!it->second.IsScalar()) {
        return c.Error(it->second, f + ".env." + it->first.Scalar(), "must be a string");
      }
      l->env[it->first.Scalar()] = it->second.Scalar();
    }
  }
  return Status::Ok();
}

// The measurement beside a point: power, power_url, power_interval_s,
// scrape_metrics (true for base_url + /metrics, false, or a URL) and
// scrape_interval_s, in bench's bounds (sweep/measure.h).
Status ParseMeasurement(const Checker& c, const YAML::Node& n, const std::string& f, MeasureRequest* m) {
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "power", &m->power_kind));
  if (!power::ParsePowerKind(m->power_kind))
    return c.Error(n["power"], f + ".power",
                   "must be one of " + std::string(power::kPowerKinds) + ", got '" + TerminalSafe(m->power_kind) + "'");
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "power_url", &m->power_url));
  FRONTIER_RETURN_IF_ERROR(
      c.Number(n, f, "power_interval_s", &m->power_interval_s, power::kMinPowerIntervalS, power::kMaxPowerIntervalS));
  FRONTIER_RETURN_IF_ERROR(
      c.Number(n, f, "scrape_interval_s", &m->scrape_interval_s, kMinScrapeIntervalS, kMaxScrapeIntervalS));
  std::string scrape;
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "scrape_metrics", &scrape));
  m->scrape = !scrape.empty() && scrape != "false";
  if (m->scrape && scrape != "true") {
    if (Result<HostPort> hp = UrlHostPort(scrape); !hp.ok() || (scrape.rfind("http://", 0) != 0 &&
                                                                 scrape.rfind("https://", 0) != 0))
      return c.Error(n["scrape_metrics"], f + ".scrape_metrics",
                     "must be true, false or a URL (http://HOST:PORT/metrics), got '" + TerminalSafe(scrape) + "'");
    m->scrape_url = scrape;
  }
  if (m->power_kind == "scrape" && m->power_url.empty() && !m->scrape)
    return c.Error(n["power"], f + ".power",
                   "scrape needs power_url (a DCGM exporter's /metrics) or scrape_metrics (read from there)");
  return Status::Ok();
}

Status ParseSystem(const Checker& c, const YAML::Node& n, const std::string& f, SystemSpec* s) {
  FRONTIER_RETURN_IF_ERROR(c.Map(n, f));
  std::set<std::string> keys = {"name",     "hardware", "gpus",     "sim",    "live",      "engine",
                                 "model",    "base_url", "backend",  "endpoint", "launch", "power",
                                 "power_url", "power_interval_s", "scrape_metrics", "scrape_interval_s"};
  for (const loadgen::TargetField& field : loadgen::TargetFieldTable())
    if (*field.plan_key != '\0') keys.insert(field.plan_key);
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n, f, keys));
  s->line = n.Mark().line + 1;
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "name", &s->name, true));
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "hardware", &s->hardware));
  FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "gpus", &s->gpus, 1, 100000));
  FRONTIER_RETURN_IF_ERROR(c.Bool(n, f, "live", &s->live));
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "model", &s->model));
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "base_url", &s->base_url));
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "backend", &s->backend));
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "endpoint", &s->endpoint));
  if (s->endpoint.empty() || s->endpoint.front() != '/')
    return c.Error(n["endpoint"], f + ".endpoint", "must be a path such as /v1/completions, got '" + s->endpoint + "'");
  if (n["backend"].IsDefined()) {
    // The flags' own check (client/backend.h), naming the plan's keys.
    const client::BackendFieldNames names{"backend", "endpoint"};
    if (!n["endpoint"].IsDefined()) {
      Result<std::string> e = client::DefaultEndpoint(s->backend, s->model, names);
      if (!e.ok()) return c.Error(n["backend"], f + ".backend", e.status().message());
      s->endpoint = *e;
    }
    Result<client::Dialect> d = client::ResolveDialect(s->backend, s->endpoint, names);
    if (!d.ok()) return c.Error(n["backend"], f + ".backend", d.status().message());
  }
  FRONTIER_RETURN_IF_ERROR(ParseMeasurement(c, n, f, &s->measure));
  if (n["engine"].IsDefined()) {
    const std::string ef = f + ".engine";
    FRONTIER_RETURN_IF_ERROR(c.Map(n["engine"], ef));
    FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n["engine"], ef, {"name", "version"}));
    FRONTIER_RETURN_IF_ERROR(c.String(n["engine"], ef, "name", &s->engine_name, true));
    FRONTIER_RETURN_IF_ERROR(c.String(n["engine"], ef, "version", &s->engine_version));
  }
  if (n["sim"].IsDefined()) {
    sim::SimSpec sim;
    FRONTIER_RETURN_IF_ERROR(ParseSim(c, n["sim"], f + ".sim", &sim));
    s->sim = sim;
  }
  if (n["launch"].IsDefined()) {
    LaunchSpec l;
    FRONTIER_RETURN_IF_ERROR(ParseLaunch(c, n["launch"], f + ".launch", &l));
    s->launch = l;
  }
  if (s->sim && !s->base_url.empty()) {
    return c.Error(n["base_url"], f + ".base_url",
                   "a system is either `sim` (simulated) or `base_url` (a server), not both");
  }
  if (!s->sim && s->base_url.empty()) {
    return c.Error(n, f, "needs `sim: {model: ...}` (simulated) or `base_url` (a server)");
  }
  if (s->sim && s->launch) {
    return c.Error(n["launch"], f + ".launch", "only servers are launched; remove it or `sim`");
  }
  if (s->live && !s->sim) return c.Error(n["live"], f + ".live", "applies to `sim` systems only");
  for (const char* key : {"scrape_metrics", "scrape_interval_s", "power_interval_s"})
    if (n[key].IsDefined() && s->sim && !s->live)
      return c.Error(n[key], f + "." + key, "applies to a system measured over HTTP (a server, or `live: true`)");
  for (const loadgen::TargetField& field : loadgen::TargetFieldTable())
    if (*field.plan_key != '\0' && n[field.plan_key].IsDefined() && s->sim && !s->live)
      return c.Error(n[field.plan_key], f + "." + field.plan_key,
                     "applies to a system measured over HTTP (a server, or `live: true`), not to the simulator in "
                     "virtual time");
  FRONTIER_RETURN_IF_ERROR(ParseTarget(c, n, f, &s->target));
  if (s->sim && s->hardware.empty()) {
    return c.Error(n, f + ".hardware", "is required for a simulated system (a catalog name, e.g. h200)");
  }
  if (!s->base_url.empty() && s->base_url.rfind("http://", 0) != 0 &&
      s->base_url.rfind("https://", 0) != 0) {
    return c.Error(n["base_url"], f + ".base_url", "must start with http:// or https://");
  }
  if (!s->base_url.empty()) {
    if (Result<HostPort> hp = UrlHostPort(s->base_url); !hp.ok())
      return c.Error(n["base_url"], f + ".base_url", hp.status().message());
  }
  if (s->launch) {
    if (Result<HostPort> hp = UrlHostPort(s->launch->health); !hp.ok())
      return c.Error(n["launch"]["health"], f + ".launch.health", hp.status().message());
  }
  // The deployment's sizes must agree with each other (the simulator would
  // otherwise report it in terms of its command-line flags).
  if (s->sim && s->gpus % s->sim->tp != 0) {
    return c.Error(n["gpus"], f + ".gpus",
                   std::to_string(s->gpus) + " is not a multiple of sim.tp " + std::to_string(s->sim->tp));
  }
  if (s->sim && s->sim->dp > 0 && s->gpus != s->sim->tp * s->sim->dp) {
    return c.Error(n["gpus"], f + ".gpus",
                   std::to_string(s->gpus) + " must equal sim.tp x sim.dp = " +
                       std::to_string(s->sim->tp * s->sim->dp));
  }
  if (!s->sim && s->model.empty()) {
    return c.Error(n, f + ".model", "is required for a server (the model name to request)");
  }
  if (s->sim) {
    // The deployment the simulator builds: the system's hardware and GPUs;
    // a disaggregated one's parallelism is in its pools.
    s->sim->hardware = s->hardware;
    s->sim->gpus = s->gpus;
    if (s->sim->disaggregated()) {
      s->sim->tp = 1;
      s->sim->ep = 1;
      s->sim->dp = 0;
    }
  }
  return Status::Ok();
}

}  // namespace frontier::sweep::internal
