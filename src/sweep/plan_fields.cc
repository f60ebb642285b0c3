#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "core/parse.h"
#include "core/terminal_text.h"
#include "metrics/percentile_list.h"
#include "metrics/timeslice.h"
#include "sim/engine/spec_table.h"
#include "sweep/plan_yaml.h"
#include "workload/load_request.h"
#include "workload/option_names.h"

// The parts of a plan file: a simulated system's `sim:` map, workloads, the
// load grid and the scenario and search blocks; and the check for keys given
// twice (the systems are plan_system.cc's). plan.cc reads the plan as a whole
// with these.
namespace frontier::sweep::internal {

namespace {

// SimSpec's field `f`, raised to `min` where the plan asks more; its one
// string is the model (a system simulates one).
Status ReadSimField(const Checker& c, const YAML::Node& n, const std::string& parent, const std::string& key,
                    const sim::SimSpecField& f, double min, sim::SimSpec* s) {
  return ReadTableField<sim::SimSpec>(c, n, parent, key, f.flag.field, min, f.max, /*required=*/true, s);
}

}  // namespace

// `sim:` of a system: every field of SimSpec's table with a plan key
// (sim/engine/spec_table.h), in its bounds; a pool's fields under `prefill:`
// and `decode:`.
Status ParseSim(const Checker& c, const YAML::Node& n, const std::string& f, sim::SimSpec* s) {
  FRONTIER_RETURN_IF_ERROR(c.Map(n, f));
  std::set<std::string> keys;
  std::vector<std::pair<std::string, std::set<std::string>>> pool_keys;  // in the table's order: prefill, decode
  for (const sim::SimSpecField& field : sim::SimSpecTable()) {
    const std::string key = field.plan_key;
    if (key.empty()) continue;  // the system's own
    const size_t dot = key.find('.');
    keys.insert(key.substr(0, dot));
    if (dot == std::string::npos) continue;
    if (pool_keys.empty() || pool_keys.back().first != key.substr(0, dot)) pool_keys.emplace_back(key.substr(0, dot), std::set<std::string>{});
    pool_keys.back().second.insert(key.substr(dot + 1));
  }
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n, f, keys));
  for (const sim::SimSpecField& field : sim::SimSpecTable()) {
    const std::string key = field.plan_key;
    if (!key.empty() && key.find('.') == std::string::npos)
      FRONTIER_RETURN_IF_ERROR(ReadSimField(c, n, f, key, field, field.min, s));
  }
  // The setters' fields: their words besides the numbers.
  if (n["max_num_seqs"].IsDefined() && n["max_num_seqs"].IsScalar() && n["max_num_seqs"].Scalar() == "auto") {
    s->max_num_seqs_auto = true;
  } else {
    const sim::SimSpecField& seqs = sim::SimSpecFieldOf("--max-num-seqs");
    FRONTIER_RETURN_IF_ERROR(c.OptionalNumber(n, f, "max_num_seqs", &s->max_num_seqs, seqs.min, seqs.max));
  }
  if (n["prefix_caching"].IsDefined()) {
    const YAML::Node& v = n["prefix_caching"];
    if (!v.IsScalar() || (v.Scalar() != "on" && v.Scalar() != "off" && v.Scalar() != "true" && v.Scalar() != "false"))
      return c.Error(v, f + ".prefix_caching", "must be on or off");
    s->prefix_caching = v.Scalar() == "on" || v.Scalar() == "true";
  }
  for (const auto& [pool, allowed] : pool_keys) {
    if (!n[pool].IsDefined()) continue;
    const std::string pf = f + "." + pool;
    FRONTIER_RETURN_IF_ERROR(c.Map(n[pool], pf));
    FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n[pool], pf, allowed));
    for (const sim::SimSpecField& field : sim::SimSpecTable()) {
      const std::string key = field.plan_key;
      if (key.rfind(pool + ".", 0) != 0) continue;
      // A pool given is a pool used: its workers start at 1 (0, the flags'
      // default, is the aggregated system).
      const std::string sub = key.substr(pool.size() + 1);
      FRONTIER_RETURN_IF_ERROR(ReadSimField(c, n[pool], pf, sub, field, sub == "workers" ? 1 : field.min, s));
    }
  }
  if ((s->prefill_workers > 0) != (s->decode_workers > 0))
    return c.Error(n, f, "a disaggregated system needs both prefill and decode (each with workers >= 1)");
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
      case F::kTokenizer: FRONTIER_RETURN_IF_ERROR(c.String(n, f, key, &w->tokenizer)); break;
      case F::kIgnoreEos:
        if (n[key].IsDefined() && !n[key].IsNull()) {
          bool v = false;
          FRONTIER_RETURN_IF_ERROR(c.Bool(n, f, key, &v));
          w->ignore_eos = v;
        }
        break;
    }
  }
  // The rules are the workload spec's, the same as the command line's flags.
  if (std::optional<workload::SpecProblem> bad = workload::CheckWorkloadSpec(*w)) {
    const char* key = workload::SpecFieldName(bad->field);
    return c.Error(n[key].IsDefined() ? n[key] : n, f + "." + key, bad->message);
  }
  if (!w->tokenizer.empty() && w->prompt_format == "token-ids")
    return c.Error(n["tokenizer"], f + ".tokenizer", "makes text prompts: drop prompt_format token-ids");
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

