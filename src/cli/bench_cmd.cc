// `frontier bench`: benchmark an OpenAI-compatible streaming endpoint.
// Parsing and presentation only; the work is loadgen::RunBenchmark.
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <tuple>

#include <fmt/format.h>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/summary_print.h"
#include "cli/target_flags.h"
#include "cli/workload_flags.h"
#include "loadgen/benchmark.h"
#include "loadgen/verdict.h"
#include "metrics/result_json.h"
#include "sim/data_dir.h"
#include "workload/dataset.h"

namespace frontier::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void OnSigint(int) {
  if (g_stop.load()) std::_Exit(130);  // a second Ctrl-C: leave now
  g_stop.store(true);
}

std::string Clock(double s) {
  if (!(s >= 0) || std::isinf(s)) return "--:--";
  const auto t = static_cast<int64_t>(s);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)
                   : fmt::format("{:02}:{:02}", t / 60, t % 60);
}

// The live progress line (stderr, terminals only).
class ProgressLine final : public loadgen::Observer {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  void OnProgress(const loadgen::Progress& p) override {
    if (!enabled_) return;
    const double elapsed = NanosToSeconds(p.elapsed_ns);
    const int64_t done = p.completed + p.failed;
    std::string line;
    if (p.warmup_left > 0) {
      line = fmt::format("warm-up: {} requests left", p.warmup_left);
    } else {
      const double rate = elapsed > 0 ? done / elapsed : 0;
      double eta = -1;
      std::string total = "?";
      if (p.total >= 0) {
        total = std::to_string(p.total);
        if (rate > 0) eta = (p.total - done) / rate;
      }
      if (p.duration_s > 0) eta = eta < 0 ? p.duration_s - elapsed : std::min(eta, p.duration_s - elapsed);
      line = fmt::format("{}/{} done  {:.2f} req/s  in flight {}  elapsed {}  ETA {}  errors {}", done,
                         total, rate, p.in_flight, Clock(elapsed), Clock(eta), p.failed);
    }
    if (p.stopping) line += "  (stopping: waiting for requests in flight)";
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void Finish() {
    if (shown_) std::fprintf(stderr, "\n");
  }

 private:
  bool enabled_;
  bool shown_ = false;
};

int RunBench(int argc, char** argv) {
  CLI::App app{"Benchmark an OpenAI-compatible streaming endpoint (vLLM-compatible metrics)", "bench"};
  TargetFlags tf;
  AddTargetFlags(app, &tf, /*with_model=*/true);
  bool no_progress = false;
  app.add_flag("--no-progress", no_progress, "No live progress line")->group("Output");
  std::string scrape_url;
  double scrape_interval_s = 1.0;
  CLI::Option* scrape = app.add_option("--scrape-metrics", scrape_url,
                                       "Sample the server's Prometheus metrics during the run (KV-cache use, "
                                       "running/waiting, preemptions, prefix-cache hits) into the result's "
                                       "server_metrics; URL [--base-url + /metrics]")
                            ->expected(0, 1)
                            ->group("Output");
  app.add_option("--scrape-interval", scrape_interval_s, "Seconds between --scrape-metrics samples [1]")
      ->group("Output");
  WorkloadFlags wf;
  AddWorkloadFlags(app, &wf);
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (!(scrape_interval_s >= 0.05 && scrape_interval_s <= 3600))
    return UsageError("bench", "--scrape-interval must be a number of seconds in [0.05, 3600], got " +
                                   std::to_string(scrape_interval_s));

  auto w = ResolveWorkload(wf);
  if (!w.ok()) return Fail("bench", w.status());
  // The scenario's benchmark follows from the served model's name unless --mlperf-benchmark names it.
  auto rules = ResolveScenarioRules(*w, sim::DefaultDataDir(), tf.model);
  if (!rules.ok()) return Fail("bench", rules.status());
  if (*rules) {
    if (Status s = ApplyScenarioLoad(**rules, &*w); !s.ok()) return Fail("bench", s);
  }
  auto resolved = ResolveTarget(tf, tf.model, *w);
  if (!resolved.ok()) return Fail("bench", resolved.status());
  loadgen::BenchOptions& o = *resolved;
  o.command_line = CommandLine(argc, argv);
  if (*rules) o.rules = **rules;
  if (scrape->count() > 0) {
    std::string base = o.client.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    o.scrape_metrics_url = scrape_url.empty() ? base + "/metrics" : scrape_url;
    o.scrape_period_ns = static_cast<Nanos>(scrape_interval_s * kNanosPerSecond);
    o.effective_settings["scrape_metrics"] = o.scrape_metrics_url;
    o.effective_settings["scrape_interval_s"] = std::to_string(scrape_interval_s);
  }
  const std::string vocab_note =
      loadgen::ResolveVocabulary(o.client, tf.vocab_size, &w->dataset, &o.effective_settings);
  if (!vocab_note.empty()) std::cerr << "frontier bench: " << vocab_note << "\n";

  auto specs = workload::LoadDataset(w->dataset);
  if (!specs.ok()) return Fail("bench", specs.status());

  std::signal(SIGINT, OnSigint);
  ProgressLine progress(!no_progress && ::isatty(STDERR_FILENO));
  auto out = loadgen::RunBenchmark(o, *specs, w->load, &progress, &g_stop);
  progress.Finish();
  std::signal(SIGINT, SIG_DFL);
  if (!out.ok()) return Fail("bench", out.status());
  PrintSummary(out->run, out->summary);
  if (const auto& m = out->run.server_metrics) {
    std::cout << "server metrics: " << m->samples.size() << " samples from " << m->source;
    if (m->scrape_failures > 0) std::cout << ", " << m->scrape_failures << " failed (" << m->last_error << ")";
    std::cout << "\n";
    if (m->prefix_cache_hit_rate >= 0) {
      std::cout << "achieved prefix-cache hit rate: " << m->prefix_cache_hit_rate * 100 << "%";
      if (m->prefix_cache_queries >= 0)
        std::cout << " (" << static_cast<long long>(m->prefix_cache_hits) << " of "
                  << static_cast<long long>(m->prefix_cache_queries) << " prompt tokens)";
      std::cout << "\n";
    }
  }
  if (out->verdict) std::cout << loadgen::FormatVerdict(*out->verdict, **rules);
  if (!w->result_json.empty()) std::cerr << "frontier bench: wrote " << w->result_json << "\n";
  if (out->run.interrupted) return 130;
  if (out->summary.completed == 0) {
    std::cerr << "frontier bench: every request failed:\n" << TopFailureReasons(out->run);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(bench, "Benchmark an OpenAI-compatible streaming server",
                          frontier::cli::RunBench);
