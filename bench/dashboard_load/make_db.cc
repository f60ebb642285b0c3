// dashboard_load_db: a results database the size of a year of nightly sweeps, for the
// dashboard's page-load bench (bench/dashboard_load/dashboard_load).
//
//   build/bench/dashboard_load/dashboard_load_db OUT.db [nights] [systems] [loads] [reps]
//
// Defaults: 20 nights x 50 systems = 1,000 runs, each of 10 loads x 2 repetitions =
// 20,000 points, each with 16 request rows and a full vLLM-named summary, written through
// the Store interface as a sweep writes them (one transaction per point). The figures
// follow a plausible shape (throughput falls as interactivity rises, nightly drift) so
// the plots look like real ones; they are not measurements.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "metrics/summary.h"
#include "store/records.h"
#include "store/store.h"

int main(int argc, char** argv) {
  using namespace frontier;
  if (argc < 2) {
    std::fprintf(stderr, "usage: dashboard_load_db OUT.db [nights] [systems] [loads] [reps]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int nights = argc > 2 ? std::atoi(argv[2]) : 20;
  const int systems = argc > 3 ? std::atoi(argv[3]) : 50;
  const int loads = argc > 4 ? std::atoi(argv[4]) : 10;
  const int reps = argc > 5 ? std::atoi(argv[5]) : 2;
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path + ext);
  auto store = store::OpenStore(path);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  const char* hardware[] = {"h100-sxm", "h200", "b200", "gb200", "mi300x", "mi325x", "mi355x"};
  const char* models[] = {"llama-3.1-70b", "llama-3.1-8b", "deepseek-r1", "gpt-oss-120b", "qwen3-235b-a22b"};
  const char* engines[] = {"vllm", "sglang", "trtllm"};
  const char* precisions[] = {"fp8", "fp4", "bf16"};
  const auto t0 = std::chrono::steady_clock::now();
  int64_t points = 0;
  for (int night = 0; night < nights; ++night) {
    char date[32];
    std::snprintf(date, sizeof date, "2026-%02d-%02dT02:00:00Z", 1 + night / 28, 1 + night % 28);
    for (int s = 0; s < systems; ++s) {
      store::RunInfo run;
      run.sweep = "nightly";
      run.plan_hash = "night-" + std::to_string(night);
      run.plan_text = "name: nightly\n# night " + std::to_string(night) + "\n";
      run.system = std::string(hardware[s % 7]) + "-" + models[s % 5] + "-" + std::to_string(s);
      run.source = s % 10 == 9 ? store::Source::kMeasured : store::Source::kSimulated;
      run.created_utc = date;
      run.config = {{"hardware", hardware[s % 7]}, {"gpus", "8"}, {"model", models[s % 5]},
                    {"precision", precisions[s % 3]}, {"engine", engines[s % 3]},
                    {"engine_version", "0." + std::to_string(8 + night / 7)}, {"tp", "8"}};
      run.provenance = {{"plan_file", "plans/nightly.yaml"},
                        {"command_line", "frontier sweep plans/nightly.yaml --db nightly.db --resume"},
                        {"planned_points", std::to_string(loads * reps)}};
      auto created = (*store)->CreateRun(run);
      if (!created.ok()) {
        std::fprintf(stderr, "%s\n", created.status().ToString().c_str());
        return 1;
      }
      const double scale = (1.0 + 0.2 * (s % 7)) * (1.0 + 0.01 * night);
      for (int l = 0; l < loads; ++l) {
        const double conc = std::pow(2.0, l);
        for (int r = 0; r < reps; ++r) {
          const double jitter = 1.0 + 0.02 * ((r * 7 + l * 3 + s) % 5 - 2);
          metrics::Summary sum;
          sum.completed = static_cast<int64_t>(conc) * 10;
          sum.total_input_tokens = sum.completed * 1024;
          sum.total_output_tokens = sum.completed * 1024;
          sum.duration_s = 60;
          sum.interactivity = 200.0 / (1.0 + 0.15 * std::log2(conc) * std::log2(conc)) * jitter;
          sum.total_token_throughput_per_gpu = 120.0 * scale * conc / (1.0 + conc / 96.0) * jitter;
          sum.output_throughput_per_gpu = sum.total_token_throughput_per_gpu / 2;
          sum.total_token_throughput = sum.total_token_throughput_per_gpu * 8;
          sum.output_throughput = sum.output_throughput_per_gpu * 8;
          sum.request_throughput = static_cast<double>(sum.completed) / sum.duration_s;
          sum.max_concurrent_requests = static_cast<int64_t>(conc);
          for (auto* d : {&sum.ttft_ms, &sum.tpot_ms, &sum.itl_ms, &sum.e2el_ms}) {
            const double base = d == &sum.ttft_ms ? 20 + conc : d == &sum.e2el_ms ? 1000 + 10 * conc : 1000.0 / sum.interactivity;
            d->mean = base * 1.05;
            d->median = base;
            d->std = base * 0.1;
            d->percentiles = {{50, base}, {90, base * 1.2}, {95, base * 1.3}, {99, base * 1.5}, {99.9, base * 1.7}};
            d->count = static_cast<size_t>(sum.completed);
          }
          store::PointRecord p;
          p.run_id = created->id;
          p.workload = "1k1k";
          p.load_kind = store::LoadKind::kConcurrency;
          p.load_value = conc;
          p.repetition = r;
          p.key = store::PointKey(p.workload, p.load_kind, conc, r);
          p.source = run.source;
          p.created_utc = date;
          p.settings = {{"input_len", "1024"}, {"output_len", "1024"}, {"seed", std::to_string(r)},
                        {"num_prompts", std::to_string(sum.completed)}};
          p.num_gpus = 8;
          p.metrics = sum;
          p.summary_json = store::SummaryToJson(sum);
          std::vector<store::RequestRow> rows(16);
          for (int i = 0; i < 16; ++i) {
            rows[i].idx = i;
            rows[i].ok = true;
            rows[i].prompt_tokens = rows[i].output_tokens = 1024;
            rows[i].events = 1024;
            rows[i].scheduled_ns = rows[i].sent_ns = int64_t{i} * 100'000'000;
            rows[i].first_token_ns = rows[i].sent_ns + static_cast<int64_t>(sum.ttft_ms.median * 1e6);
            rows[i].end_ns = rows[i].first_token_ns + static_cast<int64_t>(1023 * sum.tpot_ms.median * 1e6);
          }
          auto added = (*store)->AddPoint(p, rows);
          if (!added.ok()) {
            std::fprintf(stderr, "%s\n", added.status().ToString().c_str());
            return 1;
          }
          ++points;
        }
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("built %s: %d runs, %lld points, %lld request rows in %.1f s (%.1f MiB)\n", path.c_str(),
              nights * systems, static_cast<long long>(points), static_cast<long long>(points * 16), secs,
              static_cast<double>(std::filesystem::file_size(path)) / (1 << 20));
  return 0;
}
