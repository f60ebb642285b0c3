// validation.h: published results (data/validation/*.json) and the
// simulator's predictions of them, for `frontier validate`, `frontier
// calibrate` and their tests.
//
// Each result names its conditions (model, hardware, GPUs and parallelism,
// precision, stack version, engine limits, workload) and one of four
// scenarios, each predicted as its benchmark measures it:
//   offline      every sample queued at once (MLPerf Offline). The published
//                runs hold 10-70x the dataset, so their throughput is the
//                steady state: output tokens emitted from the first
//                completion to the last request's first token, over that time
//                (the fill at the start and the drain at the end are left
//                out); the run draws 3x the sequences the engine holds.
//   server       Poisson arrivals (MLPerf Server / Interactive): the output
//                throughput at the highest rate whose p99 TTFT and p99 TPOT
//                stay within the limits (found by bisection).
//   closed_loop  `concurrency` requests in flight, `num_prompts` in all
//                (vLLM / SGLang serving benchmarks): output tokens over the
//                run's duration.
//   batch        `num_prompts` requests at once, run to completion (a latency
//                benchmark's batch): output tokens over the duration.
// The metric is output tokens per second.
//
// The rule of calibration: results on the calibration GPUs (H100, H200,
// MI300X, MI325X; the H100 and H200 as SXM modules, NVL cards and the GH200's
// GPU), of any date, may be fitted. Results on every other GPU
// (B200, GB200, MI355X and any newer one) are never fitted: they test how
// what was learnt on the GPUs people own transfers to the next ones, by
// their published specifications (the "transfer" table of `frontier
// validate`). A result marked held_out is never fitted either.
//
// Thread safety: pure functions apart from reading the data files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "sim/engine/config.h"
#include "sim/engine/data_dir.h"
#include "sim/simulate.h"
#include "workload/length_table.h"
#include "workload/request_spec.h"

namespace frontier::sim {

enum class Scenario { kOffline, kServer, kClosedLoop, kBatch };
const char* ScenarioName(Scenario s);

struct PublishedResult {
  std::string id, published, source, submitter, system, round;
  std::string model, hardware, stack;
  std::string precision;         // every weight's format (--precision); "native": the model's own formats
  std::string kv_precision;      // "" = the simulator's default
  std::optional<int> max_model_len;  // "" = the model's context
  bool enforce_eager = false;    // run with vLLM's --enforce-eager: no CUDA / HIP graphs
  std::optional<PrefillMode> prefill;  // the run's prompt scheduling, where its launch set it
  int gpus = 8, tp = 1, ep = 1, dp = 0;
  bool attention_dp = false;
  std::optional<int> max_num_seqs, max_num_batched_tokens;
  // The run's memory fraction (SGLang --mem-fraction-static, TensorRT-LLM
  // free_gpu_memory_fraction, vLLM --gpu-memory-utilization), in (0, 1];
  // unset: the stack's default. Its meaning is the stack's memory_fraction_of.
  std::optional<double> gpu_memory_utilization;
  // Workload: a dataset (outputs rescaled to output_mean when given), or
  // lengths of mean input_len and output_len, fixed (range_ratio 0) or drawn
  // uniformly in [(1-r)L, (1+r)L] as the random dataset draws them (the
  // client's own draw, where the run's client drew them).
  std::string dataset;
  double output_mean = 0;
  int32_t input_len = 0, output_len = 0;
  double range_ratio = 0;
  int64_t num_prompts = 0;       // closed_loop / batch
  Scenario scenario = Scenario::kOffline;
  int64_t concurrency = 0;       // closed_loop
  double value = 0;              // published output tokens per second
  std::optional<double> median_tpot_ms;
  // Published means of a closed_loop or batch run; calibration fits them too.
  std::optional<double> mean_tpot_ms, mean_ttft_ms;
  double ttft_p99_limit_ms = 0, tpot_p99_limit_ms = 0;  // server
  bool held_out = false;         // never fitted, even on a calibration GPU
  std::string file;