// load.burstiness: --burstiness's bound, (0, workload::kMaxBurstiness] (a
// plan has no `inf`: an infinite request_rate sends all at once).
Status Burstiness(const Checker& c, const YAML::Node& n, const std::string& f, double* burstiness) {
  FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, "burstiness", burstiness));
  if (!(*burstiness > 0 && *burstiness <= workload::kMaxBurstiness))
    return c.Error(n["burstiness"], f + ".burstiness",
                   "must be a number in (0, " + FormatNumber(workload::kMaxBurstiness) + "] (1 = Poisson), got " +
                       FormatNumber(*burstiness));
  return Status::Ok();
}

// load.duration_s: --duration's bound, (0, 1e9] seconds; not where the run
// length is another's (a search's trials, a named scenario).
Status Duration(const Checker& c, const YAML::Node& n, const std::string& f, bool scenario, bool search,
                std::optional<double>* duration) {
  const YAML::Node d = n["duration_s"];
  if (!d.IsDefined() || d.IsNull()) return Status::Ok();
  if (search)
    return c.Error(d, f + ".duration_s", "cannot be given with `search:`, whose trials set their own length: remove it");
  if (scenario)
    return c.Error(d, f + ".duration_s", "cannot be given with a named scenario, which sets the run length "
                                         "(scenario.min_duration_s, min_query_count): remove it");
  double v = 0;
  FRONTIER_RETURN_IF_ERROR(c.Typed(n, f, "duration_s", &v));
  if (!(v > 0 && v <= 1e9))
    return c.Error(d, f + ".duration_s", "must be a number of seconds in (0, 1e9], got " + FormatNumber(v));
  *duration = v;
  return Status::Ok();
}

