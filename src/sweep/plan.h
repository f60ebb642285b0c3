// plan.h: a sweep plan (YAML), parsed and validated once.
//
//   name: quickstart
//   systems:
//     - name: h200-sim                       # built-in simulator (virtual time)
//       hardware: h200
//       gpus: 8
//       sim: {model: llama-3.1-70b, tp: 8, precision: fp8}
//     - name: r1-disagg                      # also: attention_dp, max_num_seqs: auto,
//       hardware: h200                       # acceptance_rate, prefill / decode pools
//       gpus: 16
//       sim: {model: deepseek-r1, prefill: {workers: 1, tp: 8}, decode: {workers: 1, tp: 8}}
//     - name: my-vllm                        # a server frontier starts and stops
//       hardware: h100
//       gpus: 1
//       engine: {name: vllm, version: "0.11.0"}
//       model: meta-llama/Llama-3.1-8B-Instruct
//       base_url: http://127.0.0.1:8000
//       launch: {command: "vllm serve ...", env: {}, cwd: ".",
//                health: "http://127.0.0.1:8000/health", timeout_s: 900}
//   workloads:
//     - {name: 1k1k, dataset: random, input_len: 1024, output_len: 1024, range_ratio: 0.8}
//     - {name: chat, dataset: multi-turn, mt_turns: 8, mt_system_prompt_len: 4096,
//        mt_message_len: 512, output_len: 256, think_time_ms: 3000}   # sessions
//     - {name: agent, dataset: trace, path: traces/agentic.jsonl, trace_format: agentic}
//     - {name: gsp, dataset: shared-prefix, gsp_num_groups: 16, gsp_prompts_per_group: 8}
//   load:
//     concurrency: [1, 2, 4, 8]               # or request_rate: [...]
//     prompts_per_concurrency: 10             # num_prompts = 10 x concurrency (at least 4x)
//     # duration_s: 60                        # and stop issuing after 60 s, whichever is first
//   repetitions: 3
//   slo: {ttft_ms: 450, tpot_ms: 40}
//   percentiles: [50, 90, 99]                # bench's --percentiles [50, 90, 95, 99, 99.9]
//   timeslice_s: 10                          # bench's --timeslice [0: automatic]
//   scenario: {name: server, min_duration_s: 60, mlperf_benchmark: llama2-70b}  # or `scenario: server`
//   executor: slurm                          # default local (sweep/executor.h)
//   slurm: {partition: gpu, gres: "gpu:8", time: "04:00:00", sbatch_args: ["--account=perf"]}
//
// Every field is checked: an unknown key (a typo), a wrong type or an
// impossible value is an error "FILE:LINE: FIELD: what is wrong and what is
// allowed", with FIELD a path such as `systems[1].launch.timeout_s`.
// A system is exactly one of: `sim` (simulated; `live: true` serves the
// simulator over HTTP in real time instead of virtual time) or `base_url`
// (a server, started and stopped by frontier when `launch` is given).
// A workload entry holds the fields of workload::WorkloadSpec, under their
// names there; a field its dataset does not read is an error. A session
// workload (trace, multi-turn) counts sessions: a concurrency point caps the
// sessions open at once, num_prompts / prompts_per_concurrency count sessions,
// and warmup must be 0. Its seed defaults to the plan's.
// `scenario:` runs every point under an MLPerf scenario (loadgen/scenario.h)
// and judges it: with a scenario name the load must be `request_rate: [...]`,
// each value the point's target QPS (Offline: the expected QPS that sizes its
// query), with neither num_prompts, max_concurrency, burstiness nor
// duration_s (the scenario sets the arrivals and the run length); without a name the
// constraints (`slo`, `min_interactivity`) are a plain SLO judged on any
// load. Scenarios take single-turn workloads only.
// `search:` runs a search (loadgen/search.h) instead of the load grid, once
// per system and workload:
//   search: {over: rate, start: 4, growth: 2, tolerance: 0.02, max_trials: 20,
//            min_value: 0.5, max_value: 64, saturation_stop: true}
// Its fields are `frontier search`'s flags (--over ... --no-saturation-stop)
// under their plan names (workload/option_names.h), checked by the same
// loadgen::ApplySearchRequest. It needs `scenario:` to say what a trial must
// meet: a scenario name (server or interactive: the highest valid QPS, over
// rate) or `slo` / `min_interactivity` (the best throughput per GPU, over
// concurrency by default). `load:` is then optional and holds no grid
// (`concurrency` / `request_rate` / `duration_s` are errors): only num_prompts (each trial's
// requests without a named scenario, default kDefaultSearchPrompts), warmup,
// burstiness and max_concurrency (a cap on rate trials). repetitions must be 1.
// A workload's `prompt_format` (token-ids or text) says how its prompts are
// sent; unset, multi-turn workloads go to servers as text
// (workload::PromptFormatFor), and `prompt_format: token-ids` on a multi-turn
// workload of a plan with a server or live system is an error.
//
// Thread safety: values; LoadPlan reads one file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/limits.h"
#include "core/status.h"
#include "loadgen/scenario.h"
#include "loadgen/search.h"
#include "loadgen/target_request.h"
#include "metrics/summary.h"
#include "sim/engine/config.h"
#include "store/kinds.h"
#include "sweep/measure.h"
#include "workload/load.h"
#include "workload/spec.h"