  // Whether the result runs on a calibration GPU (H100, H200, MI300X, MI325X,
  // the H100 and H200 in SXM, NVL and GH200 form).
  bool OnCalibrationGpu() const;
  // Whether calibration may use this result: on a calibration GPU and not held out.
  bool Calibratable() const;
};

// Whether calibration may fit results on this GPU (a hardware catalog id).
bool IsCalibrationGpu(const std::string& hardware);

struct ValidationSet {
  std::vector<PublishedResult> results;
  std::vector<workload::LengthTable> datasets;  // the datasets' length tables (workload/length_table.h)
  const workload::LengthTable* Dataset(const std::string& name) const;
};

// Reads every file under <data_dir>/validation. Fails naming the file and field.
Result<ValidationSet> LoadValidation(const std::string& data_dir = DefaultDataDir());

struct ValidationOptions {
  int64_t offline_requests = 6000;  // samples per offline run, at least (raised to 3x what the engine holds)
  int64_t server_requests = 4000;   // per probe of the rate search (the first quarter warms up)
  int server_probes = 7;            // bisection steps, between 0.6 and 1.05 x the offline rate
  uint64_t seed = 1;
  std::string data_dir;             // empty: DefaultDataDir()
};

// "" when the request counts fit, else the usage message naming the flag and
// its range: --offline-requests and --server-requests in [100, 1000000] (the
// requests of a run are held in memory, core/limits.h). The validator of
// `frontier validate`'s flags and part of `calibrate`'s.
std::string ValidationOptionsProblem(const ValidationOptions& options);


// One published result, ready to predict: its deployment, its requests, and
// (for every scenario but server) a trace to re-cost under other stack
// parameters.
class ResultModel {
 public:
  // Resolves the deployment with `stack` (by default the result's own) and
  // draws the requests. Fails naming the result when its deployment does not
  // resolve.
  static Result<ResultModel> Create(const PublishedResult& r, const ValidationSet& set, const ValidationOptions& o,
                                    const Stack* stack = nullptr);
  // A measured run: its deployment, the requests it sent and its scenario
  // (closed_loop or batch) and measured output tokens per second in `r`.
  static ResultModel FromRun(const PublishedResult& r, const SimConfig& config,
                             std::vector<workload::RequestSpec> requests);

  // Simulates the benchmark with `params` and records a fresh trace.
  // Returns the predicted output tokens per second. A call with the
  // parameters of the last successful one returns its figure without
  // simulating again (the simulation is deterministic).
  Result<double> Simulate(const StackParams& params);
  // Forgets the last Simulate(): the next one simulates again and searches a
  // Server result's rate over the whole range, as a new model would, instead
  // of near the rate it last sustained. A fit calls it before its first
  // simulation so that its result does not depend on what ran before.
  void ColdStart() {
    simulated_at_.reset();
    server_ratio_ = 1;
  }
  // The prediction under `params` from the last trace (server results scale
  // the offline steady state by the ratio the last Simulate() found).
  double Replay(const StackParams& params) const;
  // For closed_loop and batch runs, also the mean TPOT (the decode-token
  // weighted mean step time) and the mean TTFT (Little's law: the mean
  // latency, concurrency x duration / requests, less the decode time).
  struct Metrics {
    double output_tokens_per_s = 0;
    double mean_tpot_ms = 0, mean_ttft_ms = 0;
  };
  Metrics ReplayMetrics(const StackParams& params) const;

  // How finely the last Simulate() resolved its figure, relative to it: a
  // Server result's rate search stops within one bisection interval (its
  // bracket over 2^probes); 0 for the other scenarios (exact).
  double resolution() const { return resolution_; }

  // Whether Replay() equals a fresh Simulate() at any parameters: true for
  // every scenario but server, unless some step was shorter than the round trip.
  bool exact_replay() const { return result_.scenario != Scenario::kServer && trace_.replayable; }

  const PublishedResult& result() const { return result_; }
  const SimConfig& config() const { return config_; }
  const std::vector<workload::RequestSpec>& requests() const { return requests_; }
  std::optional<double> median_tpot_ms() const { return median_tpot_ms_; }
  std::optional<double> median_ttft_ms() const { return median_ttft_ms_; }
  double request_rate() const { return request_rate_; }

 private:
  ResultModel() = default;
  Result<double> SimulateAt(const StackParams& params);
  Result<double> SimulateOffline(const StackParams& params, StepTrace* trace);

  PublishedResult result_;
  SimConfig config_;
  ValidationOptions options_;
  std::vector<workload::RequestSpec> requests_, server_requests_;
  StepTrace trace_;
  double server_ratio_ = 1;  // server throughput / offline steady state, at the last Simulate()
  std::optional<StackParams> simulated_at_;  // the parameters of the last successful Simulate()
  double simulated_ = 0;                     // ... and its figure
  double resolution_ = 0;                    // of the last Simulate() (resolution())
  std::optional<double> median_tpot_ms_, median_ttft_ms_;
  double request_rate_ = 0;
};

struct Prediction {
  PublishedResult published;
  std::string model_class;
  double output_tokens_per_s = 0;
  double error = 0;               // predicted / published - 1
  std::optional<double> median_ttft_ms, median_tpot_ms;
  double request_rate = 0;        // server: the rate found
};

// Predicts one result with its catalogued stack version (or `stack`).
Result<Prediction> Predict(const PublishedResult& result, const ValidationSet& set, const ValidationOptions& options,
                           const Stack* stack = nullptr);

}  // namespace frontier::sim
