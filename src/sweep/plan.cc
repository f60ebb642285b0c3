#include "sweep/plan.h"

#include <yaml-cpp/yaml.h>

#include "sweep/proc_scan.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "client/backend.h"
#include "core/atomic_file.h"
#include "core/parse.h"
#include "core/terminal_text.h"
#include "store/records.h"
#include "workload/option_names.h"

namespace frontier::sweep {
namespace {

// Outside text quoted in a message: at most 40 characters.
std::string Shorten(const std::string& text) {
  return text.size() > 40 ? text.substr(0, 40) + "..." : text;
}

// Builds "FILE:LINE: FIELD: message" errors; yaml-cpp marks are 0-based.
class Checker {
 public:
  explicit Checker(std::string file) : file_(std::move(file)) {}

  Status Error(const YAML::Node& at, const std::string& field, const std::string& msg) const {
    const int line = at.IsDefined() ? at.Mark().line + 1 : 0;
    return InvalidArgument(file_ + ":" + std::to_string(line) + ": " + field + ": " + msg);
  }

  // Rejects keys not in `allowed` (typos would otherwise be silently ignored).
  Status KnownKeys(const YAML::Node& map, const std::string& field,
                   const std::set<std::string>& allowed) const {
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (!allowed.count(key)) {
        std::string list;
        for (auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        return Error(it->first, Join(field, key), "unknown field; allowed: " + list);
      }
    }
    return Status::Ok();
  }

  static std::string Join(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
  }

  Status String(const YAML::Node& map, const std::string& parent, const std::string& key,
                std::string* out, bool required = false) const {
    const YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) {
      return required ? Error(map, Join(parent, key), "is required") : Status::Ok();
    }
    if (!n.IsScalar()) return Error(n, Join(parent, key), "must be a string");
    *out = n.Scalar();
    if (required && out->empty()) return Error(n, Join(parent, key), "must not be empty");
    // A name is printed, stored and used in file names: no control characters.
    if (key == "name" && std::any_of(out->begin(), out->end(), [](char ch) {
          const auto u = static_cast<unsigned char>(ch);
          return u < 0x20 || u == 0x7f;
        })) {
      return Error(n, Join(parent, key), "must not contain control characters, got '" + TerminalSafe(Shorten(*out)) + "'");
    }
    return Status::Ok();
  }

  template <typename T>
  Status Number(const YAML::Node& map, const std::string& parent, const std::string& key, T* out,
                double min, double max, bool required = false) const {
    const YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) {
      return required ? Error(map, Join(parent, key), "is required") : Status::Ok();
    }
    return Value(n, Join(parent, key), out, min, max);
  }

  template <typename T>
  Status Value(const YAML::Node& n, const std::string& field, T* out, double min, double max) const {
    const char* kind = std::is_integral_v<T> ? "an integer" : "a number";
    const std::string allowed =
        std::string("must be ") + kind + " in [" + FormatNumber(min) + ", " + FormatNumber(max) + "], got ";
    if (!n.IsScalar()) return Error(n, field, allowed + "a list or map");
    T v{};
    if constexpr (std::is_integral_v<T>) {
      // Decimal only, as flags are: yaml-cpp reads 010 as octal 8 and 0x10 as 16.
      Result<int64_t> i = ParseInt(field, n.Scalar(), INT64_MIN, INT64_MAX);
      if (!i.ok()) return Error(n, field, allowed + "'" + Shorten(n.Scalar()) + "'");
      // Checked before narrowing to T ([min, max] lies inside T's range).
      if (static_cast<double>(*i) < min || static_cast<double>(*i) > max)
        return Error(n, field, allowed + Shorten(n.Scalar()));
      v = static_cast<T>(*i);
    } else if (!YAML::convert<T>::decode(n, v)) {
      return Error(n, field, allowed + "'" + Shorten(n.Scalar()) + "'");
    }
    const double d = static_cast<double>(v);
    if (!std::isfinite(d) || d < min || d > max) return Error(n, field, allowed + Shorten(n.Scalar()));
    *out = v;
    return Status::Ok();
  }

  // A scalar read as int64_t or a finite double, with no range of its own:
  // the range is the validator's that the caller runs next.
  template <typename T>
  Status Typed(const YAML::Node& map, const std::string& parent, const std::string& key, T* out) const {
    static_assert(std::is_same_v<T, int64_t> || std::is_same_v<T, double>);
    const YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) return Status::Ok();
    const std::string field = Join(parent, key);
    const std::string kind = std::is_integral_v<T> ? "must be an integer, got " : "must be a finite number, got ";
    if (!n.IsScalar()) return Error(n, field, kind + "a list or map");
    if constexpr (std::is_integral_v<T>) {
      // Decimal only, as flags are: yaml-cpp reads 010 as octal 8 and 0x10 as 16.
      Result<int64_t> i = ParseInt(field, n.Scalar(), INT64_MIN, INT64_MAX);
      if (!i.ok()) return Error(n, field, kind + "'" + Shorten(n.Scalar()) + "'");
      *out = *i;
    } else {
      T v{};
      if (!YAML::convert<T>::decode(n, v) || !std::isfinite(v)) return Error(n, field, kind + "'" + Shorten(n.Scalar()) + "'");
      *out = v;
    }
    return Status::Ok();
  }

  Status Bool(const YAML::Node& map, const std::string& parent, const std::string& key,
              bool* out) const {
    const YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) return Status::Ok();
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, *out))
      return Error(n, Join(parent, key), "must be true or false, got '" + Shorten(n.Scalar()) + "'");
    return Status::Ok();
  }

  Status Map(const YAML::Node& n, const std::string& field) const {
    return n.IsMap() ? Status::Ok() : Error(n, field, "must be a map of fields");
  }

 private:
  std::string file_;
};

