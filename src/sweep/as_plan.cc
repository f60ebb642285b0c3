// as_plan.cc: a resolved `frontier simulate`, `bench` or `search` invocation
// as a sweep plan (as_plan.h).
#include "sweep/as_plan.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/parse.h"
#include "loadgen/target_request.h"
#include "sim/engine/spec_table.h"
#include "sweep/plan.h"
#include "sweep/system_run.h"
#include "workload/dataset_label.h"
#include "workload/load_request.h"
#include "workload/option_names.h"

namespace frontier::sweep {
namespace {

// `text` as a YAML scalar that reads back as the same string: plain where
// YAML would not read it as something else, else double-quoted.
std::string Scalar(const std::string& text) {
  bool plain = !text.empty() && (std::isalnum(static_cast<unsigned char>(text[0])) || text[0] == '/');
  for (char ch : text)
    plain = plain && (std::isalnum(static_cast<unsigned char>(ch)) || std::string_view("._/@+-").find(ch) != std::string_view::npos);
  for (const char* word : {"null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "yes", "Yes",
                           "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N"})
    plain = plain && text != word;
  if (plain) return text;
  std::string out = "\"";
  for (char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// The value a table row's field holds in `raw`, as plan text; nothing for a
// setter (the caller reads what it set), a list or an unset optional.
template <class Raw>
std::optional<std::string> FieldText(const FlagRow<Raw>& row, const Raw& raw) {
  return FlagFieldText(row, raw, Scalar, [] { return std::optional<std::string>(); });
}

// "key: value, ..." of a flow map.
std::string Flow(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string out;
  for (const auto& [k, v] : items) out += (out.empty() ? "" : ", ") + k + ": " + v;
  return "{" + out + "}";
}

// `sim:` of the system: every SimSpec flag given but the system's own
// (hardware, gpus), under its plan key (sim/engine/spec_table.h: "--kv-precision":
// kv_precision; "--prefill-tp": prefill.tp).
std::string SimBlock(const sim::SimSpec& spec, const FlagGiven& given) {
  using Items = std::vector<std::pair<std::string, std::string>>;
  Items items;
  std::vector<std::pair<std::string, Items>> pools;  // prefill, decode
  for (const sim::SimSpecField& field : sim::SimSpecTable()) {
    const FlagRow<sim::SimSpec>& row = field.flag;
    const std::string flag = row.name, key = field.plan_key;
    if (!given(flag) || key.empty()) continue;
    // A setter's field in its words (max_num_seqs: auto, prefix_caching: off).
    std::optional<std::string> value =
        std::holds_alternative<FlagRow<sim::SimSpec>::Setter>(row.field) ? sim::SimSpecFieldText(field, spec)
                                                                         : FieldText(row, spec);
    if (!value) continue;
    if (const size_t dot = key.find('.'); dot != std::string::npos) {
      if (pools.empty() || pools.back().first != key.substr(0, dot)) pools.emplace_back(key.substr(0, dot), Items{});
      pools.back().second.emplace_back(key.substr(dot + 1), *value);
    } else {
      items.emplace_back(key, *value);
    }
  }
  for (const auto& [pool, fields] : pools) items.emplace_back(pool, Flow(fields));
  return Flow(items);
}

// The workload entry, named as the command stores its points
// (workload::DatasetLabel: "1024/128" for random prompts, else the dataset's
// kind), so the plan's points have the command's keys: the workload fields
// whose flags were given and that its dataset reads (another dataset's flag
// changes nothing in simulate either), a file's path made absolute (a plan's
// paths are relative to its own folder).
std::string WorkloadEntry(const loadgen::ResolvedWorkload& rw, const loadgen::WorkloadRequest& w) {
  const workload::DatasetKind kind = rw.dataset.kind;
  std::vector<std::pair<std::string, std::string>> items = {{"name", Scalar(workload::DatasetLabel(rw.dataset))}};
  for (const workload::OptionName& n : workload::OptionNames()) {
    const std::string flag = n.flag;
    if (!n.spec || !w.given.contains(flag.substr(2)) || !workload::SpecFieldApplies(n.field, kind)) continue;
    if (std::any_of(items.begin(), items.end(), [&](const auto& item) { return item.first == n.plan; })) continue;
    for (const FlagRow<loadgen::WorkloadRequest>& row : loadgen::WorkloadFlagRows()) {
      const std::string_view name = row.name;  // "--ignore-eos,!--no-ignore-eos": its first spelling
      if (flag != name.substr(0, name.find(','))) continue;
      std::optional<std::string> value = FieldText(row, w);
      if (value && n.field == workload::SpecField::kPath)
        value = Scalar(std::filesystem::absolute(n.flag == std::string("--trace") ? w.trace : w.dataset_path).string());
      if (value && n.field == workload::SpecField::kTokenizer)
        value = Scalar(std::filesystem::absolute(w.tokenizer).string());
      if (value) items.emplace_back(n.plan, *value);
    }
  }
  return Flow(items);
}

// `load:` of one point or of simulate's levels (`levels`; null for a command
// without --concurrency), or why the invocation's load has no plan form.
Result<std::string> LoadBlock(const loadgen::ResolvedWorkload& rw, const std::vector<int64_t>* levels,
                              const loadgen::WorkloadRequest& w) {
  const workload::LoadOptions& l = rw.load;
  const bool swept = levels != nullptr && !levels->empty();
  auto list = [](const std::vector<std::string>& values) {
    std::string out;
    for (const std::string& v : values) out += (out.empty() ? "" : ", ") + v;
    return "[" + out + "]";
  };
  std::string out = "load:\n";
  const bool scenario = rw.scenario && rw.scenario->scenario;
  if (scenario) {
    if (!rw.scenario->target_qps)
      return InvalidArgument("--scenario without --target-qps has no plan form: a plan's request_rate values are its "
                             "target QPS; give --target-qps");
    out += "  request_rate: [" + FormatShortest(*rw.scenario->target_qps) + "]\n";
  } else if (swept) {
    if (w.given.contains("request-rate"))
      return InvalidArgument("--request-rate with --concurrency has no plan form: a plan's concurrency points are "
                             "closed loops; drop it");
    std::vector<std::string> values;
    for (int64_t c : *levels) values.push_back(std::to_string(c));
    out += "  concurrency: " + list(values) + "\n";
  } else if (std::isfinite(l.request_rate)) {
    out += "  request_rate: [" + FormatShortest(l.request_rate) + "]\n";
  } else if (l.max_concurrency) {
    if (l.num_prompts < 4 * *l.max_concurrency)
      return InvalidArgument("--num-prompts " + std::to_string(l.num_prompts) + " below 4 x --max-concurrency " +
                             std::to_string(*l.max_concurrency) + " has no plan form: a plan's concurrency point "
                             "sends at least 4x its concurrency; raise --num-prompts");
    out += "  concurrency: [" + std::to_string(*l.max_concurrency) + "]\n";
  } else {
    return InvalidArgument(
        std::string("one point sent all at once has no plan form: a plan's load is a concurrency or a request rate; "
                    "give --max-concurrency") +
        (levels ? ", --request-rate or --concurrency" : " or --request-rate"));
  }
  if (l.duration_s && l.num_prompts == workload::kUnboundedPrompts)
    return InvalidArgument("--duration without --num-prompts has no plan form: a plan's point sends a count of "
                           "requests and stops at load.duration_s if that comes first; give --num-prompts");
  if (!scenario) out += "  num_prompts: " + std::to_string(l.num_prompts) + "\n";
  if (l.duration_s) out += "  duration_s: " + FormatShortest(*l.duration_s) + "\n";
  if (!scenario && !swept && std::isfinite(l.request_rate) && l.max_concurrency)
    out += "  max_concurrency: " + std::to_string(*l.max_concurrency) + "\n";
  if (l.warmup > 0) out += "  warmup: " + std::to_string(l.warmup) + "\n";
  if (w.given.contains("burstiness")) {
    if (w.burstiness == "inf" || !std::isfinite(l.burstiness))
      return InvalidArgument("--burstiness " + w.burstiness + " has no plan form; give a finite shape");
    out += "  burstiness: " + FormatShortest(l.burstiness) + "\n";
  }
  return out;
}

// `percentiles:` and `timeslice_s:` (--percentiles, --timeslice) when given,
// `slo:` (--goodput) and `scenario:` (the scenario flags), "" without them.
std::string JudgingBlocks(const loadgen::ResolvedWorkload& rw, const loadgen::WorkloadRequest& w) {
  std::string out;
  if (w.given.contains("percentiles")) {
    std::string list;
    for (double p : rw.summary.percentiles) list += (list.empty() ? "" : ", ") + FormatShortest(p);
    out += "percentiles: [" + list + "]\n";
  }
  if (w.given.contains("timeslice")) out += "timeslice_s: " + FormatShortest(rw.summary.timeslice.slice_s) + "\n";
  const metrics::GoodputSlo& g = rw.summary.goodput;
  std::vector<std::pair<std::string, std::string>> slo;
  if (g.ttft_ms) slo.emplace_back("ttft_ms", FormatShortest(*g.ttft_ms));
  if (g.tpot_ms) slo.emplace_back("tpot_ms", FormatShortest(*g.tpot_ms));
  if (g.e2el_ms) slo.emplace_back("e2el_ms", FormatShortest(*g.e2el_ms));
  if (!slo.empty()) out += "slo: " + Flow(slo) + "\n";
  if (!rw.scenario) return out;
  const loadgen::ScenarioRequest& q = *rw.scenario;
  std::vector<std::pair<std::string, std::string>> items;
  if (q.scenario) items.emplace_back("name", loadgen::ScenarioName(*q.scenario));
  if (q.min_duration_s) items.emplace_back("min_duration_s", FormatShortest(*q.min_duration_s));
  if (q.min_query_count) items.emplace_back("min_query_count", std::to_string(*q.min_query_count));
  if (!q.benchmark.empty()) items.emplace_back("mlperf_benchmark", Scalar(q.benchmark));
  if (!w.slo.empty()) {
    std::string list;
    for (const std::string& item : w.slo) list += (list.empty() ? "" : ", ") + Scalar(item);
    items.emplace_back("slo", "[" + list + "]");
  }
  if (q.min_interactivity) items.emplace_back("min_interactivity", FormatShortest(*q.min_interactivity));
  return out + "scenario: " + Flow(items) + "\n";
}

// A simulated system's entry: `spec` (the SimSpec flags given, under their
// plan keys) resolved as `config`.
std::string SimulatedSystemEntry(const sim::SimSpec& spec, const sim::SimConfig& config, const FlagGiven& given) {
  std::string text = "systems:\n";
  text += "  - name: " + Scalar(SimulatedSystem(spec, config).name) + "\n";
  text += "    hardware: " + Scalar(spec.hardware) + "\n";
  text += "    gpus: " + std::to_string(config.gpus) + "\n";
  text += "    sim: " + SimBlock(spec, given) + "\n";
  return text;
}

// A server's entry, named as the command stores it (ServerSystem), with the
// client settings given (TargetConfig), and a comment where a secret was left
// out: a plan holds none; a sweep sends $OPENAI_API_KEY when it is set, and
// no headers.
std::string ServerSystemEntry(const loadgen::TargetRequest& t, const std::string& model, int gpus,
                              const MeasureRequest& m) {
  std::string text;
  if (!t.api_key.empty())
    text += "# --api-key is left out: a plan holds no secret; a sweep sends $OPENAI_API_KEY when it is set\n";
  if (!t.headers.empty()) text += "# --header is left out: a plan holds no secret and a sweep sends no headers\n";
  text += "systems:\n";
  text += "  - name: " + Scalar(ServerSystem(model, t.base_url, t.endpoint, gpus).name) + "\n";
  if (!model.empty()) text += "    model: " + Scalar(model) + "\n";
  text += "    base_url: " + Scalar(t.base_url) + "\n";
  text += "    backend: " + Scalar(t.backend) + "\n";
  if (!t.endpoint.empty()) text += "    endpoint: " + Scalar(t.endpoint) + "\n";
  text += "    gpus: " + std::to_string(gpus) + "\n";
  std::map<std::string, std::string> settings = TargetConfig(t);
  settings.merge(MeasureConfig(m));
  for (const auto& [key, value] : settings)  // a bool as YAML's, a number or a word plain, JSON quoted
    text += "    " + key + ": " + (value == "true" || value == "false" ? value : Scalar(value)) + "\n";
  return text;
}

// `search:`: the search flags given, under their plan keys (workload/option_names.h: "--max-trials" is
// `search.max_trials`; --no-saturation-stop `search.saturation_stop: false`).
std::string SearchBlock(const loadgen::SearchRequest& r, const FlagGiven& given) {
  std::vector<std::pair<std::string, std::string>> items;
  auto key = [](const std::string& flag) {
    for (const workload::OptionName& n : workload::OptionNames())
      if (flag == n.flag && std::string_view(n.plan).starts_with("search.")) return std::string(n.plan).substr(7);
    return std::string();
  };
  for (const FlagRow<loadgen::SearchRequest>& row : loadgen::SearchFlagRows()) {
    const std::string k = key(row.name);
    if (!given(row.name) || k.empty()) continue;
    if (std::optional<std::string> value = FieldText(row, r)) items.emplace_back(k, *value);
  }
  if (given("--no-saturation-stop")) items.emplace_back(key("--no-saturation-stop"), "false");
  return "search: " + Flow(items) + "\n";
}

// A search's `load:`: no grid (the search picks each trial's), only what the
// trials share; none under a named scenario but the warm-up (the scenario
// sets the arrivals and the run length).
std::string SearchLoadBlock(const loadgen::ResolvedWorkload& rw, const loadgen::WorkloadRequest& w) {
  const workload::LoadOptions& l = rw.load;
  const bool named = rw.scenario && rw.scenario->scenario;
  std::string out;
  if (!named) out += "  num_prompts: " + std::to_string(l.num_prompts) + "\n";
  if (l.warmup > 0) out += "  warmup: " + std::to_string(l.warmup) + "\n";
  if (!named && w.given.contains("burstiness")) out += "  burstiness: " + FormatShortest(l.burstiness) + "\n";
  if (!named && l.max_concurrency) out += "  max_concurrency: " + std::to_string(*l.max_concurrency) + "\n";
  return out.empty() ? "" : "load:\n" + out;
}

// `text`, read back as the sweep reads it: a plan the sweep would refuse is this code's bug, said as such.
Result<std::string> Checked(const std::string& command, std::string text) {
  if (Result<Plan> plan = ParsePlan(text, command + " --as-plan"); !plan.ok())
    return Internal("the plan --as-plan wrote does not parse (a bug): " + plan.status().message());
  return text;
}

// The target's flags a plan's server system has no field for: those without
// a plan key (loadgen::TargetFieldTable) but the system's own (base_url,
// backend, endpoint, model) and the secrets, which are left out, never
// written.
std::vector<std::string> TargetFlagsWithoutPlanForm() {
  std::vector<std::string> flags;
  for (const loadgen::TargetField& field : loadgen::TargetFieldTable()) {
    const std::string flag = field.flag.name;
    if (*field.plan_key == '\0' && flag != "--base-url" && flag != "--backend" && flag != "--endpoint" &&
        flag != "--model" && flag != "--api-key" && flag != "--header")
      flags.push_back(flag);
  }
  return flags;
}

}  // namespace

Result<std::string> SimulatePlan(const sim::Simulation& s, const loadgen::WorkloadRequest& w, const FlagGiven& given) {
  FRONTIER_ASSIGN_OR_RETURN(const std::string load, LoadBlock(s.w, &s.levels, w));
  std::string text = "name: simulate\n" + SimulatedSystemEntry(s.request.spec, s.config, given);
  text += "workloads:\n";
  text += "  - " + WorkloadEntry(s.w, w) + "\n";
  text += load;
  text += JudgingBlocks(s.w, w);
  return Checked("simulate", std::move(text));
}

Result<std::string> BenchPlan(const BenchRequest& r, const loadgen::TargetRequest& t,
                              const Result<loadgen::ResolvedWorkload>& rw, const loadgen::WorkloadRequest& w) {
  if (!rw.ok()) return rw.status();
  FRONTIER_ASSIGN_OR_RETURN(const std::string load, LoadBlock(*rw, nullptr, w));
  std::string text = "name: bench\n" + ServerSystemEntry(t, r.model, rw->summary.num_gpus, r);
  text += "workloads:\n";
  text += "  - " + WorkloadEntry(*rw, w) + "\n";
  text += load;
  text += JudgingBlocks(*rw, w);
  return Checked("bench", std::move(text));
}

Result<std::string> SearchPlan(const SearchJob& job, const loadgen::TargetRequest& t, const loadgen::WorkloadRequest& w,
                               const FlagGiven& given) {
  std::string text = "name: search\n";
  text += job.config ? SimulatedSystemEntry(job.spec, *job.config, given)
                     : ServerSystemEntry(t, job.model, job.w.summary.num_gpus, MeasureRequest{});
  text += "workloads:\n";
  text += "  - " + WorkloadEntry(job.w, w) + "\n";
  text += SearchLoadBlock(job.w, w);
  text += JudgingBlocks(job.w, w);
  text += SearchBlock(job.request, given);
  return Checked("search", std::move(text));
}

Status PrintPlan(const Result<std::string>& plan) {
  if (!plan.ok()) return plan.status();
  if (std::fputs(plan->c_str(), stdout) < 0 || std::fflush(stdout) != 0)
    return Internal("could not write the plan to stdout");
  return Status::Ok();
}

std::vector<std::string> BenchFlagsWithoutPlanForm() {
  std::vector<std::string> flags = {"--db", "--run-label"};
  for (const FlagRow<BenchRequest>& row : BenchFlagRows()) {
    const std::string flag = row.name;
    if (flag != "--power" && flag != "--power-url" && flag != "--power-interval" && flag != "--scrape-metrics" &&
        flag != "--scrape-interval" && flag != "--as-plan")
      flags.push_back(flag);
  }
  for (const std::string& flag : TargetFlagsWithoutPlanForm()) flags.push_back(flag);
  for (const char* flag : loadgen::WorkloadFlagsWithoutPlanForm()) flags.push_back(flag);
  return flags;
}

std::vector<std::string> SearchFlagsWithoutPlanForm() {
  // A plan's load.duration_s is the grid's, not a search's trials'.
  std::vector<std::string> flags = {"--db", "--run-label", "--client-rtt-us", "--duration"};
  for (const std::string& flag : TargetFlagsWithoutPlanForm()) flags.push_back(flag);
  for (const char* flag : loadgen::WorkloadFlagsWithoutPlanForm()) flags.push_back(flag);
  return flags;
}

}  // namespace frontier::sweep
