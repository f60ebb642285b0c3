// store_speed: figures for the results store and the report, not a pass/fail test.
//
//   build/bench/store_speed/store_speed [points] [requests_per_point]
//
// Writes `points` points of `requests_per_point` request rows each into a
// fresh SQLite file (one transaction per point, as a sweep does), then reads
// them back, builds the report model and renders the HTML.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "report/html.h"
#include "report/model.h"
#include "store/store.h"

namespace {

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace frontier;
  const int points = argc > 1 ? std::atoi(argv[1]) : 54;
  const int per_point = argc > 2 ? std::atoi(argv[2]) : 2560;
  const auto path = std::filesystem::temp_directory_path() / "frontier_store_speed.db";
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + "-wal");
  auto store = store::OpenStore(path.string());
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  store::RunInfo run;
  run.sweep = "bench";
  run.system = "s";
  run.config = {{"hardware", "h200"}, {"gpus", "8"}};
  const int64_t run_id = (*store)->CreateRun(run)->id;
  std::vector<store::RequestRow> rows(static_cast<size_t>(per_point));
  for (int i = 0; i < per_point; ++i) {
    rows[i].idx = i;
    rows[i].ok = true;
    rows[i].prompt_tokens = 1024;
    rows[i].output_tokens = 1024;
    rows[i].sent_ns = i * 1000;
    rows[i].first_token_ns = i * 1000 + 30'000'000;
    rows[i].end_ns = i * 1000 + 5'000'000'000;
    rows[i].events = 1024;
  }
  auto t0 = std::chrono::steady_clock::now();
  for (int p = 0; p < points; ++p) {
    store::PointRecord pt;
    pt.run_id = run_id;
    pt.workload = "w";
    pt.load_value = 1 + p;
    pt.key = store::PointKey("w", store::LoadKind::kConcurrency, pt.load_value, 0);
    pt.metrics.interactivity = 1000.0 / (1 + p);
    pt.metrics.total_token_throughput_per_gpu = 10.0 * (1 + p);
    if (auto r = (*store)->AddPoint(pt, rows); !r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      return 1;
    }
  }
  const double write_s = Since(t0);
  t0 = std::chrono::steady_clock::now();
  auto rep = report::BuildReport(**store, {});
  const double build_s = Since(t0);
  t0 = std::chrono::steady_clock::now();
  const std::string html = report::RenderHtml(*rep);
  const double html_s = Since(t0);
  std::printf("store_speed: %d points x %d request rows into SQLite (WAL, one transaction per point)\n",
              points, per_point);
  std::printf("  write:  %.3f s  (%.1f ms per point, %.0f request rows/s)\n", write_s,
              1e3 * write_s / points, static_cast<double>(points) * per_point / write_s);
  std::printf("  report model: %.3f s; HTML render: %.3f s (%zu bytes)\n", build_s, html_s, html.size());
  std::printf("  database size: %.1f MB\n",
              static_cast<double>(std::filesystem::file_size(path) +
                                  (std::filesystem::exists(path.string() + "-wal")
                                       ? std::filesystem::file_size(path.string() + "-wal")
                                       : 0)) / 1e6);
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + "-wal");
  std::filesystem::remove(path.string() + "-shm");
  return 0;
}