Status ParseSim(const Checker& c, const YAML::Node& n, const std::string& f, sim::SimSpec* s) {
  FRONTIER_RETURN_IF_ERROR(c.Map(n, f));
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n, f, {"model", "tp", "ep", "dp", "precision",
                                              "kv_precision", "stack", "max_num_seqs",
                                              "max_num_batched_tokens", "spec_tokens",
                                              "acceptance", "acceptance_rate", "attention_dp",
                                              "prefix_caching", "prefill", "decode"}));
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "model", &s->model, true));
  FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "tp", &s->tp, 1, 1024));
  FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "ep", &s->ep, 1, 1024));
  FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "dp", &s->dp, 0, 1024));
  FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "spec_tokens", &s->spec_tokens, 0, 16));
  for (auto [key, out] : {std::pair{"precision", &s->precision}, {"kv_precision", &s->kv_precision},
                          {"stack", &s->stack}}) {
    std::string v;
    FRONTIER_RETURN_IF_ERROR(c.String(n, f, key, &v));
    if (!v.empty()) *out = v;
  }
  if (n["max_num_seqs"].IsDefined() && n["max_num_seqs"].IsScalar() && n["max_num_seqs"].Scalar() == "auto") {
    s->max_num_seqs_auto = true;
  } else if (n["max_num_seqs"].IsDefined()) {
    int v = 0;
    FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "max_num_seqs", &v, 1, 1e9));
    s->max_num_seqs = v;
  }
  if (n["attention_dp"].IsDefined()) {
    if (!n["attention_dp"].IsScalar() || (n["attention_dp"].Scalar() != "true" && n["attention_dp"].Scalar() != "false"))
      return c.Error(n["attention_dp"], f + ".attention_dp", "must be true or false");
    s->attention_dp = n["attention_dp"].Scalar() == "true";
  }
  if (n["prefix_caching"].IsDefined()) {
    const YAML::Node& v = n["prefix_caching"];
    if (!v.IsScalar() || (v.Scalar() != "on" && v.Scalar() != "off" && v.Scalar() != "true" && v.Scalar() != "false"))
      return c.Error(v, f + ".prefix_caching", "must be on or off");
    s->prefix_caching = v.Scalar() == "on" || v.Scalar() == "true";
  }
  struct Pool {
    const char* key;
    int *workers, *tp, *dp, *ep;
  };
  for (const Pool& pool : {Pool{"prefill", &s->prefill_workers, &s->prefill_tp, &s->prefill_dp, &s->prefill_ep},
                           Pool{"decode", &s->decode_workers, &s->decode_tp, &s->decode_dp, &s->decode_ep}}) {
    const char* key = pool.key;
    if (!n[key].IsDefined()) continue;
    const std::string pf = f + "." + key;
    FRONTIER_RETURN_IF_ERROR(c.Map(n[key], pf));
    FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n[key], pf, {"workers", "tp", "dp", "ep"}));
    FRONTIER_RETURN_IF_ERROR(c.Number(n[key], pf, "workers", pool.workers, 1, 1024));
    FRONTIER_RETURN_IF_ERROR(c.Number(n[key], pf, "tp", pool.tp, 1, 1024));
    FRONTIER_RETURN_IF_ERROR(c.Number(n[key], pf, "dp", pool.dp, 1, 1024));
    FRONTIER_RETURN_IF_ERROR(c.Number(n[key], pf, "ep", pool.ep, 1, 1024));
  }
  if ((s->prefill_workers > 0) != (s->decode_workers > 0))
    return c.Error(n, f, "a disaggregated system needs both prefill and decode (each with workers >= 1)");
  for (auto [key, out] : {std::pair{"max_num_batched_tokens", &s->max_num_batched_tokens}}) {
    if (n[key].IsDefined()) {
      int v = 0;
      FRONTIER_RETURN_IF_ERROR(c.Number(n, f, key, &v, 1, 1e9));
      *out = v;
    }
  }
  if (n["acceptance"].IsDefined()) {
    double a = 1;
    FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "acceptance", &a, 1, 17));
    s->acceptance = a;
  }
  if (n["acceptance_rate"].IsDefined()) {
    double a = 0;
    FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "acceptance_rate", &a, 0, 0.999));
    s->acceptance_rate = a;
  }
  return Status::Ok();
}

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

Status ParseSystem(const Checker& c, const YAML::Node& n, const std::string& f, SystemSpec* s) {
  FRONTIER_RETURN_IF_ERROR(c.Map(n, f));
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n, f, {"name", "hardware", "gpus", "sim", "live", "engine",
                                              "model", "base_url", "backend", "endpoint", "launch", "power",
                                              "power_url"}));
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
  std::string power = "auto";
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "power", &power));
  if (auto kind = power::ParsePowerKind(power)) {
    s->power = *kind;
  } else {
    return c.Error(n["power"], f + ".power",
                   "must be one of " + std::string(power::kPowerKinds) + ", got '" + power + "'");
  }
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "power_url", &s->power_url));
  if (s->power == power::PowerKind::kScrape && s->power_url.empty())
    return c.Error(n["power"], f + ".power", "scrape needs power_url: a DCGM exporter's /metrics");
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

