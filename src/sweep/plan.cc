#include "sweep/plan.h"

#include <yaml-cpp/yaml.h>

#include "sweep/plan_yaml.h"
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
#include "sim/engine/spec_table.h"
#include "store/records.h"
#include "workload/generators.h"
#include "workload/load_request.h"
#include "workload/option_names.h"

namespace frontier::sweep {

using internal::Checker;
using internal::CheckDuplicateKeys;
using internal::ParseLoad;
using internal::ParseScenarioBlock;
using internal::ParseSearchBlock;
using internal::ParseSystem;
using internal::ParseWorkload;
using internal::Shorten;

store::LoadKind LoadKindOf(loadgen::SearchAxis axis) {
  return axis == loadgen::SearchAxis::kRate ? store::LoadKind::kRequestRate : store::LoadKind::kConcurrency;
}

namespace {

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
  plan->load.kind = LoadKindOf(o.axis);
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
  if (plan.load.kind != store::LoadKind::kRequestRate)
    return "a scenario needs `load: {request_rate: [...]}`, each value a point's target QPS (the scenario sets "
           "the arrivals; a concurrency cap is not one of its loads)";
  if (plan.load.duration_s)
    return "a scenario sets the run length (min_duration_s, min_query_count): remove load.duration_s";
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

std::map<std::string, std::string> TargetConfig(const loadgen::TargetRequest& t) {
  std::map<std::string, std::string> c;
  const loadgen::TargetRequest defaults;
  for (const loadgen::TargetField& field : loadgen::TargetFieldTable()) {
    if (*field.plan_key == '\0') continue;
    auto text = [&](const loadgen::TargetRequest& r) {
      return FlagFieldText(field.flag, r, [](const std::string& x) { return x; }, [] { return std::optional<std::string>(); });
    };
    if (std::optional<std::string> v = text(t); v && v != text(defaults)) c[field.plan_key] = *v;
  }
  return c;
}

std::map<std::string, std::string> SystemSpec::Config() const {
  std::map<std::string, std::string> c = {{"gpus", std::to_string(gpus)}};
  if (!hardware.empty()) c["hardware"] = hardware;  // a server need not name its GPUs
  if (sim) {
    c[store::kSystemKindKey] =
        store::SystemKindName(live ? store::SystemKind::kSimulatedLive : store::SystemKind::kSimulated);
    // Every field of SimSpec's table that the system sets (sim/engine/spec_table.h).
    c.merge(sim::SimSpecConfig(*sim));
  } else {
    c[store::kSystemKindKey] =
        store::SystemKindName(launch ? store::SystemKind::kLaunched : store::SystemKind::kServer);
    c["model"] = model;
    c["base_url"] = base_url;
    c["endpoint"] = endpoint;
    if (!backend.empty()) c["backend"] = backend;
    if (launch) c["launch"] = launch->command;
  }
  // The client settings and the measurement a plan gave, for a server and a live system.
  if (!sim || live) {
    c.merge(TargetConfig(target));
    c.merge(MeasureConfig(measure));
  }
  if (!engine_name.empty()) c["engine"] = engine_name;
  if (!engine_version.empty()) c["engine_version"] = engine_version;
  return c;
}

namespace {

// The helpers below take the root as a non-const node: its operator[] then
// reads a missing key as an undefined node rather than an invalid one that
// throws when asked its type.

// The document, checked for keys given twice, as a map.
Result<YAML::Node> LoadPlanYaml(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(file + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  FRONTIER_RETURN_IF_ERROR(CheckDuplicateKeys(root, file));
  if (!root.IsMap()) return InvalidArgument(file + ":1: the plan must be a map with name, systems, workloads and load");
  return root;
}

// Where the plan comes from, and its top-level scalars.
Status ParseTopLevel(const Checker& c, YAML::Node& root, const std::string& text, const std::string& file,
                     Plan* plan) {
  plan->file = file;
  plan->dir = std::filesystem::path(file).parent_path().string();
  if (plan->dir.empty()) plan->dir = ".";
  plan->text = text;
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(Fnv1a(text)));
  plan->hash = hash;
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(root, "", {"name", "systems", "workloads", "load", "repetitions", "slo",
                                                  "seed", "executor", "slurm", "scenario", "search", "percentiles",
                                                  "timeslice_s"}));
  FRONTIER_RETURN_IF_ERROR(c.String(root, "", "name", &plan->name, true));
  FRONTIER_RETURN_IF_ERROR(c.Number(root, "", "repetitions", &plan->repetitions, 1, 1000));
  FRONTIER_RETURN_IF_ERROR(c.Number(root, "", "seed", &plan->seed, 0, 9.0e15));
  return Status::Ok();
}

// The non-empty list root[key] ("systems", "workloads"), each element read by
// `parse` (given its field, "key[i]") onto *out, with no name used twice.
template <typename T, typename Parse>
Status ParseNamedList(const Checker& c, YAML::Node& root, const std::string& key, Parse parse, std::vector<T>* out) {
  const YAML::Node list = root[key];
  if (!list.IsDefined()) return c.Error(root, key, "is required (a list of " + key + ")");
  if (!list.IsSequence() || list.size() == 0) {
    return c.Error(list, key, "must be a non-empty list");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    T item;
    const std::string f = key + "[" + std::to_string(i) + "]";
    FRONTIER_RETURN_IF_ERROR(parse(list[i], f, &item));
    if (!names.insert(item.name).second) {
      return c.Error(list[i]["name"], f + ".name", "'" + item.name + "' is used twice");
    }
    // A workload's name opens each of its points' keys, whose parts '|' separates (store::PointKey).
    if (key == "workloads" && item.name.find('|') != std::string::npos)
      return c.Error(list[i]["name"], f + ".name",
                     "must not contain '|' (it separates the parts of a point's key, NAME|concurrency=8|rep=0), "
                     "got '" + TerminalSafe(item.name) + "'");
    out->push_back(std::move(item));
  }
  return Status::Ok();
}

Status ParseSystems(const Checker& c, YAML::Node& root, Plan* plan) {
  return ParseNamedList(
      c, root, "systems",
      [&](const YAML::Node& n, const std::string& f, SystemSpec* s) { return ParseSystem(c, n, f, s); },
      &plan->systems);
}

Status ParseWorkloads(const Checker& c, YAML::Node& root, Plan* plan) {
  return ParseNamedList(
      c, root, "workloads",
      [&](const YAML::Node& n, const std::string& f, WorkloadSpec* w) { return ParseWorkload(c, n, f, plan->seed, w); },
      &plan->workloads);
}

// The scenario and search blocks and the load, and whether they fit together.
Status ParseLoadAndSearch(const Checker& c, YAML::Node& root, Plan* plan) {
  if (root["scenario"].IsDefined() && !root["scenario"].IsNull())
    FRONTIER_RETURN_IF_ERROR(ParseScenarioBlock(c, root["scenario"], plan));
  if (root["search"].IsDefined() && !root["search"].IsNull())
    FRONTIER_RETURN_IF_ERROR(ParseSearchBlock(c, root["search"], plan));
  const bool named_scenario = plan->scenario && plan->scenario->scenario;
  if (plan->search) {
    if (root["load"].IsDefined() && !root["load"].IsNull())
      FRONTIER_RETURN_IF_ERROR(ParseLoad(c, root["load"], named_scenario, /*search=*/true, &plan->load));
    if (std::optional<FieldProblem> bad = SearchMisfit(plan)) {
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
    FRONTIER_RETURN_IF_ERROR(ParseLoad(c, root["load"], named_scenario, /*search=*/false, &plan->load));
  }
  if (const std::string misfit = ScenarioMisfit(*plan); !misfit.empty())
    return c.Error(root["scenario"], "scenario", misfit);
  return Status::Ok();
}

// Prompts each system can take, and no warm-up for sessions.
Status CheckPromptFormats(const Checker& c, YAML::Node& root, const Plan& plan) {
  const YAML::Node workloads = root["workloads"];
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
  return Status::Ok();
}

// The matrix's points, and the prompt tokens of its largest point, within their bounds.
Status CheckPlanSize(const Checker& c, YAML::Node& root, const Plan& plan) {
  const YAML::Node workloads = root["workloads"];
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
  const double requests = (plan.search ? static_cast<double>(plan.load.num_prompts.value_or(kDefaultSearchPrompts))
                                        : PointPrompts(plan.load, biggest)) +
                          static_cast<double>(plan.load.warmup);
  for (size_t i = 0; i < plan.workloads.size(); ++i) {
    const WorkloadSpec& w = plan.workloads[i];
    // A multi-turn point's count is of sessions, each mt_turns requests (a trace's are known once it is read).
    if (w.dataset == "multi-turn" && !plan.search && requests * static_cast<double>(w.mt_turns) > kMaxRunRequests) {
      return c.Error(workloads[i], "workloads[" + std::to_string(i) + "]",
                     "the largest point runs " + FormatNumber(requests) + " sessions of " +
                         std::to_string(w.mt_turns) + " turns (mt_turns): " +
                         FormatNumber(requests * static_cast<double>(w.mt_turns)) + " requests; at most " +
                         std::to_string(kMaxRunRequests) + " per point");
    }
    // A shared-prefix workload makes its groups' prompts whatever the load.
    if (w.dataset == "shared-prefix") {
      if (Status st = workload::CheckSharedPrefix(workload::ToDatasetOptions(w).shared_prefix); !st.ok())
        return c.Error(workloads[i], "workloads[" + std::to_string(i) + "]", workload::InPlanTerms(st.message()));
    }
    if (w.dataset != "random" || (plan.scenario && plan.scenario->scenario)) continue;  // a scenario's pool is bounded
    const double tokens = workload::RandomPromptTokens(workload::ToDatasetOptions(w).random, requests);
    if (tokens > static_cast<double>(kMaxRunPromptTokens)) {
      return c.Error(workloads[i], "workloads[" + std::to_string(i) + "]",
                     "the largest point's prompts hold " + FormatNumber(tokens) + " tokens (requests x " +
                         "(input_len x (1 + range_ratio) + prefix_len)); at most " +
                         std::to_string(kMaxRunPromptTokens) + " per point");
    }
  }
  return Status::Ok();
}

Status ParseSlo(const Checker& c, YAML::Node& root, Plan* plan) {
  if (!root["slo"].IsDefined()) return Status::Ok();
  const YAML::Node slo = root["slo"];
  FRONTIER_RETURN_IF_ERROR(c.Map(slo, "slo"));
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(slo, "slo", {"ttft_ms", "tpot_ms", "e2el_ms"}));
  for (auto [key, out] : {std::pair{"ttft_ms", &plan->slo.ttft_ms}, {"tpot_ms", &plan->slo.tpot_ms},
                          {"e2el_ms", &plan->slo.e2el_ms}}) {
    FRONTIER_RETURN_IF_ERROR(c.OptionalNumber(slo, "slo", key, out, 1e-6, 1e9));
  }
  return Status::Ok();
}

Status ParseSlurm(const Checker& c, const YAML::Node& sl, SlurmSpec* slurm) {
  FRONTIER_RETURN_IF_ERROR(c.Map(sl, "slurm"));
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(sl, "slurm", {"partition", "gres", "time", "sbatch_args",
                                                          "tool_timeout_s", "poll_s"}));
  slurm->line = sl.Mark().line + 1;
  FRONTIER_RETURN_IF_ERROR(c.Number(sl, "slurm", "tool_timeout_s", &slurm->tool_timeout_s, 0.1, 3600));
  FRONTIER_RETURN_IF_ERROR(c.Number(sl, "slurm", "poll_s", &slurm->poll_s, 0.1, 3600));
  FRONTIER_RETURN_IF_ERROR(c.String(sl, "slurm", "partition", &slurm->partition));
  FRONTIER_RETURN_IF_ERROR(c.String(sl, "slurm", "gres", &slurm->gres));
  FRONTIER_RETURN_IF_ERROR(c.String(sl, "slurm", "time", &slurm->time, true));
  // Slurm's time formats: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
  if (slurm->time.find_first_not_of("0123456789:-") != std::string::npos) {
    return c.Error(sl["time"], "slurm.time",
                   "must be a Slurm time limit such as 90, 01:30:00 or 1-00:00:00, got '" +
                       Shorten(slurm->time) + "'");
  }
  const YAML::Node args = sl["sbatch_args"];
  if (args.IsDefined() && !args.IsNull()) {
    if (!args.IsSequence()) return c.Error(args, "slurm.sbatch_args", "must be a list of strings");
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].IsScalar() || args[i].Scalar().empty())
        return c.Error(args[i], "slurm.sbatch_args[" + std::to_string(i) + "]", "must be a non-empty string");
      slurm->sbatch_args.push_back(args[i].Scalar());
    }
  }
  return Status::Ok();
}