namespace frontier::sweep {

struct LaunchSpec {
  std::string command;                      // run with /bin/sh -c, in its own process group
  std::map<std::string, std::string> env;   // added to frontier's environment
  std::string cwd = ".";                    // relative to the plan file's folder
  std::string health;                       // URL polled until it answers 2xx (required)
  double timeout_s = 900;                   // health wait before the system is declared broken
  double stop_timeout_s = 30;               // SIGTERM to SIGKILL
  std::string log;                          // default "<db>.logs/<system>.log"
  // Before each point, check that the process listening on base_url's port
  // is the launched one (sweep/process.h). Turn off only for a server whose
  // socket is not this machine's to inspect (a container's published port).
  bool check_owner = true;
};

struct SystemSpec {
  std::string name;
  std::string hardware;                     // catalog name (required for sim systems)
  int gpus = 1;
  // The simulated deployment (sim/engine/config.h), its hardware and gpus the
  // system's own; unset fields take the simulator's defaults. A
  // disaggregated one (prefill / decode pools) carries its parallelism in
  // the pools (tp = ep = 1, dp = 0).
  std::optional<sim::SimSpec> sim;
  bool live = false;                        // sim over HTTP in real time
  std::string engine_name, engine_version;
  std::string model;                        // model name sent to a server
  std::string base_url;
  // The API dialect (client/backend.h: openai, sglang, tgi, trtllm,
  // llamacpp); "" infers it from the endpoint. Given, the endpoint defaults
  // to the backend's.
  std::string backend;
  std::string endpoint = "/v1/completions";
  std::optional<LaunchSpec> launch;
  // The measurement beside each point of a system measured over HTTP
  // (sweep/measure.h, docs/energy.md), as bench's flags give it: the
  // server's Prometheus metrics (`scrape_metrics: true` for base_url +
  // /metrics, or a URL; scrape_interval_s) and the GPUs' power (`power`:
  // auto|nvml|amdsmi|rapl|scrape|off, power_url, power_interval_s).
  MeasureRequest measure;
  // How a system measured over HTTP (a server, or `live`) is talked to: the
  // target's fields with a plan key (loadgen::TargetFieldTable: extra_body,
  // usage, insecure, timeout_s, connect_timeout_s, first_token_timeout_s,
  // grace_s, workers, vocab_size), the command line's defaults where not given. Its
  // base_url, backend, endpoint and model are not read: the fields above are.
  loadgen::TargetRequest target;
  int line = 0;                             // where it is defined