Status ParseWorkload(const Checker& c, const YAML::Node& n, const std::string& f, uint64_t plan_seed,
                     WorkloadSpec* w) {
  using F = workload::SpecField;
  FRONTIER_RETURN_IF_ERROR(c.Map(n, f));
  std::set<std::string> allowed = {"name"};
  for (F field : workload::kAllSpecFields) allowed.insert(workload::SpecFieldName(field));
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n, f, allowed));
  w->line = n.Mark().line + 1;
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "name", &w->name, true));
  w->seed = plan_seed;  // unless the workload gives its own
  for (F field : workload::kAllSpecFields) {
    const char* key = workload::SpecFieldName(field);
    switch (field) {
      case F::kDataset: FRONTIER_RETURN_IF_ERROR(c.String(n, f, key, &w->dataset)); break;
      case F::kPath: FRONTIER_RETURN_IF_ERROR(c.String(n, f, key, &w->path)); break;
      case F::kTraceFormat: FRONTIER_RETURN_IF_ERROR(c.String(n, f, key, &w->trace_format)); break;
      case F::kInputLen: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->input_len)); break;
      case F::kOutputLen: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->output_len)); break;
      case F::kRangeRatio: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->range_ratio)); break;
      case F::kPrefixLen: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->prefix_len)); break;
      case F::kSharegptOutputLen:
        if (n[key].IsDefined() && !n[key].IsNull()) {
          int64_t v = 0;
          FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &v));
          w->sharegpt_output_len = v;
        }
        break;
      case F::kTraceBlockTokens: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->trace_block_tokens)); break;
      case F::kGspNumGroups: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->gsp_num_groups)); break;
      case F::kGspPromptsPerGroup: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->gsp_prompts_per_group)); break;
      case F::kGspSystemPromptLen: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->gsp_system_prompt_len)); break;
      case F::kGspQuestionLen: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->gsp_question_len)); break;
      case F::kGspOutputLen: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->gsp_output_len)); break;
      case F::kMtTurns: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->mt_turns)); break;
      case F::kMtSystemPromptLen: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->mt_system_prompt_len)); break;
      case F::kMtMessageLen: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->mt_message_len)); break;
      case F::kThinkTimeMs: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->think_time_ms)); break;
      case F::kMaxThinkTimeMs: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->max_think_time_ms)); break;
      case F::kCancelFraction: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->cancel_fraction)); break;
      case F::kCancelAfterTokens: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->cancel_after_tokens)); break;
      case F::kCancelAfterMs: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->cancel_after_ms)); break;
      case F::kIdealBlockTokens: FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &w->ideal_block_tokens)); break;
      case F::kSeed: FRONTIER_RETURN_IF_ERROR(c.Number(n, f, key, &w->seed, 0, 9.0e15)); break;
      case F::kPromptFormat: FRONTIER_RETURN_IF_ERROR(c.String(n, f, key, &w->prompt_format)); break;
    }
  }
  // The rules are the workload spec's, the same as the command line's flags.
  if (std::optional<workload::SpecProblem> bad = workload::CheckWorkloadSpec(*w)) {
    const char* key = workload::SpecFieldName(bad->field);
    return c.Error(n[key].IsDefined() ? n[key] : n, f + "." + key, bad->message);
  }
  // A field the dataset does not read is a mistake (a generator's setting
  // under another dataset), not something to ignore.
  const workload::DatasetKind kind = workload::ToDatasetOptions(*w).kind;
  for (F field : workload::kAllSpecFields) {
    const char* key = workload::SpecFieldName(field);
    if (n[key].IsDefined() && !workload::SpecFieldApplies(field, kind))
      return c.Error(n[key], f + "." + key,
                     std::string("is not read by dataset ") + workload::DatasetKindName(kind) +
                         " (docs/workloads.md lists each dataset's fields)");
  }
  return Status::Ok();
}

Status ParseLoad(const Checker& c, const YAML::Node& n, bool scenario, bool search, LoadSpec* l) {
  const std::string f = "load";
  FRONTIER_RETURN_IF_ERROR(c.Map(n, f));
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n, f, {"concurrency", "request_rate",
                                              "prompts_per_concurrency", "num_prompts",
                                              "burstiness", "warmup", "max_concurrency"}));
  const bool has_c = n["concurrency"].IsDefined(), has_r = n["request_rate"].IsDefined();
  if (search) {
    // The search picks each trial's load: the plan gives only what the trials share.
    for (const char* key : {"concurrency", "request_rate", "prompts_per_concurrency"})
      if (n[key].IsDefined())
        return c.Error(n[key], f + "." + key,
                       "is a load grid, and `search:` picks each trial's load itself: remove it (search.start, "
                       "min_value and max_value bound the loads tried)");
    if (n["num_prompts"].IsDefined()) {
      int64_t v = 0;
      FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "num_prompts", &v, 1, static_cast<double>(kMaxRunRequests)));
      l->num_prompts = v;
    }
    if (n["max_concurrency"].IsDefined()) {
      int64_t v = 0;
      FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "max_concurrency", &v, 1, 1e6));
      l->max_concurrency = v;
    }
    FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "burstiness", &l->burstiness, 1e-3, 1e3));
    FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "warmup", &l->warmup, 0, 1e6));
    if (l->num_prompts.value_or(kDefaultSearchPrompts) + l->warmup > kMaxRunRequests && !scenario)
      return c.Error(n, f, "a trial sends num_prompts + warmup requests; at most " + std::to_string(kMaxRunRequests));
    return Status::Ok();
  }
  if (has_c == has_r) {
    return c.Error(n, f, "give exactly one of `concurrency: [...]` and `request_rate: [...]`");
  }
  l->kind = has_c ? "concurrency" : "request_rate";
  const YAML::Node list = n[l->kind];
  const std::string lf = f + "." + l->kind;
  if (!list.IsSequence() || list.size() == 0) return c.Error(list, lf, "must be a non-empty list");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string ef = lf + "[" + std::to_string(i) + "]";
    if (has_c) {
      int64_t v = 0;
      FRONTIER_RETURN_IF_ERROR(c.Value(list[i], ef, &v, 1, 1e6));
      l->values.push_back(static_cast<double>(v));
    } else {
      double v = 0;
      FRONTIER_RETURN_IF_ERROR(c.Value(list[i], ef, &v, 1e-6, 1e9));
      l->values.push_back(v);
    }
    for (size_t j = 0; j + 1 < l->values.size(); ++j)
      if (l->values[j] == l->values.back()) return c.Error(list[i], ef, "repeats an earlier value");
  }
  FRONTIER_RETURN_IF_ERROR(
      c.Number(n, f, "prompts_per_concurrency", &l->prompts_per_concurrency, 1, 1e7));
  if (n["num_prompts"].IsDefined()) {
    int64_t v = 0;
    FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "num_prompts", &v, 1, 1e9));
    l->num_prompts = v;
  }
  if (n["max_concurrency"].IsDefined()) {
    int64_t v = 0;
    FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "max_concurrency", &v, 1, 1e6));
    l->max_concurrency = v;
  }
  if (has_r && !l->num_prompts && !scenario) {
    return c.Error(n, f + ".num_prompts", "is required with request_rate");
  }
  FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "burstiness", &l->burstiness, 1e-3, 1e3));
  FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "warmup", &l->warmup, 0, 1e6));
  // The largest point's requests (warm-up included) must fit the bound.
  const double biggest = *std::max_element(l->values.begin(), l->values.end());
  const double requests =
      (l->num_prompts ? static_cast<double>(*l->num_prompts)
                      : static_cast<double>(l->prompts_per_concurrency) * biggest) +
      static_cast<double>(l->warmup);
  if (requests > static_cast<double>(kMaxRunRequests) && !scenario) {
    return c.Error(n, f, "the largest point sends " + FormatNumber(requests) + " requests (num_prompts or " +
                             "prompts_per_concurrency x concurrency, plus warmup); at most " +
                             std::to_string(kMaxRunRequests) + " per point");
  }
  return Status::Ok();
}

