// test_db.h: a results database with known numbers for the dashboard's tests.
//
// Run 1 "nightly/h200" (measured, vllm 0.9, fp8, 8 x h200), workload 1k1k,
// concurrency 1, 4, 16, two repetitions each:
//   conc  interactivity   total tok/s/GPU   output   median TTFT ms
//     1     100, 102         100, 110        50, 55     10, 12
//     4      80,  80         300, 310       150, 155    20, 20
//    16      40,  42         800, 820       400, 410    50, 54
// Run 2 "nightly/mi325x" (measured, sglang 0.4, fp8, 8 x mi325x), the same
// points with both repetitions equal: (90, 90), (70, 250), (35, 600).
// Run 3: an imported run whose system name is "<script>alert(1)</script>".
// Point 1 (run 1, concurrency 1, rep 0) has four requests: sent at 0, 1, 2, 3 s,
// first token 50, 60, 70, 80 ms later, 11 output tokens in 11 events, ending
// 1050, 1060, 1070, 1080 ms after they were sent (so TPOT = ITL = 100 ms).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "store/store.h"
#include "util/scratch.h"

namespace frontier::dashboard::testing {

inline store::PointRecord KnownPoint(int64_t run_id, double conc, int rep, double interactivity,
                                     double total, double output, double ttft) {
  store::PointRecord p;
  p.run_id = run_id;
  p.workload = "1k1k";
  p.load_kind = store::LoadKind::kConcurrency;
  p.load_value = conc;
  p.repetition = rep;
  p.key = store::PointKey(p.workload, p.load_kind, conc, rep);
  p.source = store::Source::kMeasured;
  p.settings = {{"seed", std::to_string(rep)}, {"input_len", "1024"}};
  p.num_gpus = 8;
  p.metrics.completed = 4;
  p.metrics.interactivity = interactivity;
  p.metrics.total_token_throughput_per_gpu = total;
  p.metrics.output_throughput_per_gpu = output;
  p.metrics.ttft_ms.median = ttft;
  p.metrics.tpot_ms.median = 1000.0 / interactivity;
  p.summary_json =
      R"({"mean_ttft_ms": 65.0, "median_ttft_ms": 65.0, "p99_ttft_ms": 79.7, "mean_tpot_ms": 100.0,)"
      R"( "median_tpot_ms": 100.0, "p99_tpot_ms": 100.0})";
  return p;
}

inline std::vector<store::RequestRow> KnownRequests() {
  std::vector<store::RequestRow> rows;
  for (int i = 0; i < 4; ++i) {
    store::RequestRow r;
    r.idx = i;
    r.ok = true;
    r.prompt_tokens = 1024;
    r.output_tokens = 11;
    r.events = 11;
    r.scheduled_ns = r.sent_ns = int64_t{i} * 1'000'000'000;
    r.first_token_ns = r.sent_ns + (50 + 10 * i) * int64_t{1'000'000};
    r.end_ns = r.first_token_ns + 1000 * int64_t{1'000'000};
    rows.push_back(r);
  }
  return rows;
}

// Fills `store` as described above.
inline void FillKnownDb(store::Store& store) {
  auto run = [&](const std::string& system, const std::string& hw, const std::string& engine,
                 const std::string& version, const std::string& created) {
    store::RunInfo r;
    r.sweep = "nightly";
    r.plan_hash = "abc";
    r.plan_text = "name: nightly\n";
    r.system = system;
    r.source = store::Source::kMeasured;
    r.created_utc = created;
    r.config = {{"hardware", hw}, {"gpus", "8"}, {"model", "llama-3.1-70b"}, {"precision", "fp8"},
                {"engine", engine}, {"engine_version", version}};
    r.provenance = {{"plan_file", "plans/nightly.yaml"},
                    {"command_line", "frontier sweep plans/nightly.yaml --db nightly.db"},
                    {"planned_points", "6"}};
    return store.CreateRun(r)->id;
  };
  const int64_t a = run("h200", "h200", "vllm", "0.9", "2026-01-10T00:00:00Z");
  const int64_t b = run("mi325x", "mi325x", "sglang", "0.4", "2026-01-11T00:00:00Z");
  struct Row { double conc, x0, x1, t0, t1, o0, o1, f0, f1; };
  const Row rows_a[] = {{1, 100, 102, 100, 110, 50, 55, 10, 12},
                        {4, 80, 80, 300, 310, 150, 155, 20, 20},
                        {16, 40, 42, 800, 820, 400, 410, 50, 54}};
  for (const auto& r : rows_a) {
    (void)store.AddPoint(KnownPoint(a, r.conc, 0, r.x0, r.t0, r.o0, r.f0),
                         r.conc == 1 ? KnownRequests() : std::vector<store::RequestRow>{});
    (void)store.AddPoint(KnownPoint(a, r.conc, 1, r.x1, r.t1, r.o1, r.f1), {});
  }
  const double rows_b[][3] = {{1, 90, 90}, {4, 70, 250}, {16, 35, 600}};
  for (const auto& r : rows_b)
    for (int rep = 0; rep < 2; ++rep)
      (void)store.AddPoint(KnownPoint(b, r[0], rep, r[1], r[2], r[2] / 2, 30), {});
  store::RunInfo c;
  c.sweep = "import";
  c.system = "<script>alert(1)</script>";
  c.source = store::Source::kImported;
  c.created_utc = "2026-01-12T00:00:00Z";
  c.config = {{"hardware", "x"}, {"model", "<b>m</b>"}};
  c.provenance = {{"file", "evil.json"}, {"format", "inferencex agg"}};
  const int64_t ci = store.CreateRun(c)->id;
  (void)store.AddPoint(KnownPoint(ci, 1, 0, 50, 50, 25, 5), {});
}

// A known database for the running test: the writer that filled it (a sweep
// may go on writing through it) and a read-only store over it, as the
// dashboard opens it. The database lives in `dir`, removed with it: keep
// `dir` until both stores are closed.
struct KnownDb {
  std::unique_ptr<testing_util::ScratchDir> dir;
  std::string path;
  std::unique_ptr<store::Store> writer, reader;
};

inline KnownDb OpenKnownDb() {
  KnownDb db;
  db.dir = std::make_unique<testing_util::ScratchDir>(
      std::string("dashboard_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  db.path = db.dir->Path("known.db");
  auto w = store::OpenStore(db.path);
  if (!w.ok()) return db;
  FillKnownDb(**w);
  db.writer = std::move(*w);
  auto r = store::OpenStore(db.path, store::OpenMode::kReadOnly);
  if (r.ok()) db.reader = std::move(*r);
  return db;
}

}  // namespace frontier::dashboard::testing
