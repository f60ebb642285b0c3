// validation.h: published results (data/validation/*.json) and the
// simulator's predictions of them, for `frontier validate` and its tests.
//
// Each result names its conditions (model, hardware, GPUs, TP, precision,
// stack, dataset, scenario). Offline: every sample is queued at once and the
// prediction is output tokens per second. Server: Poisson arrivals; the
// prediction is the output throughput at the highest rate whose p99 TTFT and
// p99 TPOT stay within the scenario's limits (found by bisection), with the
// median TTFT and TPOT at that rate.
//
// Thread safety: pure functions apart from reading the data files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "sim/data_dir.h"
#include "workload/request_spec.h"

namespace frontier::sim {

struct LengthDistribution {
  std::string name;
  int64_t samples = 0;
  double input_mean = 0, input_range_ratio = 0;   // uniform on [(1-r)m, (1+r)m]
  double output_mean = 0, output_range_ratio = 0;
};

struct PublishedResult {
  std::string id, round, scenario;  // scenario: "offline" or "server"
  std::string model, hardware, precision, stack, dataset;
  int gpus = 8, tp = 1;
  double output_tokens_per_s = 0;
  std::optional<double> median_ttft_ms, median_tpot_ms;
  double ttft_p99_limit_ms = 0, tpot_p99_limit_ms = 0;
  bool calibrate = false;           // used to set its stack's factors
  std::string source;
};

struct ValidationSet {
  std::vector<PublishedResult> results;
  std::vector<LengthDistribution> datasets;
  const LengthDistribution* Dataset(const std::string& name) const;
};

// Reads every file under <data_dir>/validation. Fails naming the file and field.
Result<ValidationSet> LoadValidation(const std::string& data_dir = DefaultDataDir());

// `count` requests drawn from `d` (seeded).
std::vector<workload::RequestSpec> DrawRequests(const LengthDistribution& d, int64_t count, uint64_t seed);

struct ValidationOptions {
  int64_t offline_requests = 0;   // 0: the dataset's sample count
  int64_t server_requests = 4000; // per probe of the rate search
  int server_probes = 9;          // bisection steps
  uint64_t seed = 1;
  std::string data_dir;           // empty: DefaultDataDir()
};

struct Prediction {
  PublishedResult published;
  double output_tokens_per_s = 0;
  double error = 0;               // predicted / published - 1
  std::optional<double> median_ttft_ms, median_tpot_ms;
  double request_rate = 0;        // server: the rate found
};

Result<Prediction> Predict(const PublishedResult& result, const ValidationSet& set,
                           const ValidationOptions& options);

}  // namespace frontier::sim