Status ParseExecutor(const Checker& c, YAML::Node& root, Plan* plan) {
  FRONTIER_RETURN_IF_ERROR(c.String(root, "", "executor", &plan->executor));
  if (plan->executor != "local" && plan->executor != "slurm") {
    return c.Error(root["executor"], "executor", "must be local or slurm, got '" + Shorten(plan->executor) + "'");
  }
  if (plan->search && plan->executor == "slurm")
    return c.Error(root["executor"], "executor", "slurm runs load grids; a plan with `search:` runs with local");
  if (root["slurm"].IsDefined()) FRONTIER_RETURN_IF_ERROR(ParseSlurm(c, root["slurm"], &plan->slurm));
  return Status::Ok();
}

Result<Plan> ParsePlanText(const std::string& text, const std::string& file) {
  Checker c(file);
  FRONTIER_ASSIGN_OR_RETURN(YAML::Node root, LoadPlanYaml(text, file));
  Plan plan;
  FRONTIER_RETURN_IF_ERROR(ParseTopLevel(c, root, text, file, &plan));
  FRONTIER_RETURN_IF_ERROR(ParseSystems(c, root, &plan));
  FRONTIER_RETURN_IF_ERROR(ParseWorkloads(c, root, &plan));
  FRONTIER_RETURN_IF_ERROR(ParseLoadAndSearch(c, root, &plan));
  FRONTIER_RETURN_IF_ERROR(CheckPromptFormats(c, root, plan));
  FRONTIER_RETURN_IF_ERROR(CheckPlanSize(c, root, plan));
  FRONTIER_RETURN_IF_ERROR(ParseSlo(c, root, &plan));
  FRONTIER_RETURN_IF_ERROR(internal::ParseSummaryKeys(c, root, &plan));
  FRONTIER_RETURN_IF_ERROR(ParseExecutor(c, root, &plan));
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
          p.num_prompts = static_cast<int64_t>(PointPrompts(plan.load, v));  // within the bound (ParseLoad)
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

std::string PlanPath(const Plan& plan, const std::string& path) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(plan.dir) / path).string();
}

