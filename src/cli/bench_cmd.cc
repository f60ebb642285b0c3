// `frontier bench`: benchmark an OpenAI-compatible streaming endpoint.
// Parsing and presentation only; the work is loadgen::RunBenchmark.
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/summary_print.h"
#include "cli/target_flags.h"
#include "cli/workload_flags.h"
#include "core/redact.h"
#include "loadgen/benchmark.h"
#include "loadgen/point.h"
#include "loadgen/shard.h"
#include "loadgen/verdict.h"
#include "metrics/result_json.h"
#include "power/open.h"
#include "sim/engine/data_dir.h"
#include "store/records.h"
#include "sweep/system_run.h"
#include "workload/dataset.h"
#include "workload/dataset_label.h"

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
    const int64_t done = p.completed + p.failed + p.cancelled;
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
  metrics::SummaryOptions so;
  so.percentiles.clear();
  for (size_t at = 0; at <= percentiles.size();) {
    const size_t comma = std::min(percentiles.find(',', at), percentiles.size());
    char* end = nullptr;
    const std::string item = percentiles.substr(at, comma - at);
    const double p = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(p > 0 && p < 100))
      return UsageError("bench merge", "--percentiles " + percentiles + ": '" + item +
                                           "' is not a percentile in (0, 100); e.g. 50,90,99");
    so.percentiles.push_back(p);
    at = comma + 1;
  }
  auto merged = loadgen::MergeShards(files);
  if (!merged.ok()) return Fail("bench merge", merged.status());
  so.num_gpus = merged->run.num_gpus;
  merged->run.command_line = CommandLine(argc, argv);
  const metrics::Summary summary = metrics::Summarize(merged->run, so);
  PrintSummary(merged->run, summary);
  std::cout << fmt::format("Shards: {}; clock offsets from shard 0 measured at the rendezvous:\n", files.size());
  for (const auto& sh : merged->shards) {
    std::cout << fmt::format("  shard {} on {}: {} requests, offset {:+.3f} ms +/- {:.3f} ms\n",
                             sh["index"].get<int64_t>(), sh["host"].get<std::string>(), sh["requests"].get<int64_t>(),
                             sh["clock_offset_ms"].get<double>(), sh["clock_offset_bound_ms"].get<double>());
  }
  std::cout << fmt::format("Times across shards are known to within {:.3f} ms (the largest bound)\n",
                           merged->clock_offset_bound_ms);
  if (!result_json.empty()) {
    if (Status st = loadgen::WriteMergedResultJson(result_json, *merged, summary, so); !st.ok())
      return Fail("bench merge", st);
    std::cerr << "frontier bench merge: wrote " << result_json << "\n";
  }
  return summary.completed > 0 ? 0 : 1;
}

// Every flag of `frontier bench`, as parsed.
struct BenchFlags {
  TargetFlags tf;
  WorkloadFlags wf;
  DbFlags db;
  bool no_progress = false;
  std::string scrape_url;
  double scrape_interval_s = 1.0;
  CLI::Option* scrape = nullptr;  // --scrape-metrics, given with or without a URL
  std::string power_kind = "auto", power_url;
  double power_interval_s = 0.1;
  std::string shard_flag, rendezvous = "127.0.0.1:29517", rendezvous_token;
  double rendezvous_timeout = 60;
};

void AddMeasurementFlags(CLI::App& app, BenchFlags* f) {
  app.add_flag("--no-progress", f->no_progress, "No live progress line")->group("Output");
  f->scrape = app.add_option("--scrape-metrics", f->scrape_url,
                             "Sample the server's Prometheus metrics during the run (KV-cache use, "
                             "running/waiting, preemptions, prefix-cache hits) into the result's "
                             "server_metrics; URL [--base-url + /metrics]")
                  ->expected(0, 1)
                  ->group("Output");
  app.add_option("--scrape-interval", f->scrape_interval_s, "Seconds between --scrape-metrics samples [1]")
      ->group("Output");
  app.add_option("--power", f->power_kind,
                 "Measure the GPUs' energy during the run: auto (NVML, else ROCm SMI, else the DCGM exporter at "
                 "--power-url), nvml, amdsmi, rapl (the host's CPU packages and DRAM), scrape (--power-url), off; "
                 "without a source tokens per joule are the TDP bound [auto]")
      ->group("Energy");
  app.add_option("--power-interval", f->power_interval_s, "Seconds between power readings [0.1]")->group("Energy");
  app.add_option("--power-url", f->power_url,
                 "A DCGM exporter's /metrics (DCGM_FI_DEV_POWER_USAGE, DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION) "
                 "for --power scrape or auto [the --scrape-metrics URL]")
      ->group("Energy");
}

