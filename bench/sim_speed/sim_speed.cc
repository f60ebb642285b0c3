// sim_speed: wall time of a 12-point concurrency sweep (1, 2, 4, ..., 2048)
// of 2,000 requests a point, and simulated requests per second: point by
// point on one thread (simulation and summaries timed apart), then through
// SweepConcurrency, which `frontier simulate --concurrency` uses, with the
// points spread over the machine's threads.
//
//   build/bench/sim_speed/sim_speed [model hardware tp precision input_len output_len]
//
// Defaults: llama-3.1-70b on h200, TP 8, FP8, 1,024 input and 1,024 output
// tokens (the sweep simulates 24,000 requests and 24.6 million output tokens).
// Simulation (Simulate) and summarising (metrics::Summarize, which takes
// percentiles of every inter-token gap) are timed separately, in wall time and
// in this process's CPU time (the fair figure on a shared machine).
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "metrics/summary.h"
#include "sim/concurrency_sweep.h"
#include "sim/engine/config.h"
#include "sim/simulate.h"
#include "workload/random_dataset.h"

using namespace frontier;

int main(int argc, char** argv) {
  sim::SimSpec spec;
  spec.model = argc > 1 ? argv[1] : "llama-3.1-70b";
  spec.hardware = argc > 2 ? argv[2] : "h200";
  spec.tp = argc > 3 ? std::atoi(argv[3]) : 8;
  spec.precision = argc > 4 ? argv[4] : "fp8";
  const int input_len = argc > 5 ? std::atoi(argv[5]) : 1024;
  const int output_len = argc > 6 ? std::atoi(argv[6]) : 1024;
  Result<sim::SimConfig> config = sim::ResolveSimConfig(spec);
  if (!config.ok()) {
    std::fprintf(stderr, "sim_speed: %s\n", config.status().message().c_str());
    return 1;
  }
  workload::RandomDatasetOptions d;
  d.num_prompts = 2000;
  d.input_len = input_len;
  d.output_len = output_len;
  Result<std::vector<workload::RequestSpec>> requests = workload::MakeRandomDataset(d);
  if (!requests.ok()) return 1;
  for (auto& r : *requests) r.prompt_token_ids.clear();

  using Clock = std::chrono::steady_clock;
  double sim_s = 0, summary_s = 0, sim_cpu_s = 0, summary_cpu_s = 0;
  int64_t simulated = 0, steps = 0, tokens = 0;
  std::printf("%s on %dx %s TP%d %s, %d in / %d out, 2000 requests a point\n", config->model.name.c_str(),
              config->gpus, config->hardware.name.c_str(), config->tp, sim::PrecisionName(config->precision),
              input_len, output_len);
  std::printf("%6s %10s %10s %12s %12s %12s\n", "conc", "steps", "sim ms", "summary ms", "tok/s/GPU", "tok/s/user");
  for (int64_t c = 1; c <= 2048; c *= 2) {
    workload::LoadOptions load;
    load.max_concurrency = c;
    load.num_prompts = 2000;
    sim::SimulationStats st;
    const auto t0 = Clock::now();
    const std::clock_t c0 = std::clock();
    Result<RunResult> run = sim::Simulate(*config, *requests, load, &st);
    const std::clock_t c1 = std::clock();
    const auto t1 = Clock::now();
    if (!run.ok()) return 1;
    metrics::SummaryOptions so;
    so.num_gpus = config->gpus;
    const metrics::Summary s = metrics::Summarize(*run, so);
    const std::clock_t c2 = std::clock();
    const auto t2 = Clock::now();
    sim_cpu_s += static_cast<double>(c1 - c0) / CLOCKS_PER_SEC;
    summary_cpu_s += static_cast<double>(c2 - c1) / CLOCKS_PER_SEC;
    const double a = std::chrono::duration<double>(t1 - t0).count();
    const double b = std::chrono::duration<double>(t2 - t1).count();
    sim_s += a;
    summary_s += b;
    simulated += static_cast<int64_t>(run->requests.size());
    steps += st.steps;
    tokens += s.total_output_tokens;
    std::printf("%6lld %10lld %10.1f %12.1f %12.1f %12.1f\n", static_cast<long long>(c),
                static_cast<long long>(st.steps), a * 1e3, b * 1e3, s.output_throughput_per_gpu, s.interactivity);
  }
  std::printf("12-point sweep, wall: simulation %.3f s (%.0f requests/s, %.1f M steps/s, %.1f M tokens/s), "
              "summaries %.3f s, total %.3f s\n",
              sim_s, simulated / sim_s, steps / sim_s / 1e6, tokens / sim_s / 1e6, summary_s, sim_s + summary_s);
  std::printf("12-point sweep, CPU time of this process (one thread): simulation %.3f s (%.0f requests/s), "
              "summaries %.3f s, total %.3f s\n",
              sim_cpu_s, simulated / sim_cpu_s, summary_cpu_s, sim_cpu_s + summary_cpu_s);
  // The same sweep as `frontier simulate --concurrency 1,2,...,2048` runs it.
  std::vector<int64_t> levels;
  for (int64_t c = 1; c <= 2048; c *= 2) levels.push_back(c);
  workload::LoadOptions load;
  load.num_prompts = 2000;
  for (int threads : {1, 0}) {
    sim::SweepOptions sweep;
    sweep.point.summary.num_gpus = config->gpus;
    sweep.threads = threads;
    sweep.min_rounds = 0;  // 2,000 requests at every point, as above
    const auto t0 = Clock::now();
    Result<std::vector<sim::SweepPoint>> points =
        sim::SweepConcurrency(*config, *requests, load, levels, sweep);
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!points.ok()) return 1;
    std::printf("12-point sweep through SweepConcurrency, %s: wall %.3f s (simulation and summaries)\n",
                threads == 1 ? "1 thread" : (std::to_string(std::thread::hardware_concurrency()) + " threads").c_str(),
                wall);
  }
  return 0;
}