Status ParseLoad(const Checker& c, const YAML::Node& n, bool scenario, bool search, LoadSpec* l) {
  const std::string f = "load";
  FRONTIER_RETURN_IF_ERROR(c.Map(n, f));
  FRONTIER_RETURN_IF_ERROR(c.KnownKeys(n, f, {"concurrency", "request_rate",
                                              "prompts_per_concurrency", "num_prompts",
                                              "burstiness", "warmup", "max_concurrency", "duration_s"}));
  FRONTIER_RETURN_IF_ERROR(Duration(c, n, f, scenario, search, &l->duration_s));
  const bool has_c = n["concurrency"].IsDefined(), has_r = n["request_rate"].IsDefined();
  if (search) {
    // The search picks each trial's load: the plan gives only what the trials share.
    for (const char* key : {"concurrency", "request_rate", "prompts_per_concurrency"})
      if (n[key].IsDefined())
        return c.Error(n[key], f + "." + key,
                       "is a load grid, and `search:` picks each trial's load itself: remove it (search.start, "
                       "min_value and max_value bound the loads tried)");
    FRONTIER_RETURN_IF_ERROR(
        c.OptionalNumber(n, f, "num_prompts", &l->num_prompts, 1, static_cast<double>(kMaxRunRequests)));
    FRONTIER_RETURN_IF_ERROR(
        c.OptionalNumber(n, f, "max_concurrency", &l->max_concurrency, 1, static_cast<double>(kMaxConcurrency)));
    FRONTIER_RETURN_IF_ERROR(Burstiness(c, n, f, &l->burstiness));
    FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "warmup", &l->warmup, 0, static_cast<double>(kMaxRunRequests)));
    if (l->num_prompts.value_or(kDefaultSearchPrompts) + l->warmup > kMaxRunRequests && !scenario)
      return c.Error(n, f, "a trial sends num_prompts + warmup requests; at most " + std::to_string(kMaxRunRequests));
    return Status::Ok();
  }
  if (has_c == has_r) {
    return c.Error(n, f, "give exactly one of `concurrency: [...]` and `request_rate: [...]`");
  }
  l->kind = has_c ? store::LoadKind::kConcurrency : store::LoadKind::kRequestRate;
  const std::string key = store::LoadKindName(l->kind);
  const YAML::Node list = n[key];
  const std::string lf = f + "." + key;
  if (!list.IsSequence() || list.size() == 0) return c.Error(list, lf, "must be a non-empty list");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string ef = lf + "[" + std::to_string(i) + "]";
    if (has_c) {
      int64_t v = 0;
      FRONTIER_RETURN_IF_ERROR(c.Value(list[i], ef, &v, 1, static_cast<double>(kMaxConcurrency)));
      l->values.push_back(static_cast<double>(v));
    } else {
      double v = 0;
      FRONTIER_RETURN_IF_ERROR(c.Value(list[i], ef, &v, 1e-6, bounds::kMaxRequestRate));
      l->values.push_back(v);
    }
    for (size_t j = 0; j + 1 < l->values.size(); ++j)
      if (l->values[j] == l->values.back()) return c.Error(list[i], ef, "repeats an earlier value");
  }
  // A count of requests, each bounded by the requests of one point (the product is checked below).
  FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "prompts_per_concurrency", &l->prompts_per_concurrency, 1,
                                    static_cast<double>(kMaxRunRequests)));
  FRONTIER_RETURN_IF_ERROR(
      c.OptionalNumber(n, f, "num_prompts", &l->num_prompts, 1, static_cast<double>(kMaxRunRequests)));
  FRONTIER_RETURN_IF_ERROR(
      c.OptionalNumber(n, f, "max_concurrency", &l->max_concurrency, 1, static_cast<double>(kMaxConcurrency)));
  if (has_r && !l->num_prompts && !scenario) {
    return c.Error(n, f + ".num_prompts", "is required with request_rate");
  }
  FRONTIER_RETURN_IF_ERROR(Burstiness(c, n, f, &l->burstiness));
  FRONTIER_RETURN_IF_ERROR(c.Number(n, f, "warmup", &l->warmup, 0, static_cast<double>(kMaxRunRequests)));
  // The largest point's requests (warm-up included) must fit the bound.
  const double biggest = *std::max_element(l->values.begin(), l->values.end());
  const double requests = PointPrompts(*l, biggest) + static_cast<double>(l->warmup);
  if (requests > static_cast<double>(kMaxRunRequests) && !scenario) {
    return c.Error(n, f, "the largest point sends " + FormatNumber(requests) + " requests (num_prompts or " +
                             "prompts_per_concurrency x concurrency, at least 4 x concurrency, plus warmup); at " +
                             "most " + std::to_string(kMaxRunRequests) + " per point");
  }
  return Status::Ok();
}

Status ParseSummaryKeys(const Checker& c, const YAML::Node& root, Plan* plan) {
  // percentiles: a list of numbers or bench's comma text, by bench's rules.
  const YAML::Node p = root["percentiles"];
  if (p.IsDefined() && !p.IsNull()) {
    std::string text;
    if (p.IsScalar()) text = p.Scalar();
    for (size_t i = 0; p.IsSequence() && i < p.size(); ++i)
      text += (i == 0 ? "" : ",") + (p[i].IsScalar() ? p[i].Scalar() : std::string("a list or map"));
    if (p.IsMap()) text = "a map";
    Result<std::vector<double>> list = metrics::ParsePercentileList(text, "percentiles");
    if (!list.ok())  // "percentiles must be ...": the message after the key
      return c.Error(p, "percentiles", list.status().message().substr(std::string("percentiles ").size()));
    plan->percentiles = std::move(*list);
  }
  // timeslice_s: bench's --timeslice, 0 = automatic.
  FRONTIER_RETURN_IF_ERROR(c.Typed(root, "", "timeslice_s", &plan->timeslice_s));
  const double t = plan->timeslice_s;
  if (!(t == 0 || (t >= metrics::kMinSliceSeconds && t <= metrics::kMaxSliceSeconds)))
    return c.Error(root["timeslice_s"], "timeslice_s",
                   "must be 0 (automatic) or a window of " + FormatNumber(metrics::kMinSliceSeconds) + " to " +
                       FormatNumber(metrics::kMaxSliceSeconds) + " seconds, got " + FormatNumber(t));
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
    FRONTIER_RETURN_IF_ERROR(c.OptionalNumber(n, f, "min_duration_s", &q.min_duration_s, 1e-3, 1e9));
    FRONTIER_RETURN_IF_ERROR(
        c.OptionalNumber(n, f, "min_query_count", &q.min_query_count, 1, static_cast<double>(kMaxRunRequests)));
    FRONTIER_RETURN_IF_ERROR(c.String(n, f, "mlperf_benchmark", &q.benchmark));
    FRONTIER_RETURN_IF_ERROR(c.OptionalNumber(n, f, "min_interactivity", &q.min_interactivity, 1e-6, 1e9));
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

}  // namespace frontier::sweep::internal