Status CheckWorkloadFiles(const Plan& plan) {
  for (size_t i = 0; i < plan.workloads.size(); ++i) {
    const WorkloadSpec& w = plan.workloads[i];
    if (w.path.empty() || workload::ToDatasetOptions(w).kind == workload::DatasetKind::kMlperf) continue;
    const std::string path = PlanPath(plan, w.path);
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr)
      return InvalidArgument(plan.file + ":" + std::to_string(w.line) + ": workloads[" + std::to_string(i) +
                             "].path: cannot open " + path + ": " + std::strerror(errno));
    std::fclose(f);
  }
  for (size_t i = 0; i < plan.workloads.size(); ++i) {  // a tokenizer.json, a directory holding one, or a .gguf
    const WorkloadSpec& w = plan.workloads[i];
    if (w.tokenizer.empty()) continue;
    const std::string path = PlanPath(plan, w.tokenizer);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      return InvalidArgument(plan.file + ":" + std::to_string(w.line) + ": workloads[" + std::to_string(i) +
                             "].tokenizer: no such file or directory: " + path);
  }
  return Status::Ok();
}

double PointPrompts(const LoadSpec& load, double value) {
  double n = load.num_prompts ? static_cast<double>(*load.num_prompts)
                              : static_cast<double>(load.prompts_per_concurrency) * std::floor(value);
  if (load.kind == store::LoadKind::kConcurrency) n = std::max(n, 4 * std::ceil(value));
  return n;
}

}  // namespace frontier::sweep
