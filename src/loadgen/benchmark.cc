#include "loadgen/benchmark.h"

#include <unistd.h>

#include "client/models.h"
#include "core/version.h"
#include "loadgen/http_target.h"
#include "loadgen/worker_pool.h"
#include "metrics/result_json.h"

namespace frontier::loadgen {
namespace {

// Writes each ended request to the JSONL file, then forwards to the caller's observer.
class RecordingObserver final : public Observer {
 public:
  RecordingObserver(metrics::RequestJsonlWriter* writer, Observer* next) : writer_(writer), next_(next) {}
  void OnProgress(const Progress& p) override {
    if (next_) next_->OnProgress(p);
  }
  void OnRequest(const RequestRecord& r) override {
    if (writer_ && writer_->is_open() && status_.ok()) status_ = writer_->Write(r);
    if (next_) next_->OnRequest(r);
  }
  const Status& status() const { return status_; }

 private:
  metrics::RequestJsonlWriter* writer_;
  Observer* next_;
  Status status_;
};

}  // namespace

std::string ResolveVocabulary(const client::ClientOptions& client, int64_t vocab_flag,
                              workload::DatasetOptions* dataset, std::map<std::string, std::string>* effective) {
  if (dataset->kind != workload::DatasetKind::kRandom ||
      dataset->random.format != workload::PromptFormat::kTokenIds)
    return "";
  std::string source = vocab_flag > 0 ? "--vocab-size" : "default";
  if (vocab_flag > 0) dataset->random.vocab_size = static_cast<int32_t>(vocab_flag);
  std::string note;
  auto info = client::QueryModel(client, 5 * kNanosPerSecond);
  if (info.ok() && info->n_vocab > 0) {
    if (vocab_flag > 0 && vocab_flag != info->n_vocab)
      note = "the server's /v1/models gives n_vocab " + std::to_string(info->n_vocab) +
             "; using it instead of --vocab-size " + std::to_string(vocab_flag);
    dataset->random.vocab_size = static_cast<int32_t>(info->n_vocab);
    source = "server /v1/models meta.n_vocab";
  }
  (*effective)["vocab_size"] = std::to_string(dataset->random.vocab_size);
  (*effective)["vocab_size_source"] = source;
  return note;
}

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "";
  return buf;
}

Result<BenchOutcome> RunBenchmark(const BenchOptions& o, const std::vector<workload::RequestSpec>& specs,
                                  const workload::LoadOptions& load, Observer* observer,
                                  const std::atomic<bool>* stop) {
  std::unique_ptr<Target> target;
  if (o.workers > 1) {
    FRONTIER_ASSIGN_OR_RETURN(target, WorkerPool::Create(o.client, o.workers));
  } else {
    FRONTIER_ASSIGN_OR_RETURN(target, HttpTarget::Create(o.client));
  }
  metrics::RequestJsonlWriter writer;
  if (!o.requests_jsonl.empty()) FRONTIER_RETURN_IF_ERROR(writer.Open(o.requests_jsonl));
  RecordingObserver recording(&writer, observer);
  const std::string start_time = UtcTimestampNow();
  RunOptions run_options = o.run;
  run_options.clock = &SteadyClock::Get();  // the client stamps with the steady clock
  FRONTIER_ASSIGN_OR_RETURN(RunResult run,
                            RunLoad(*target, specs, load, run_options, &recording, stop));
  run.source = "measured";
  run.frontier_version = kVersion;
  run.command_line = o.command_line;
  run.start_time_utc = start_time;
  run.host = HostName();
  run.base_url = o.client.base_url;
  run.endpoint = o.client.endpoint;
  run.model = o.client.model;
  run.num_gpus = o.summary.num_gpus;
  run.requested_settings = o.requested_settings;
  run.effective_settings = o.effective_settings;
  BenchOutcome out;
  out.summary = metrics::Summarize(run, o.summary);
  out.run = std::move(run);
  FRONTIER_RETURN_IF_ERROR(recording.status());
  FRONTIER_RETURN_IF_ERROR(writer.Close());
  if (!o.result_json.empty())
    FRONTIER_RETURN_IF_ERROR(metrics::WriteResultJson(o.result_json, out.run, out.summary, o.summary,
                                                      &o.extra_result_fields));
  return out;
}

}  // namespace frontier::loadgen