  bool simulated() const { return sim.has_value(); }
  // A server whose dialect takes text only (OpenAI chat, TGI, TensorRT-LLM):
  // its workloads' prompts go as text unless they say token-ids, an error.
  bool NeedsTextPrompts() const;
  // The configuration stored with the system's run.
  std::map<std::string, std::string> Config() const;
};

// The client settings of `target` that differ from the command line's
// defaults, under their plan keys ("timeout_s": "1200"), as a system's config
// stores them and --as-plan writes them.
std::map<std::string, std::string> TargetConfig(const loadgen::TargetRequest& target);

// A workload entry: the one workload spec (workload/spec.h, checked by its
// validator as the command line's flags are) under a name.
struct WorkloadSpec : workload::WorkloadSpec {
  std::string name;
  int line = 0;
};

// The load kind of a search's points (and of a plan's `search:` load):
// kRequestRate for a search over the request rate, kConcurrency for one over
// concurrency.
store::LoadKind LoadKindOf(loadgen::SearchAxis axis);

struct LoadSpec {
  store::LoadKind kind = store::LoadKind::kConcurrency;  // kConcurrency or kRequestRate
  std::vector<double> values;
  int64_t prompts_per_concurrency = 10;     // num_prompts = this x concurrency ...
  std::optional<int64_t> num_prompts;       // ... unless fixed here (required for request_rate);
                                            // a concurrency point gets at least 4x its value
  double burstiness = 1.0;
  int64_t warmup = 0;
  std::optional<int64_t> max_concurrency;   // cap for request_rate sweeps
  // Stop issuing after this many seconds (bench's --duration), in (0, 1e9]:
  // each point stops at its count (PointPrompts) or at this time, whichever
  // comes first (a simulated point in virtual time). Not with `search:` or a
  // named scenario, which set the run length.
  std::optional<double> duration_s;
};

// The measured requests of the point at load `value` (warm-up aside):
// num_prompts when given, else prompts_per_concurrency x value; a
// concurrency point at least 4 x value, since a closed loop of c streams
// needs several rounds of c requests to reach its steady state (else points
// at high concurrency measure the same few requests). As a double: the
// plan's check compares it with the bound before any count is made.
double PointPrompts(const LoadSpec& load, double value);

// Batch jobs of `executor: slurm` (sweep/slurm.h): one job per system.
struct SlurmSpec {
  std::string partition;                    // sbatch --partition; "" = the cluster's default
  std::string gres;                         // sbatch --gres; "" = gpu:<gpus> for server systems and
                                            // none for simulated ones; "none" = never
  std::string time = "01:00:00";            // sbatch --time, the job's limit (Slurm's formats)
  std::vector<std::string> sbatch_args;     // more sbatch arguments, as given
  double tool_timeout_s = 30;               // each sbatch, squeue, scontrol, sacct, scancel call
  double poll_s = 2;                        // between polls of the jobs' states
  int line = 0;                             // where `slurm:` is defined (0: not given)
};

// A plan's `search:` block.
struct SearchSpec {
  loadgen::SearchRequest request;
  int line = 0;                             // where `search:` is defined
};

// Requests of each search trial without a named scenario (`frontier search`'s --num-prompts default).
inline constexpr int64_t kDefaultSearchPrompts = 1000;

struct Plan {
  std::string name;
  std::string file;         // as given
  std::string dir;          // folder of the file, for relative paths
  std::string text;         // file contents (stored with each run)
  std::string hash;         // 16 hex digits of FNV-1a over `text`
  std::vector<SystemSpec> systems;
  std::vector<WorkloadSpec> workloads;
  LoadSpec load;
  int repetitions = 1;
  metrics::GoodputSlo slo;  // goodput's SLO, as `--goodput` gives it to bench and simulate
  // Every point's summary: its percentiles (`percentiles:`, bench's
  // --percentiles; the summary's default) and its window (`timeslice_s:`,
  // bench's --timeslice; 0 = automatic).
  std::vector<double> percentiles = metrics::SummaryOptions().percentiles;
  double timeslice_s = 0;
  uint64_t seed = 0;
  std::string executor = "local";           // "local" or "slurm"
  SlurmSpec slurm;
  // `scenario:` (target_qps unset: each point's load value). Unset: no verdict.
  std::optional<loadgen::ScenarioRequest> scenario;
  int scenario_line = 0;                    // where `scenario:` is defined (0: not given)
  // `search:`: one search per system and workload instead of the load grid;
  // load.kind is then the search's axis ("request_rate" or "concurrency") and
  // load.values is empty.
  std::optional<SearchSpec> search;
};

// `path` as the plan means it: relative to the plan's folder unless absolute.
std::string PlanPath(const Plan& plan, const std::string& path);

// Every workload's file (its `path`, relative to the plan's folder) opens
// for reading; else InvalidArgument "FILE:LINE: workloads[i].path: cannot
// open PATH: REASON", before a system starts (a missing trace used to be
// found at each point, after a launched server had come up); every
// workload's tokenizer exists ("workloads[i].tokenizer: no such file or
// directory: PATH").
Status CheckWorkloadFiles(const Plan& plan);

// Bounds on a plan (docs/limits.md): the points of its matrix; each point is
// one run within core/limits.h's bounds.
inline constexpr int64_t kMaxMatrixPoints = 1'000'000;

// Parses `text` as the contents of `file`. InvalidArgument
// "FILE:LINE: FIELD: message" for the first problem found. Total: no text
// makes it throw.
Result<Plan> ParsePlan(const std::string& text, const std::string& file);

// Reads (at most kMaxPlanBytes, core/atomic_file.h) and parses a plan file;
// NotFound naming the path if it is missing.
Result<Plan> LoadPlan(const std::string& path);

// `plan` with its scenario set to `name` (`frontier sweep --scenario`): the
// plan's other scenario fields are kept. InvalidArgument naming --scenario
// when the name is unknown or the plan's load or workloads cannot run under
// a scenario.
Result<Plan> WithScenario(Plan plan, const std::string& name);

// One point of the matrix.
struct PointSpec {
  size_t system = 0;        // index into plan.systems
  size_t workload = 0;      // index into plan.workloads
  double load_value = 0;
  int repetition = 0;
  int64_t num_prompts = 0;
  uint64_t seed = 0;        // differs per repetition and load point
  std::string key;          // store::PointKey
};

// systems x workloads x load values x repetitions, in that nesting order
// (empty for a plan with `search:`, whose trials the search picks).
std::vector<PointSpec> ExpandMatrix(const Plan& plan);

// The base load of a search plan's trials for `workload`: its seed, the
// plan's warm-up, burstiness and max_concurrency, and num_prompts
// (kDefaultSearchPrompts unless load.num_prompts); the search sets each
// trial's rate or concurrency (loadgen::TrialLoad).
workload::LoadOptions SearchBaseLoad(const Plan& plan, const WorkloadSpec& workload);

}  // namespace frontier::sweep