void AddShardFlags(CLI::App& app, BenchFlags* f) {
  app.add_option("--shard", f->shard_flag,
                 "Run shard INDEX/COUNT of the schedule (0-based), e.g. 1/4; default from OMPI_COMM_WORLD_RANK/SIZE "
                 "or, in an srun step, SLURM_PROCID/SLURM_NTASKS. Needs --requests-jsonl; join with `bench merge`")
      ->group("Shards");
  app.add_option("--rendezvous", f->rendezvous,
                 "HOST:PORT where shard 0 listens and the others meet it to agree on the start [127.0.0.1:29517]")
      ->group("Shards");
  app.add_option("--rendezvous-timeout", f->rendezvous_timeout, "Seconds to wait for every shard [60]")
      ->check(CLI::Range(1.0, 86400.0))
      ->group("Shards");
  app.add_option("--rendezvous-token", f->rendezvous_token,
                 "A secret every shard of the run shares; the shards prove it to each other (HMAC) and ignore "
                 "peers that cannot [$FRONTIER_RENDEZVOUS_TOKEN, else one derived from the schedule, which keeps "
                 "other runs' shards out but not a peer that knows the schedule]")
      ->group("Shards");
}

void AddBenchFlags(CLI::App& app, BenchFlags* f) {
  AddTargetFlags(app, &f->tf, /*with_model=*/true);
  AddMeasurementFlags(app, f);
  AddWorkloadFlags(app, &f->wf);
  AddShardFlags(app, f);
  AddDbFlags(app, &f->db,
             "the point is stored as a run of its own when it ends: summary, verdict (with --scenario or --slo), "
             "per-request rows and series, source measured",
             "bench");
}

// The usage errors the flags show alone; "" when they fit together.
std::string BenchUsageProblem(const CLI::App& app, const BenchFlags& f) {
  if (std::string bad = CheckDbFlags(app, f.db); !bad.empty()) return bad;
  if (!(f.scrape_interval_s >= 0.05 && f.scrape_interval_s <= 3600))
    return "--scrape-interval must be a number of seconds in [0.05, 3600], got " + std::to_string(f.scrape_interval_s);
  const std::optional<power::PowerKind> power_choice = power::ParsePowerKind(f.power_kind);
  if (!power_choice)
    return "--power must be one of " + std::string(power::kPowerKinds) + ", got '" + f.power_kind + "'";
  if (!(f.power_interval_s >= power::kMinPowerIntervalS && f.power_interval_s <= power::kMaxPowerIntervalS))
    return fmt::format("--power-interval must be a number of seconds in [{}, {}], got {}", power::kMinPowerIntervalS,
                       power::kMaxPowerIntervalS, f.power_interval_s);
  if (*power_choice == power::PowerKind::kScrape && f.power_url.empty() && f.scrape->count() == 0)
    return "--power scrape needs --power-url http://HOST:9400/metrics (a DCGM exporter)";
  return "";
}

// A shard's part of the load: its position, and its share of the cap.
Status ApplyShard(const loadgen::ShardSpec& sh, const DbFlags& db, ResolvedWorkload* w) {
  if (w->requests_jsonl.empty())
    return InvalidArgument("--shard needs --requests-jsonl FILE (one per shard): `bench merge` joins them");
  if (!db.db.empty())
    return InvalidArgument("--db with --shard: a shard holds part of the run; store the merged result "
                           "(`bench merge --result-json FILE`, then `frontier db import FILE`)");
  return loadgen::ShareLoad(sh, &w->load);
}

// The server's metrics and the GPUs' power, as the flags ask.
Status ConfigureMeasurement(const BenchFlags& f, bool sharded, loadgen::BenchOptions* o) {
  if (f.scrape->count() > 0) {
    std::string base = o->client.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    o->scrape_metrics_url = f.scrape_url.empty() ? base + "/metrics" : f.scrape_url;
    o->scrape_period_ns = static_cast<Nanos>(f.scrape_interval_s * kNanosPerSecond);
    o->effective_settings["scrape_metrics"] = o->scrape_metrics_url;
    o->effective_settings["scrape_interval_s"] = std::to_string(f.scrape_interval_s);
  }
  o->power.kind = *power::ParsePowerKind(f.power_kind);
  o->power.interval_ns = static_cast<Nanos>(f.power_interval_s * kNanosPerSecond);
  o->power.scrape_url = !f.power_url.empty() ? f.power_url : o->scrape_metrics_url;
  if (sharded && o->power.kind != power::PowerKind::kOff) {
    // Every shard would measure its own host's GPUs and `bench merge` does not join energies.
    if (o->power.kind != power::PowerKind::kAuto)
      return InvalidArgument("--power with --shard: measure energy in a run without shards, or give --power off");
    o->power.kind = power::PowerKind::kOff;
  }
  return Status::Ok();
}

