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
//   load:
//     concurrency: [1, 2, 4, 8]               # or request_rate: [...]
//     prompts_per_concurrency: 10             # num_prompts = 10 x concurrency (at least 4x)
//   repetitions: 3
//   slo: {ttft_ms: 450, tpot_ms: 40}
//
// Every field is checked: an unknown key (a typo), a wrong type or an
// impossible value is an error "FILE:LINE: FIELD: what is wrong and what is
// allowed", with FIELD a path such as `systems[1].launch.timeout_s`.
// A system is exactly one of: `sim` (simulated; `live: true` serves the
// simulator over HTTP in real time instead of virtual time) or `base_url`
// (a server, started and stopped by frontier when `launch` is given).
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

// The simulated deployment, by catalog names (see sim/config.h); unset fields
// take the simulator's defaults.
struct SimSettings {
  std::string model;                         // required
  int tp = 1, ep = 1, dp = 0;
  std::optional<std::string> precision, kv_precision, stack;
  std::optional<int> max_num_seqs, max_num_batched_tokens;
  bool max_num_seqs_auto = false;            // max_num_seqs: auto (raised to each concurrency)
  int spec_tokens = 0;
  std::optional<double> acceptance, acceptance_rate;
  bool attention_dp = false;
  bool prefix_caching = true;                // prefix_caching: on | off
  // Disaggregated prefill / decode: {workers, tp, dp, ep} per pool.
  struct Pool {
    int workers = 0, tp = 1, dp = 1, ep = 1;
  };
  Pool prefill, decode;
};

struct SystemSpec {
  std::string name;
  std::string hardware;                     // catalog name (required for sim systems)
  int gpus = 1;
  std::optional<SimSettings> sim;
  bool live = false;                        // sim over HTTP in real time
  std::string engine_name, engine_version;
  std::string model;                        // model name sent to a server
  std::string base_url;
  std::string endpoint = "/v1/completions";
  std::optional<LaunchSpec> launch;
  int line = 0;                             // where it is defined

  bool simulated() const { return sim.has_value(); }
  // The configuration stored with the system's run.
  std::map<std::string, std::string> Config() const;
};

struct WorkloadSpec {
  std::string name;
  std::string dataset = "random";           // random | sharegpt | jsonl
  int32_t input_len = 1024, output_len = 128;
  double range_ratio = 0;
  int32_t prefix_len = 0;
  std::string path;                         // sharegpt / jsonl file, relative to the plan
  std::optional<int32_t> sharegpt_output_len;
  int line = 0;
};

struct LoadSpec {
  std::string kind = "concurrency";         // "concurrency" or "request_rate"
  std::vector<double> values;
  int64_t prompts_per_concurrency = 10;     // num_prompts = this x concurrency ...
  std::optional<int64_t> num_prompts;       // ... unless fixed here (required for request_rate);
                                            // a concurrency point gets at least 4x its value
  double burstiness = 1.0;
  int64_t warmup = 0;
  std::optional<int64_t> max_concurrency;   // cap for request_rate sweeps
};

struct Slo {
  std::optional<double> ttft_ms, tpot_ms, e2el_ms;
};

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
  Slo slo;
  uint64_t seed = 0;
};

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

// systems x workloads x load values x repetitions, in that nesting order.
std::vector<PointSpec> ExpandMatrix(const Plan& plan);

}  // namespace frontier::sweep