Status ParseScenarioBlock(const Checker& c, const YAML::Node& n, Plan* plan) {
  const std::string f = "scenario";
  loadgen::ScenarioRequest q;
  plan->scenario_line = n.Mark().line + 1;
  auto name = [&](const YAML::Node& v, const std::string& field) -> Status {
    Result<loadgen::Scenario> s = v.IsScalar() ? loadgen::ParseScenario(v.Scalar()) : Result<loadgen::Scenario>(InvalidArgument(""));
    if (!s.ok())
      return c.Error(v, field, "must be offline, server or interactive, got '" + Shorten(v.IsScalar() ? v.Scalar() : "a list or map") + "'");
    q.scenario = *s;
    return Status::Ok();
  };
  if (n.IsScalar()) {
    FRONTIER_RETURN_IF_ERROR(name(n, f));
  } else {
    FRONTIER_RETURN_IF_ERROR(c.Map(n, f));
    FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n, f, {"name", "min_duration_s", "min_query_count", "mlperf_benchmark",
                                                "slo", "min_interactivity"}));
    if (n["name"].IsDefined() && !n["name"].IsNull()) FRONTIER_RETURN_IF_ERROR(name(n["name"], f + ".name"));
    if (n["min_duration_s"].IsDefined()) {
      double v = 0;
      FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "min_duration_s", &v, 1e-3, 1e9));
      q.min_duration_s = v;
    }
    if (n["min_query_count"].IsDefined()) {
      int64_t v = 0;
      FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "min_query_count", &v, 1, static_cast<double>(kMaxRunRequests)));
      q.min_query_count = v;
    }
    FRONTIER_RETURN_IF_ERROR(c.String(n, f, "mlperf_benchmark", &q.benchmark));
    if (n["min_interactivity"].IsDefined()) {
      double v = 0;
      FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "min_interactivity", &v, 1e-6, 1e9));
      q.min_interactivity = v;
    }
    const YAML::Node slo = n["slo"];
    if (slo.IsDefined() && !slo.IsNull()) {
      std::vector<std::string> items;
      if (!slo.IsSequence()) return c.Error(slo, f + ".slo", "must be a list such as [ttft_p99:450, tpot_p99:40]");
      for (size_t i = 0; i < slo.size(); ++i) {
        if (!slo[i].IsScalar())
          return c.Error(slo[i], f + ".slo[" + std::to_string(i) + "]", "must be metric_pP:MS, such as ttft_p99:450");
        items.push_back(slo[i].Scalar());
      }
      Result<std::vector<loadgen::LatencyConstraint>> parsed = loadgen::ParseSlo(items, "slo");
      if (!parsed.ok()) return c.Error(slo, f + ".slo", parsed.status().message());
      q.slo = std::move(*parsed);
    }
  }
  plan->scenario = std::move(q);
  return Status::Ok();
}

Status ParseSearchBlock(const Checker& c, const YAML::Node& n, Plan* plan) {
  const std::string f = "search";
  FRONTIER_RETURN_IF_ERROR(c.Map(n, f));
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n, f, {"over", "start", "growth", "tolerance", "max_trials", "min_value",
                                              "max_value", "saturation_stop"}));
  SearchSpec s;
  s.line = n.Mark().line + 1;
  loadgen::SearchRequest& r = s.request;
  // Types here; ranges and consistency are loadgen::ApplySearchRequest's (SearchMisfit).
  FRONTIER_RETURN_IF_ERROR(c.String(n, f, "over", &r.over));
  FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, "start", &r.start));
  FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, "growth", &r.growth));
  FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, "tolerance", &r.tolerance));
  FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, "max_trials", &r.max_trials));
  for (auto [key, out] : {std::pair{"min_value", &r.min_value}, {"max_value", &r.max_value}}) {
    if (!n[key].IsDefined() || n[key].IsNull()) continue;
    double v = 0;
    FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, key, &v));
    *out = v;
  }
  FRONTIER_RETURN_IF_ERROR(c.Bool(n, f, "saturation_stop", &r.saturation_stop));
  plan->search = std::move(s);
  return Status::Ok();
}

// A problem of a plan, by the field it is in.
struct FieldProblem {
  std::string field;    // "search.start", "scenario", ...
  std::string message;  // what is wrong and what is allowed
};

