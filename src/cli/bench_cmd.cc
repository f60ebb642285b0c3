// `frontier bench`: benchmark an OpenAI-compatible streaming endpoint.
// Parsing and presentation only; the work is loadgen::RunBenchmark.
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <tuple>

#include <fmt/format.h>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/workload_flags.h"
#include "loadgen/benchmark.h"
#include "loadgen/worker_pool.h"
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

void Row(const std::string& name, const std::string& value) {
  std::cout << fmt::format("{:<42}{}\n", name, value);
}
void Num(const std::string& name, double v, int digits = 2) { Row(name, fmt::format("{:.{}f}", v, digits)); }
void Title(const std::string& t) {
  const int pad = std::max<int>(0, 50 - static_cast<int>(t.size()) - 2);
  std::cout << std::string(pad / 2, '-') << ' ' << t << ' ' << std::string(pad - pad / 2, '-') << "\n";
}

void PrintDistribution(const std::string& title, const std::string& short_name,
                       const metrics::Distribution& d) {
  Title(title);
  Num("Mean " + short_name + " (ms):", d.mean);
  Num("Median " + short_name + " (ms):", d.median);
  Num("Std " + short_name + " (ms):", d.std);
  for (const auto& [p, v] : d.percentiles) {
    if (p == 50) continue;
    Num(metrics::PercentileKey(p).replace(0, 1, "P") + " " + short_name + " (ms):", v);
  }
}

void PrintSummary(const loadgen::BenchOutcome& out) {
  const metrics::Summary& s = out.summary;
  std::cout << std::string(18, '=') << " Serving Benchmark Result " << std::string(18, '=') << "\n";
  if (out.run.interrupted) Row("Interrupted:", "yes (partial result)");
  Row("Successful requests:", std::to_string(s.completed));
  Row("Failed requests:", std::to_string(s.failed));
  for (const auto& [reason, n] : s.failures_by_reason) Row("  " + reason + ":", std::to_string(n));
  if (s.warmup) Row("Warm-up requests (excluded):", std::to_string(s.warmup));
  Num("Benchmark duration (s):", s.duration_s);
  Row("Total input tokens:", std::to_string(s.total_input_tokens));
  Row("Total generated tokens:", std::to_string(s.total_output_tokens));
  if (!s.usage_from_server) Row("Token counts:", "counted from stream events (no server usage)");
  Num("Request throughput (req/s):", s.request_throughput);
  if (s.goodput_requested) Num("Request goodput (req/s):", s.request_goodput);
  Num("Output token throughput (tok/s):", s.output_throughput);
  Num("Total token throughput (tok/s):", s.total_token_throughput);
  if (out.run.num_gpus > 1) {
    Num("Output token throughput per GPU (tok/s):", s.output_throughput_per_gpu);
    Num("Total token throughput per GPU (tok/s):", s.total_token_throughput_per_gpu);
  }
  Row("Peak concurrent requests:", std::to_string(s.max_concurrent_requests));
  Num("Interactivity (tok/s/user):", s.interactivity);
  PrintDistribution("Time to First Token", "TTFT", s.ttft_ms);
  PrintDistribution("Time per Output Token (excl. 1st token)", "TPOT", s.tpot_ms);
  PrintDistribution("Inter-token Latency", "ITL", s.itl_ms);
  PrintDistribution("Inter-chunk Latency", "ICL", s.icl_ms);
  PrintDistribution("End-to-end Latency", "E2EL", s.e2el_ms);
  PrintDistribution("Client Queue Time", "queue", s.client_queue_ms);
  std::cout << std::string(62, '=') << "\n";
}