// Meets the other shards at the rendezvous and agrees on the start.
Result<loadgen::ShardClock> MeetShards(const BenchFlags& f, const loadgen::ShardSpec& sh,
                                       const nlohmann::json& schedule, loadgen::BenchOptions* o) {
  loadgen::RendezvousOptions ro;
  ro.address = f.rendezvous;
  ro.timeout_s = f.rendezvous_timeout;
  ro.token = f.rendezvous_token;
  std::cerr << "frontier bench: shard " << sh.index << "/" << sh.count << " (" << sh.from << "), meeting at "
            << f.rendezvous << "\n";
  return loadgen::MeetShards(sh, ro, schedule, &o->effective_settings);
}

void PrintServerMetrics(const RunResult& run) {
  const auto& m = run.server_metrics;
  if (!m) return;
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

// Everything resolved before the first request is sent.
struct Benchmark {
  ResolvedWorkload w;
  std::optional<loadgen::ShardSpec> shard;
  std::optional<loadgen::ScenarioRules> rules;
  loadgen::BenchOptions o;
  PreparedWorkload prepared;
  std::optional<sweep::PointRecorder> recorder;
  loadgen::ShardClock shard_clock;
  nlohmann::json schedule;
};

// The workload, shard, scenario, target and requests the flags name.
Status ResolveBenchmark(const BenchFlags& f, const std::string& command_line, Benchmark* b) {
  FRONTIER_ASSIGN_OR_RETURN(b->w, ResolveWorkload(f.wf));
  Result<std::optional<loadgen::ShardSpec>> shard = loadgen::ResolveShard(f.shard_flag);
  if (!shard.ok()) return InvalidArgument(shard.status().message());
  b->shard = *shard;
  const workload::LoadOptions whole_load = b->w.load;  // the schedule every shard shares
  if (b->shard) FRONTIER_RETURN_IF_ERROR(ApplyShard(*b->shard, f.db, &b->w));
  // The scenario's benchmark follows from the served model's name unless --mlperf-benchmark names it.
  FRONTIER_ASSIGN_OR_RETURN(b->rules, ResolveScenarioRules(b->w, sim::DefaultDataDir(), f.tf.model));
  if (b->rules) FRONTIER_RETURN_IF_ERROR(ApplyScenarioLoad(*b->rules, &b->w));
  FRONTIER_ASSIGN_OR_RETURN(b->o, ResolveTarget(f.tf, f.tf.model, b->w));
  b->o.command_line = command_line;
  if (b->rules) b->o.rules = *b->rules;
  FRONTIER_RETURN_IF_ERROR(ConfigureMeasurement(f, b->shard.has_value(), &b->o));
  const std::string vocab_note =
      loadgen::ResolveVocabulary(b->o.client, f.tf.vocab_size, &b->w.dataset, &b->o.effective_settings);
  if (!vocab_note.empty()) std::cerr << "frontier bench: " << vocab_note << "\n";
  FRONTIER_ASSIGN_OR_RETURN(b->prepared, PrepareWorkload(&b->w));
  if (!b->w.tokenizer.empty()) {  // made by PrepareWorkload, after the settings were copied
    for (const char* key : {"tokenizer", "tokenizer_exact_prompts"}) b->o.effective_settings[key] = b->w.effective[key];
    std::cerr << "frontier bench: prompts by " << b->w.effective["tokenizer"] << ": "
              << b->w.effective["tokenizer_exact_prompts"] << "\n";
  }
  if (b->prepared.sessions) b->o.sessions = &*b->prepared.sessions;
  b->o.ideal_block_tokens = b->w.ideal_block_tokens;
  b->schedule = loadgen::ShardSchedule(whole_load, b->w.effective.count("dataset") ? b->w.effective.at("dataset") : "",
                                        b->w.dataset.random.input_len, b->w.dataset.random.output_len);
  return Status::Ok();
}

// The database is opened, and the run created, before anything is sent: a
// database that cannot be written fails now, not after the measurement. Then
// the shards meet.
Status StartBenchmark(const BenchFlags& f, Benchmark* b) {
  if (!f.db.db.empty()) {
    FRONTIER_ASSIGN_OR_RETURN(sweep::PointRecorder recorder,
                              StartPointRecorder("bench", f.db,
                                                 sweep::CommandRun(sweep::ServerSystem(f.tf.model, b->o.client.base_url,
                                                                                       b->o.client.endpoint,
                                                                                       b->w.summary.num_gpus),
                                                                   b->w.effective, b->o.command_line)));
    b->recorder.emplace(std::move(recorder));
  }
  if (!b->shard) return Status::Ok();
  FRONTIER_ASSIGN_OR_RETURN(b->shard_clock, MeetShards(f, *b->shard, b->schedule, &b->o));
  b->w.load.start_at_ns = b->shard_clock.start_steady_ns;
  return Status::Ok();
}

Status WriteShardMeta(const Benchmark& b, const RunResult& r) {
  const nlohmann::json run = {{"base_url", r.base_url},         {"endpoint", r.endpoint},
                              {"model", r.model},               {"served_model", r.served_model},
                              {"num_gpus", r.num_gpus},         {"start_time_utc", r.start_time_utc}};
  FRONTIER_RETURN_IF_ERROR(loadgen::WriteShardMeta(b.w.requests_jsonl, *b.shard, b.shard_clock, b.schedule, run));
  std::cerr << fmt::format("frontier bench: shard {}/{}: clock offset from shard 0 {:+.3f} ms +/- {:.3f} ms; "
                           "wrote {}\n",
                           b.shard->index, b.shard->count, b.shard_clock.offset_ns / 1e6, b.shard_clock.bound_ns / 1e6,
                           loadgen::ShardMetaPath(b.w.requests_jsonl));
  return Status::Ok();
}

// Prints the point, stores it (--db) and returns the exit status.
int FinishBenchmark(const BenchFlags& f, Benchmark& b, const loadgen::PointOutcome& out) {
  if (b.shard) {
    if (Status st = WriteShardMeta(b, out.run); !st.ok()) return Fail("bench", st);
  }
  PrintSummary(out.run, out.summary);
  PrintEnergy(out.run, out.summary);
  PrintServerMetrics(out.run);
  if (out.verdict) std::cout << loadgen::FormatVerdict(*out.verdict, *b.rules);
  if (!b.w.result_json.empty()) std::cerr << "frontier bench: wrote " << b.w.result_json << "\n";
  if (b.recorder) {
    // A point judged against a scenario keeps its verdict beside its metrics, as a sweep's does.
    if (Status st = b.recorder->Record(workload::DatasetLabel(b.w.dataset), b.w.load, out, b.rules); !st.ok())
      return Fail("bench", st);
    std::cerr << "frontier bench: " << (b.recorder->stored() > 0 ? "stored the point as run " : "stored no point in run ")
              << b.recorder->run().Label() << " in " << RedactUrl(f.db.db)
              << (out.run.interrupted ? " (interrupted: a cut-short point is not stored)" : "") << "\n";
  }
  if (out.run.interrupted) return 130;
  if (out.summary.completed == 0) {
    std::cerr << "frontier bench: every request failed:\n" << TopFailureReasons(out.run);
    return 1;
  }
  return 0;
}

int RunBench(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "merge") return RunBenchMerge(argc - 1, argv + 1);
  CLI::App app{"Benchmark an OpenAI-compatible streaming endpoint (vLLM-compatible metrics)", "bench"};
  app.footer("Also: frontier bench merge SHARD.jsonl... --result-json FILE  (see docs/scale-out.md)");
  BenchFlags f;
  AddBenchFlags(app, &f);
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (const std::string bad = BenchUsageProblem(app, f); !bad.empty()) return UsageError("bench", bad);
  Benchmark b;
  if (Status st = ResolveBenchmark(f, CommandLine(argc, argv), &b); !st.ok()) return Fail("bench", st);
  if (Status st = StartBenchmark(f, &b); !st.ok()) return Fail("bench", st);
  std::signal(SIGINT, OnSigint);
  ProgressLine progress(!f.no_progress && ::isatty(STDERR_FILENO));
  auto out = loadgen::RunBenchmark(b.o, b.prepared.specs, b.w.load, &progress, &g_stop);
  progress.Finish();
  std::signal(SIGINT, SIG_DFL);
  if (!out.ok()) {
    if (b.recorder) (void)b.recorder->MarkBroken(out.status().message());  // the run's failure is the error shown
    return Fail("bench", out.status());
  }
  return FinishBenchmark(f, b, *out);
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(bench, "Benchmark an OpenAI-compatible streaming server",
                          frontier::cli::RunBench);