// Why the plan's `search:` cannot run (nothing when it can): the same checks
// as `frontier search`'s flags (loadgen::ApplySearchRequest), with the
// scenario's goal and the plan's load, said in the plan's terms. Sets
// plan->load.kind to the search's axis.
std::optional<FieldProblem> SearchMisfit(Plan* plan) {
  if (!plan->search) return std::nullopt;
  if (!plan->scenario)
    return FieldProblem{"search", "needs `scenario:` to say what a trial must meet: a scenario name (server or "
                                  "interactive: the highest valid QPS) or `slo` / `min_interactivity` (the best "
                                  "throughput per GPU under them)"};
  if (plan->repetitions != 1)
    return FieldProblem{"repetitions", "must be 1 with `search:` (a search runs its trials once; repeat the "
                                       "sweep under another seed to sample its spread)"};
  loadgen::SearchOptions o;
  o.rules.scenario = plan->scenario->scenario;
  o.rules.constraints = plan->scenario->slo;
  o.rules.min_interactivity = plan->scenario->min_interactivity;
  if (o.rules.constraints.empty() && !plan->scenario->benchmark.empty()) {
    // The benchmark's constraints are looked up when the sweep runs; any
    // constraint stands for them in this check of the search's settings.
    o.rules.constraints.push_back({loadgen::LatencyMetric::kTtft, 99, 1});
  }
  o.base = SearchBaseLoad(*plan, plan->workloads.front());
  if (Status st = loadgen::ApplySearchRequest(plan->search->request, &o); !st.ok()) {
    // The checks speak the flags' names: "--start 0.5 must lie in ...".
    std::string m = st.message();
    std::string field = "search";
    if (m.rfind("--", 0) == 0) {
      const size_t end = m.find(' ');
      if (std::optional<std::string> f = workload::PlanFieldOfFlag(m.substr(0, end))) {
        field = *f;
        m = end == std::string::npos ? "" : m.substr(end + 1);
      }
    }
    if (field == "search.saturation_stop") field = "search";
    return FieldProblem{field, workload::InPlanTerms(m)};
  }
  plan->load.kind = loadgen::SearchAxisName(o.axis);
  return std::nullopt;
}

// Why the plan's load and workloads cannot run under its scenario ("" when
// they can): a named scenario sets the arrivals and the run length itself.
std::string ScenarioMisfit(const Plan& plan) {
  if (!plan.scenario) return "";
  for (size_t i = 0; i < plan.workloads.size(); ++i) {
    const auto kind = workload::ToDatasetOptions(plan.workloads[i]).kind;
    if (workload::IsSessionKind(kind))
      return std::string("scenarios take single-turn workloads; workloads[") + std::to_string(i) + "] (" +
             plan.workloads[i].name + ") is " + workload::DatasetKindName(kind);
  }
  if (!plan.scenario->scenario) return "";
  if (plan.load.kind != "request_rate")
    return "a scenario needs `load: {request_rate: [...]}`, each value a point's target QPS (the scenario sets "
           "the arrivals; a concurrency cap is not one of its loads)";
  if (plan.load.num_prompts)
    return "a scenario sets the run length (min_duration_s, min_query_count): remove load.num_prompts";
  if (plan.load.max_concurrency) return "a scenario sets the arrivals: remove load.max_concurrency";
  if (plan.load.burstiness != 1.0) return "a scenario's arrivals are Poisson: remove load.burstiness";
  return "";
}

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

bool SystemSpec::NeedsTextPrompts() const {
  Result<client::Dialect> d = client::DialectForEndpoint(endpoint);
  return d.ok() && client::NeedsTextPrompts(*d);
}

std::map<std::string, std::string> SystemSpec::Config() const {
  std::map<std::string, std::string> c = {{"hardware", hardware}, {"gpus", std::to_string(gpus)}};
  if (sim) {
    c["kind"] = live ? "simulated-live" : "simulated";
    c["model"] = sim->model;
    c["tp"] = std::to_string(sim->tp);
    c["ep"] = std::to_string(sim->ep);
    if (sim->dp) c["dp"] = std::to_string(sim->dp);
    if (sim->precision) c["precision"] = *sim->precision;
    if (sim->kv_precision) c["kv_precision"] = *sim->kv_precision;
    if (sim->stack) c["stack"] = *sim->stack;
    if (sim->spec_tokens) c["spec_tokens"] = std::to_string(sim->spec_tokens);
    if (sim->attention_dp) c["attention_dp"] = "true";
    if (!sim->prefix_caching) c["prefix_caching"] = "off";
    if (sim->max_num_seqs_auto) c["max_num_seqs"] = "auto";
    auto pool = [&](const char* pool_name, int workers, int tp, int dp, int ep) {
      if (workers == 0) return;
      c[pool_name] = std::to_string(workers) + "x(tp" + std::to_string(tp) + ",dp" + std::to_string(dp) + ",ep" +
                std::to_string(ep) + ")";
    };
    pool("prefill", sim->prefill_workers, sim->prefill_tp, sim->prefill_dp, sim->prefill_ep);
    pool("decode", sim->decode_workers, sim->decode_tp, sim->decode_dp, sim->decode_ep);
  } else {
    c["kind"] = launch ? "launched" : "server";
    c["model"] = model;
    c["base_url"] = base_url;
    c["endpoint"] = endpoint;
    if (!backend.empty()) c["backend"] = backend;
    if (launch) c["launch"] = launch->command;
    if (power != power::PowerKind::kAuto) c["power"] = power::PowerKindName(power);
  }
  if (!engine_name.empty()) c["engine"] = engine_name;
  if (!engine_version.empty()) c["engine_version"] = engine_version;
  return c;
}