int RunBench(int argc, char** argv) {
  CLI::App app{"Benchmark an OpenAI-compatible streaming endpoint (vLLM-compatible metrics)", "bench"};
  std::string base_url = "http://127.0.0.1:8000", endpoint = "/v1/completions", model, api_key,
              extra_body, usage = "continuous";
  std::vector<std::string> headers;
  bool insecure = false, no_progress = false;
  double timeout_s = 600, connect_timeout_s = 10, first_token_timeout_s = 0, grace_s = 5;
  std::string workers_flag = "1";
  int64_t vocab_size = 0;
  app.add_option("--base-url", base_url, "Server URL, http:// or https:// [http://127.0.0.1:8000]")->group("Target");
  app.add_option("--endpoint", endpoint, "/v1/completions or /v1/chat/completions [/v1/completions]")->group("Target");
  app.add_option("--model", model, "Model name sent in each request (required)")->group("Target");
  app.add_option("--api-key", api_key, "Bearer token [$OPENAI_API_KEY]")->group("Target");
  app.add_option("--header", headers, "Extra request header 'Name: value' (repeatable)")->group("Target");
  app.add_option("--extra-body", extra_body, "JSON object merged into every request body")->group("Target");
  app.add_option("--usage", usage,
                 "Token counts from the server: continuous (usage in every chunk), final, off [continuous]")
      ->group("Target");
  app.add_flag("--insecure", insecure, "https: do not verify the server's certificate")->group("Target");
  app.add_option("--timeout", timeout_s, "Total time limit per request, seconds (0 = none) [600]")->group("Target");
  app.add_option("--connect-timeout", connect_timeout_s, "Connect time limit, seconds [10]")->group("Target");
  app.add_option("--first-token-timeout", first_token_timeout_s,
                 "Time limit to the first token, seconds (0 = none) [0]")->group("Target");
  app.add_option("--grace", grace_s, "After Ctrl-C, seconds in-flight requests may finish [5]")->group("Output");
  app.add_flag("--no-progress", no_progress, "No live progress line")->group("Output");
  app.add_option("--workers", workers_flag,
                 "Event loops on their own threads, each owning its streams: N or auto (one per CPU) [1]")
      ->group("Load");
  app.add_option("--vocab-size", vocab_size,
                 "Token-id prompts: ids drawn below this, when the server's /v1/models gives no "
                 "vocabulary size (llama.cpp gives meta.n_vocab) [32000]")
      ->group("Workload");
  WorkloadFlags wf;
  AddWorkloadFlags(app, &wf);
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;

  auto w = ResolveWorkload(wf);
  if (!w.ok()) return Fail("bench", w.status());
  if (model.empty()) return UsageError("bench", "--model is required (the model name the server serves)");
  if (endpoint == "/v1/chat/completions" && w->dataset.kind == workload::DatasetKind::kRandom &&
      w->dataset.random.format == workload::PromptFormat::kTokenIds)
    return UsageError("bench", "--endpoint /v1/chat/completions needs text prompts: add --prompt-format text");
  if (api_key.empty()) {
    if (const char* env = std::getenv("OPENAI_API_KEY")) api_key = env;
  }
  loadgen::BenchOptions o;
  if (workers_flag == "auto") {
    o.workers = loadgen::AutoWorkers();
  } else {
    int n = 0;
    auto [end, ec] = std::from_chars(workers_flag.data(), workers_flag.data() + workers_flag.size(), n);
    if (ec != std::errc() || end != workers_flag.data() + workers_flag.size() || n < 1 || n > 1024)
      return UsageError("bench", "--workers must be auto or an integer in [1, 1024], got '" + workers_flag + "'");
    o.workers = n;
  }
  if (vocab_size != 0)
    if (Status in = CheckRange("--vocab-size", vocab_size, 2, INT32_MAX); !in.ok()) return UsageError("bench", in.message());
  o.client.base_url = base_url;
  o.client.endpoint = endpoint;
  o.client.model = model;
  o.client.api_key = api_key;
  o.client.headers = headers;
  o.client.extra_body = extra_body;
  o.client.ignore_eos = w->ignore_eos;
  o.client.insecure = insecure;
  if (usage == "continuous") {
    o.client.usage = client::UsageMode::kContinuous;
  } else if (usage == "final") {
    o.client.usage = client::UsageMode::kFinal;
  } else if (usage == "off") {
    o.client.usage = client::UsageMode::kOff;
  } else {
    return UsageError("bench", "--usage must be continuous, final or off, got '" + usage + "'");
  }
  // Times up to about 11 days (0: none), so that their nanoseconds fit 64 bits (docs/limits.md).
  for (auto [flag, value, min] : {std::tuple{"--timeout", timeout_s, 0.0},
                                  std::tuple{"--connect-timeout", connect_timeout_s, 1e-3},
                                  std::tuple{"--first-token-timeout", first_token_timeout_s, 0.0},
                                  std::tuple{"--grace", grace_s, 0.0}})
    if (Status in = CheckRange(flag, value, min, 1e6); !in.ok()) return UsageError("bench", in.message());
  o.client.total_timeout = SecondsToNanos(timeout_s);
  o.client.connect_timeout = SecondsToNanos(connect_timeout_s);
  o.client.first_token_timeout = SecondsToNanos(first_token_timeout_s);
  o.run.grace = SecondsToNanos(grace_s);
  o.summary = w->summary;
  o.result_json = w->result_json;
  o.requests_jsonl = w->requests_jsonl;
  o.command_line = CommandLine(argc, argv);
  o.requested_settings = w->requested;
  o.effective_settings = w->effective;
  auto& eff = o.effective_settings;
  eff["base_url"] = base_url;
  eff["endpoint"] = endpoint;
  eff["model"] = model;
  eff["usage"] = usage;
  eff["timeout_s"] = fmt::format("{}", timeout_s);
  eff["connect_timeout_s"] = fmt::format("{}", connect_timeout_s);
  eff["first_token_timeout_s"] = fmt::format("{}", first_token_timeout_s);
  for (const auto& h : headers) {  // names only: values may be secrets
    o.requested_settings["header:" + h.substr(0, h.find(':'))] = "(set)";
  }
  if (!extra_body.empty()) o.requested_settings["extra-body"] = extra_body;
  o.requested_settings.erase("api-key");
  nlohmann::json extra;
  extra["backend"] = endpoint == "/v1/chat/completions" ? "openai-chat" : "openai";
  extra["num_prompts"] = w->load.num_prompts == kUnboundedPrompts ? nlohmann::json(nullptr)
                                                                    : nlohmann::json(w->load.num_prompts);
  extra["request_rate"] = std::isinf(w->load.request_rate) ? nlohmann::json("inf") : nlohmann::json(w->load.request_rate);
  extra["burstiness"] = w->load.burstiness;
  extra["max_concurrency"] = w->load.max_concurrency ? nlohmann::json(*w->load.max_concurrency) : nlohmann::json(nullptr);
  o.extra_result_fields = extra;

  eff["workers"] = std::to_string(o.workers);
  if (!workers_flag.empty() && workers_flag != "1") o.requested_settings["workers"] = workers_flag;
  if (vocab_size) o.requested_settings["vocab_size"] = std::to_string(vocab_size);
  const std::string vocab_note = loadgen::ResolveVocabulary(o.client, vocab_size, &w->dataset, &eff);
  if (!vocab_note.empty()) std::cerr << "frontier bench: " << vocab_note << "\n";
  auto specs = workload::LoadDataset(w->dataset);
  if (!specs.ok()) return Fail("bench", specs.status());

  std::signal(SIGINT, OnSigint);
  ProgressLine progress(!no_progress && ::isatty(STDERR_FILENO));
  auto out = loadgen::RunBenchmark(o, *specs, w->load, &progress, &g_stop);
  progress.Finish();
  std::signal(SIGINT, SIG_DFL);
  if (!out.ok()) return Fail("bench", out.status());
  PrintSummary(*out);
  if (!o.result_json.empty()) std::cerr << "frontier bench: wrote " << o.result_json << "\n";
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
