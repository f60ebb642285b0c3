// `frontier bench`: benchmark an OpenAI-compatible streaming endpoint.
// Parsing and presentation only; the work is sweep::BenchJob (loadgen::RunBenchmark
// below it) and, for `bench merge`, loadgen::MergeShardRun.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/target_flags.h"
#include "cli/workload_flags.h"
#include "core/redact.h"
#include "loadgen/metrics_scraper.h"
#include "loadgen/runner.h"
#include "loadgen/shard.h"
#include "loadgen/verdict.h"
#include "metrics/summary_text.h"
#include "sweep/as_plan.h"
#include "sweep/bench_job.h"

namespace frontier::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void OnSigint(int) {
  if (g_stop.load()) std::_Exit(130);  // a second Ctrl-C: leave now
  g_stop.store(true);
}

// The live progress line (stderr, terminals only).
struct ProgressLine final : loadgen::Observer {
  explicit ProgressLine(bool on) : enabled(on) {}
  void OnProgress(const loadgen::Progress& p) override {
    if (!enabled) return;
    std::fprintf(stderr, "\r\033[K%s", loadgen::ProgressText(p).c_str());
    std::fflush(stderr);
    shown = true;
  }
  void Finish() const { if (shown) std::fprintf(stderr, "\n"); }
  bool enabled, shown = false;
};

// `frontier bench merge A.jsonl B.jsonl ...`: the shards of one run as one result.
int RunBenchMerge(int argc, char** argv) {
  CLI::App app{"Merge the per-request records of `frontier bench --shard` runs into one result", "bench merge"};
  std::vector<std::string> files;
  std::string result_json, percentiles = "50,90,95,99,99.9";
  app.add_option("jsonl", files, "Every shard's --requests-jsonl file (each with its .shard.json beside it)")
      ->required();
  app.add_option("--result-json", result_json, "Write the merged result JSON here (atomically)");
  app.add_option("--percentiles", percentiles, "Comma-separated percentiles to report [50,90,95,99,99.9]");
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  auto m = loadgen::MergeShardRun(files, percentiles, CommandLine(argc, argv));
  if (!m.ok()) return Fail("bench merge", m.status());
  std::cout << metrics::SummaryText(m->merged.run, m->summary);
  std::cout << loadgen::MergedShardsText(m->merged);
  if (!result_json.empty()) {
    if (Status st = loadgen::WriteMergedResultJson(result_json, m->merged, m->summary, m->options); !st.ok())
      return Fail("bench merge", st);
    std::cerr << "frontier bench merge: wrote " << result_json << "\n";
  }
  return m->summary.completed > 0 ? 0 : 1;
}

// Every flag of `frontier bench`, as parsed.
struct BenchFlags {
  TargetFlags tf;
  WorkloadFlags wf;
  DbFlags db;
  bool no_progress = false;
  sweep::BenchRequest req;  // the rest; model, vocab_size, db and scrape copied after parsing
};

// In --help's order: target, measurement, workload, shards, results.
void AddBenchFlags(CLI::App& app, BenchFlags* f) {
  AddTargetFlags(app, &f->tf, /*with_model=*/true);
  app.add_flag("--no-progress", f->no_progress, "No live progress line")->group("Output");
  auto bench_rows = [&app, f](bool shards) {
    for (const FlagRow<sweep::BenchRequest>& row : sweep::BenchFlagRows())
      if ((row.group == std::string_view("Shards")) == shards) AddFlagRow(app, row, &f->req);
  };
  bench_rows(/*shards=*/false);
  AddWorkloadFlags(app, &f->wf);
  bench_rows(/*shards=*/true);
  app.get_option("--scrape-metrics")->expected(0, 1);
  app.get_option("--rendezvous-timeout")->check(CLI::Range(1.0, 86400.0));
  AddDbFlags(app, &f->db,
             "the point is stored as a run of its own when it ends: summary, verdict (with --scenario or --slo), "
             "per-request rows and series, source measured",
             "bench");
}

// Prints the point, stores it (--db) and returns the exit status.
int FinishBenchmark(sweep::BenchJob& job, const loadgen::PointOutcome& out) {
  if (Status st = job.WriteShardMeta(out.run); !st.ok()) return Fail("bench", st);
  std::cout << metrics::SummaryText(out.run, out.summary) << metrics::EnergyText(out.run, out.summary);
  if (out.run.server_metrics) std::cout << loadgen::ServerMetricsText(*out.run.server_metrics);
  if (out.verdict) std::cout << loadgen::FormatVerdict(*out.verdict, *job.rules());
  if (Status st = job.Finish(out); !st.ok()) return Fail("bench", st);
  if (out.run.interrupted) return 130;
  if (out.summary.completed == 0) {
    std::cerr << "frontier bench: every request failed:\n" << metrics::TopFailureReasons(out.run);
    return 1;
  }
  return 0;
}

// Resolves the workload and the job the flags name, and starts storing the point (--db).
Result<sweep::BenchJob> StartBenchmark(BenchFlags& f) {
  FRONTIER_ASSIGN_OR_RETURN(ResolvedWorkload w, ResolveWorkload(f.wf));
  auto target = [&f](const ResolvedWorkload& rw) { return ResolveTarget(f.tf, f.tf.model, rw); };
  auto note = [](const std::string& line) { std::cerr << "frontier bench: " << line << "\n"; };
  FRONTIER_ASSIGN_OR_RETURN(sweep::BenchJob job, sweep::BenchJob::Resolve(f.req, std::move(w), target, note));
  // Opened before anything is sent: a database that cannot be written fails now, not after the measurement.
  if (!f.db.db.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(sweep::PointSink sink,
                              sweep::StartPointSink("bench", f.db, job.StoredRun(), std::cerr));
    job.Store(std::move(sink));
  }
  FRONTIER_RETURN_IF_ERROR(job.MeetShards());
  return job;
}

int RunBench(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "merge") return RunBenchMerge(argc - 1, argv + 1);
  CLI::App app{"Benchmark an OpenAI-compatible streaming endpoint (vLLM-compatible metrics)", "bench"};
  app.footer("Also: frontier bench merge SHARD.jsonl... --result-json FILE  (see docs/scale-out.md)");
  BenchFlags f;
  AddBenchFlags(app, &f);
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  f.req.model = f.tf.model;
  f.wf.over_http = true;
  f.req.vocab_size = f.tf.vocab_size;
  f.req.command_line = CommandLine(argc, argv);
  f.req.db = f.db.db;
  f.req.scrape = app.count("--scrape-metrics") > 0;
  std::string bad = CheckDbFlags(app, f.db);
  if (bad.empty()) bad = sweep::BenchRequestProblem(f.req, GivenIn(app));
  if (!bad.empty()) return UsageError("bench", bad);
  if (f.req.as_plan) return Fail("bench", sweep::PrintPlan(sweep::BenchPlan(f.req, f.tf, ResolveWorkload(f.wf), f.wf)));
  Result<sweep::BenchJob> job = StartBenchmark(f);
  if (!job.ok()) return Fail("bench", job.status());
  std::signal(SIGINT, OnSigint);
  ProgressLine progress(!f.no_progress && ::isatty(STDERR_FILENO));
  auto out = job->Run(&progress, &g_stop);
  progress.Finish();
  std::signal(SIGINT, SIG_DFL);
  if (!out.ok()) return Fail("bench", out.status());
  return FinishBenchmark(*job, *out);
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(bench, "Benchmark an OpenAI-compatible streaming server",
                          frontier::cli::RunBench);