namespace {

// A key given twice in one map: yaml-cpp keeps both and `node[key]` finds the
// first, so the second would be ignored without a word. Every map of the
// document is walked without recursion. Aliases can make a document a cycle
// (`&a [*a]`) or a tree far larger than its text, so the walk stops at
// kMaxDepth levels and kMaxContainers maps and lists, each an error naming
// the file (no plan comes near either).
Status CheckDuplicateKeys(const YAML::Node& root, const std::string& file) {
  constexpr size_t kMaxDepth = 64;
  constexpr size_t kMaxContainers = 1'000'000;
  constexpr size_t kMaxPath = 200;  // a path longer than this is shown cut
  struct Item {
    YAML::Node node;
    std::string path;
    size_t depth;
  };
  std::vector<Item> stack;
  stack.push_back({root, "", 0});
  size_t visits = 0;
  auto child = [](const std::string& path, const std::string& step) {
    return path.size() > kMaxPath ? path : path + step;
  };
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    if (++visits > kMaxContainers)
      return InvalidArgument(file + ": more than " + std::to_string(kMaxContainers) +
                             " YAML maps and lists (aliases that repeat themselves?)");
    if (item.depth > kMaxDepth)
      return InvalidArgument(file + ":" + std::to_string(item.node.Mark().line + 1) + ": " +
                             TerminalSafe(Shorten(item.path)) + ": nested deeper than " + std::to_string(kMaxDepth) +
                             " levels (an alias that contains itself?)");
    const YAML::Node& n = item.node;
    if (n.IsMap()) {
      std::map<std::string, int> seen;  // key -> its line
      for (auto it = n.begin(); it != n.end(); ++it) {
        const int line = it->first.Mark().line + 1;
        const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
        const std::string at = item.path.empty() ? key : child(item.path, "." + key);
        if (it->first.IsScalar()) {
          auto [prev, fresh] = seen.emplace(key, line);
          if (!fresh) {
            return InvalidArgument(file + ":" + std::to_string(line) + ": " + TerminalSafe(Shorten(at)) +
                                   ": the key is given twice (first at line " + std::to_string(prev->second) +
                                   "); remove one");
          }
        }
        if (it->second.IsMap() || it->second.IsSequence()) stack.push_back({it->second, at, item.depth + 1});
      }
    } else if (n.IsSequence()) {
      for (size_t i = 0; i < n.size(); ++i) {
        const YAML::Node c = n[i];
        if (c.IsMap() || c.IsSequence())
          stack.push_back({c, child(item.path, "[" + std::to_string(i) + "]"), item.depth + 1});
      }
    }
  }
  return Status::Ok();
}

Result<Plan> ParsePlanText(const std::string& text, const std::string& file) {
  Checker c(file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(file + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  FRONTIER_RETURN_IF_ERROR(CheckDuplicateKeys(root, file));
  if (!root.IsMap()) return InvalidArgument(file + ":1: the plan must be a map with name, systems, workloads and load");
  Plan plan;
  plan.file = file;
  plan.dir = std::filesystem::path(file).parent_path().string();
  if (plan.dir.empty()) plan.dir = ".";
  plan.text = text;
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(Fnv1a(text)));
  plan.hash = hash;
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(root, "", {"name", "systems", "workloads", "load", "repetitions", "slo",
                                                  "seed", "executor", "slurm", "scenario", "search"}));
  FRONTIER_RETURN_IF_ERROR(c.String(root, "", "name", &plan.name, true));
  FRONTIER_RETURN_IF_ERROR(c.Number(root, "", "repetitions", &plan.repetitions, 1, 1000));
  FRONTIER_RETURN_IF_ERROR(c.Number(root, "", "seed", &plan.seed, 0, 9.0e15));

  const YAML::Node systems = root["systems"];
  if (!systems.IsDefined()) return c.Error(root, "systems", "is required (a list of systems)");
  if (!systems.IsSequence() || systems.size() == 0) {
    return c.Error(systems, "systems", "must be a non-empty list");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < systems.size(); ++i) {
    SystemSpec s;
    const std::string f = "systems[" + std::to_string(i) + "]";
    FRONTIER_RETURN_IF_ERROR(ParseSystem(c, systems[i], f, &s));
    if (!names.insert(s.name).second) {
      return c.Error(systems[i]["name"], f + ".name", "'" + s.name + "' is used twice");
    }
    plan.systems.push_back(std::move(s));
  }
  const YAML::Node workloads = root["workloads"];
  if (!workloads.IsDefined()) return c.Error(root, "workloads", "is required (a list of workloads)");
  if (!workloads.IsSequence() || workloads.size() == 0) {
    return c.Error(workloads, "workloads", "must be a non-empty list");
  }
  names.clear();
  for (size_t i = 0; i < workloads.size(); ++i) {
    WorkloadSpec w;
    const std::string f = "workloads[" + std::to_string(i) + "]";
    FRONTIER_RETURN_IF_ERROR(ParseWorkload(c, workloads[i], f, plan.seed, &w));
    if (!names.insert(w.name).second) {
      return c.Error(workloads[i]["name"], f + ".name", "'" + w.name + "' is used twice");
    }
    plan.workloads.push_back(std::move(w));
  }
  if (root["scenario"].IsDefined() && !root["scenario"].IsNull())
    FRONTIER_RETURN_IF_ERROR(ParseScenarioBlock(c, root["scenario"], &plan));
  if (root["search"].IsDefined() && !root["search"].IsNull())
    FRONTIER_RETURN_IF_ERROR(ParseSearchBlock(c, root["search"], &plan));
  const bool named_scenario = plan.scenario && plan.scenario->scenario;
  if (plan.search) {
    if (root["load"].IsDefined() && !root["load"].IsNull())
      FRONTIER_RETURN_IF_ERROR(ParseLoad(c, root["load"], named_scenario, /*search=*/true, &plan.load));
    if (std::optional<FieldProblem> bad = SearchMisfit(&plan)) {
      // The node the field names, else the block the problem is about.
      const std::string& field = bad->field;
      YAML::Node at = root["search"];
      if (field == "scenario" || field.rfind("scenario.", 0) == 0) at = root["scenario"];
      if (field == "repetitions") at = root["repetitions"];
      for (const char* block : {"search", "load"}) {
        const std::string prefix = std::string(block) + ".";
        if (field.rfind(prefix, 0) == 0 && root[block].IsMap() && root[block][field.substr(prefix.size())].IsDefined())
          at = root[block][field.substr(prefix.size())];
      }
      return c.Error(at, field, bad->message);
    }
  } else {
    if (!root["load"].IsDefined()) return c.Error(root, "load", "is required (or `search:`, docs/sweep.md)");
    FRONTIER_RETURN_IF_ERROR(ParseLoad(c, root["load"], named_scenario, /*search=*/false, &plan.load));
  }
  if (const std::string misfit = ScenarioMisfit(plan); !misfit.empty())
    return c.Error(root["scenario"], "scenario", misfit);
  // A server that takes text only gets text prompts; token-ids said outright is an error there.
  for (const SystemSpec& sys : plan.systems) {
    if (sys.simulated() || !sys.NeedsTextPrompts()) continue;
    for (size_t i = 0; i < plan.workloads.size(); ++i)
      if (plan.workloads[i].prompt_format == "token-ids")
        return c.Error(workloads[i]["prompt_format"], "workloads[" + std::to_string(i) + "].prompt_format",
                       "token-ids cannot go to system " + sys.name + ", whose " +
                           (sys.backend.empty() ? "endpoint " + sys.endpoint : "backend " + sys.backend) +
                           " takes text prompts; use text (the default there)");
  }
  // A multi-turn workload goes to a server or a live system as text; token ids are an error there.
  for (size_t s = 0; s < plan.systems.size(); ++s) {
    if (plan.systems[s].simulated() && !plan.systems[s].live) continue;
    for (size_t i = 0; i < plan.workloads.size(); ++i)
      if (std::optional<workload::SpecProblem> bad = workload::CheckPromptFormatOverHttp(plan.workloads[i]))
        return c.Error(workloads[i]["prompt_format"], "workloads[" + std::to_string(i) + "].prompt_format",
                       bad->message + " (system " + plan.systems[s].name + " is measured over HTTP)");
    break;
  }
  // Sessions run without warm-up (loadgen/session_runner.h).
  for (size_t i = 0; i < plan.workloads.size() && plan.load.warmup > 0; ++i) {
    const auto kind = workload::ToDatasetOptions(plan.workloads[i]).kind;
    if (workload::IsSessionKind(kind))
      return c.Error(root["load"]["warmup"], "load.warmup",
                     std::string("must be 0 with a session workload (workloads[") + std::to_string(i) + "], " +
                         plan.workloads[i].name + ", is " + workload::DatasetKindName(kind) +
                         "): sessions run without warm-up");
  }
  const double points = static_cast<double>(plan.systems.size()) * static_cast<double>(plan.workloads.size()) *
                        (plan.search ? static_cast<double>(plan.search->request.max_trials)
                                     : static_cast<double>(plan.load.values.size()) * plan.repetitions);
  if (points > static_cast<double>(kMaxMatrixPoints)) {
    return c.Error(root, "load", "the plan has " + FormatNumber(points) +
                                     " points (systems x workloads x load values x repetitions, or x search.max_trials); at most " +
                                     std::to_string(kMaxMatrixPoints));
  }
  // Prompts of random workloads are held in memory as token ids.
  const double biggest =
      plan.search ? 0 : *std::max_element(plan.load.values.begin(), plan.load.values.end());
  const double requests =
      (plan.search ? static_cast<double>(plan.load.num_prompts.value_or(kDefaultSearchPrompts))
       : plan.load.num_prompts ? static_cast<double>(*plan.load.num_prompts)
                               : static_cast<double>(plan.load.prompts_per_concurrency) * biggest) +
      static_cast<double>(plan.load.warmup);
  for (size_t i = 0; i < plan.workloads.size(); ++i) {
    const WorkloadSpec& w = plan.workloads[i];
    if (w.dataset != "random" || (plan.scenario && plan.scenario->scenario)) continue;  // a scenario's pool is bounded
    const double tokens = requests * (std::ceil(w.input_len * (1 + w.range_ratio)) + w.prefix_len);
    if (tokens > static_cast<double>(kMaxRunPromptTokens)) {
      return c.Error(workloads[i], "workloads[" + std::to_string(i) + "]",
                     "the largest point's prompts hold " + FormatNumber(tokens) + " tokens (requests x " +
                         "(input_len x (1 + range_ratio) + prefix_len)); at most " +
                         std::to_string(kMaxRunPromptTokens) + " per point");
    }
  }
  if (root["slo"].IsDefined()) {
    const YAML::Node slo = root["slo"];
    FRONTIER_RETURN_IF_ERROR(c.Map(slo, "slo"));
    FRONTIER_RETURN_IF_ERROR(c.KnownKeys(slo, "slo", {"ttft_ms", "tpot_ms", "e2el_ms"}));
    for (auto [key, out] : {std::pair{"ttft_ms", &plan.slo.ttft_ms}, {"tpot_ms", &plan.slo.tpot_ms},
                            {"e2el_ms", &plan.slo.e2el_ms}}) {
      if (slo[key].IsDefined()) {
        double v = 0;
        FRONTIER_RETURN_IF_ERROR(c.Number(slo, "slo", key, &v, 1e-6, 1e9));
        *out = v;
      }
    }
  }
  FRONTIER_RETURN_IF_ERROR(c.String(root, "", "executor", &plan.executor));
  if (plan.executor != "local" && plan.executor != "slurm") {
    return c.Error(root["executor"], "executor", "must be local or slurm, got '" + Shorten(plan.executor) + "'");
  }
  if (plan.search && plan.executor == "slurm")
    return c.Error(root["executor"], "executor", "slurm runs load grids; a plan with `search:` runs with local");
  if (root["slurm"].IsDefined()) {
    const YAML::Node sl = root["slurm"];
    FRONTIER_RETURN_IF_ERROR(c.Map(sl, "slurm"));
    FRONTIER_RETURN_IF_ERROR(c.KnownKeys(sl, "slurm", {"partition", "gres", "time", "sbatch_args",
                                                            "tool_timeout_s", "poll_s"}));
    plan.slurm.line = sl.Mark().line + 1;
    FRONTIER_RETURN_IF_ERROR(c.Number(sl, "slurm", "tool_timeout_s", &plan.slurm.tool_timeout_s, 0.1, 3600));
    FRONTIER_RETURN_IF_ERROR(c.Number(sl, "slurm", "poll_s", &plan.slurm.poll_s, 0.1, 3600));
    FRONTIER_RETURN_IF_ERROR(c.String(sl, "slurm", "partition", &plan.slurm.partition));
    FRONTIER_RETURN_IF_ERROR(c.String(sl, "slurm", "gres", &plan.slurm.gres));
    FRONTIER_RETURN_IF_ERROR(c.String(sl, "slurm", "time", &plan.slurm.time, true));
    // Slurm's time formats: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
    if (plan.slurm.time.find_first_not_of("0123456789:-") != std::string::npos) {
      return c.Error(sl["time"], "slurm.time",
                     "must be a Slurm time limit such as 90, 01:30:00 or 1-00:00:00, got '" +
                         Shorten(plan.slurm.time) + "'");
    }
    const YAML::Node args = sl["sbatch_args"];
    if (args.IsDefined() && !args.IsNull()) {
      if (!args.IsSequence()) return c.Error(args, "slurm.sbatch_args", "must be a list of strings");
      for (size_t i = 0; i < args.size(); ++i) {
        if (!args[i].IsScalar() || args[i].Scalar().empty())
          return c.Error(args[i], "slurm.sbatch_args[" + std::to_string(i) + "]", "must be a non-empty string");
        plan.slurm.sbatch_args.push_back(args[i].Scalar());
      }
    }
  }
  return plan;
}

}  // namespace

Result<Plan> ParsePlan(const std::string& text, const std::string& file) {
  // Every access above is checked; a yaml-cpp exception (a node of an
  // unexpected kind deep inside) still ends as an error naming its line.
  return CatchExceptions(file, [&]() -> Result<Plan> {
    try {
      return ParsePlanText(text, file);
    } catch (const YAML::Exception& e) {
      return InvalidArgument(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
  });
}

Result<Plan> LoadPlan(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return NotFound("plan file " + path + " does not exist (see data/plans/ for examples)");
  }
  FRONTIER_ASSIGN_OR_RETURN(std::string text, ReadFile(path, kMaxPlanBytes, "plan files"));
  return ParsePlan(text, path);
}

Result<Plan> WithScenario(Plan plan, const std::string& name) {
  Result<loadgen::Scenario> s = loadgen::ParseScenario(name);
  if (!s.ok()) return InvalidArgument("--scenario must be offline, server or interactive, got '" + Shorten(name) + "'");
  if (!plan.scenario) plan.scenario = loadgen::ScenarioRequest{};
  plan.scenario->scenario = *s;
  // Points judged under a scenario are another sweep than the plan's own:
  // `--resume` must not mix the two in one run.
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(Fnv1a(plan.text + "\n# --scenario " + name + "\n")));
  plan.hash = hash;
  if (std::optional<FieldProblem> bad = SearchMisfit(&plan))
    return InvalidArgument("--scenario " + name + " cannot run plan " + plan.file + ": " + bad->field + ": " +
                           bad->message);
  if (const std::string misfit = ScenarioMisfit(plan); !misfit.empty())
    return InvalidArgument("--scenario " + name + " cannot run plan " + plan.file + ": " + misfit);
  return plan;
}

workload::LoadOptions SearchBaseLoad(const Plan& plan, const WorkloadSpec& w) {
  workload::LoadOptions l;
  l.num_prompts = plan.load.num_prompts.value_or(kDefaultSearchPrompts);
  l.warmup = plan.load.warmup;
  l.burstiness = plan.load.burstiness;
  l.max_concurrency = plan.load.max_concurrency;
  l.seed = w.seed;
  return l;
}

std::vector<PointSpec> ExpandMatrix(const Plan& plan) {
  std::vector<PointSpec> out;
  if (plan.search) return out;
  for (size_t s = 0; s < plan.systems.size(); ++s) {
    for (size_t w = 0; w < plan.workloads.size(); ++w) {
      for (double v : plan.load.values) {
        for (int rep = 0; rep < plan.repetitions; ++rep) {
          PointSpec p;
          p.system = s;
          p.workload = w;
          p.load_value = v;
          p.repetition = rep;
          p.num_prompts = plan.load.num_prompts
                              ? *plan.load.num_prompts
                              : plan.load.prompts_per_concurrency * static_cast<int64_t>(v);
          // A closed loop of c streams needs several rounds of c requests to
          // reach its steady state: at least 4 x c (else points at high
          // concurrency measure the same few requests).
          if (plan.load.kind == "concurrency")
            p.num_prompts = std::max<int64_t>(p.num_prompts, 4 * static_cast<int64_t>(std::ceil(v)));
          // Repetitions draw different prompts (so they sample the workload's
          // spread); every load point of a repetition uses the same stream.
          p.seed = plan.workloads[w].seed + static_cast<uint64_t>(rep);
          p.key = store::PointKey(plan.workloads[w].name, plan.load.kind, v, rep);
          out.push_back(std::move(p));
        }
      }
    }
  }
  return out;
}

}  // namespace frontier::sweep
