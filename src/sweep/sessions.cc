#include "sweep/sessions.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>

#include "client/backend.h"
#include "core/cpus.h"
#include "core/host_name.h"
#include "loadgen/benchmark.h"
#include "loadgen/target_request.h"
#include "serve/profile.h"
#include "serve/server.h"
#include "sim/concurrency_sweep.h"
#include "sim/engine/config.h"
#include "sim/simulate.h"
#include "sweep/bench_job.h"
#include "sweep/process.h"
#include "workload/dataset.h"
#include "workload/exact_text.h"
#include "workload/option_names.h"
#include "workload/spec.h"

namespace frontier::sweep {
namespace {

class SimSession final : public Session {
 public:
  SimSession(const Plan& plan, sim::SimConfig config, bool auto_seqs, std::optional<PredictionBand> band,
             DatasetCache* datasets)
      : plan_(plan), config_(std::move(config)), auto_seqs_(auto_seqs), band_(std::move(band)),
        datasets_(datasets) {}

  Result<loadgen::PointOutcome> RunPoint(const PointSpec& point, const loadgen::PointOptions& options) override {
    FRONTIER_ASSIGN_OR_RETURN(const workload::LoadOptions load,
                              PointLoad(plan_, point, options.rules ? &*options.rules : nullptr));
    return Run(point, load, options, nullptr, nullptr);
  }

  Result<loadgen::PointOutcome> RunTrial(const PointSpec& point, const workload::LoadOptions& load,
                                         const loadgen::PointOptions& options, loadgen::Observer* observer,
                                         const std::atomic<bool>* stop) override {
    return Run(point, load, options, observer, stop);
  }

  // Each point has a SimTarget of its own and reads only what the session holds.
  unsigned Parallelism() const override { return UsableCpus(); }

 private:
  Result<loadgen::PointOutcome> Run(const PointSpec& point, const workload::LoadOptions& load,
                                    const loadgen::PointOptions& options, loadgen::Observer* observer,
                                    const std::atomic<bool>* stop) {
    FRONTIER_ASSIGN_OR_RETURN(PointWorkload requests,
                              PointRequests(plan_, point, load, options.rules ? &*options.rules : nullptr,
                                            /*live=*/false, {}, datasets_));
    sim::SimConfig config = config_;
    if (auto_seqs_ && load.max_concurrency) {
      // max_num_seqs: auto raises the engine's cap to the point's concurrency.
      FRONTIER_ASSIGN_OR_RETURN(config, sim::WithMaxNumSeqsFor(config_, *load.max_concurrency));
    }
    // The target says it is simulated and adds the deployment's settings (Describe).
    // A search's trial is watched as it goes (over-saturation) and stopped on request, in virtual time.
    sim::SimulateOptions so;
    so.observer = observer;
    so.stop = stop;
    so.band = band_;
    loadgen::PointOptions o = options;
    o.ideal_block_tokens = static_cast<int>(plan_.workloads[point.workload].ideal_block_tokens);
    if (requests.sessions) o.sessions = &*requests.sessions;
    return sim::SimulatePoint(config, so, requests.specs, load, std::move(o));
  }

  const Plan& plan_;
  sim::SimConfig config_;
  bool auto_seqs_;
  std::optional<PredictionBand> band_;  // the deployment's (max_num_seqs does not change its class)
  DatasetCache* datasets_;              // the sweep's, or null
};

// Forwards the load generator's progress to SessionOptions::on_point_progress.
class ProgressForwarder final : public loadgen::Observer {
 public:
  explicit ProgressForwarder(const SessionOptions& o) : o_(o) {}
  void OnProgress(const loadgen::Progress& p) override {
    if (o_.on_point_progress) o_.on_point_progress(p.completed + p.failed, p.total);
  }

 private:
  const SessionOptions& o_;
};

// Measures points over HTTP; owns the launched server or the in-process one, if any.
class HttpSession final : public Session {
 public:
  HttpSession(const Plan& plan, const SystemSpec& system, const SessionOptions& options,
              std::string base_url, std::string model)
      : plan_(plan), system_(system), options_(options), base_url_(std::move(base_url)),
        model_(std::move(model)) {}
  ~HttpSession() override {
    if (server_) server_->Stop();
    if (process_) {
      process_->Stop();
      if (options_.store != nullptr && launch_id_ > 0) (void)options_.store->SetLaunchStopped(launch_id_);
    }
  }

  Result<loadgen::PointOutcome> RunPoint(const PointSpec& point, const loadgen::PointOptions& options) override {
    FRONTIER_ASSIGN_OR_RETURN(const workload::LoadOptions load,
                              PointLoad(plan_, point, options.rules ? &*options.rules : nullptr));
    ProgressForwarder progress(options_);
    return Run(point, load, options, &progress, options_.stop);
  }

  Result<loadgen::PointOutcome> RunTrial(const PointSpec& point, const workload::LoadOptions& load,
                                         const loadgen::PointOptions& options, loadgen::Observer* observer,
                                         const std::atomic<bool>* stop) override {
    return Run(point, load, options, observer, stop);
  }

  std::unique_ptr<ServerProcess> process_;
  int64_t launch_id_ = 0;    // its store::LaunchRecord
  int check_port_ = 0;       // base_url's port, checked before each point (0: not checked)
  std::unique_ptr<serve::Server> server_;

 private:
  Result<loadgen::PointOutcome> Run(const PointSpec& point, const workload::LoadOptions& load,
                                    const loadgen::PointOptions& options, loadgen::Observer* observer,
                                    const std::atomic<bool>* stop) {
    if (process_ && check_port_ > 0) FRONTIER_RETURN_IF_ERROR(process_->CheckServes(check_port_));
    loadgen::BenchOptions b;
    static_cast<loadgen::PointOptions&>(b) = options;
    b.ideal_block_tokens = static_cast<int>(plan_.workloads[point.workload].ideal_block_tokens);
    // The client as `frontier bench` makes it from its flags (loadgen::ApplyTarget).
    loadgen::TargetRequest t = system_.target;
    t.base_url = base_url_;
    t.endpoint = system_.endpoint;
    t.backend = system_.backend;
    if (t.backend.empty()) {  // the endpoint's own (checked when the plan was read)
      FRONTIER_ASSIGN_OR_RETURN(const client::Dialect d, client::DialectForEndpoint(t.endpoint));
      t.backend = client::BackendOf(d);
    }
    FRONTIER_RETURN_IF_ERROR(
        loadgen::ApplyTarget(t, model_, workload::IgnoreEosFor(plan_.workloads[point.workload]), &b).status());
    // Token ids drawn below the server's vocabulary, as bench draws them.
    auto vocabulary = [&](workload::DatasetOptions* d) {
      (void)loadgen::ResolveVocabulary(b.client, t.vocab_size, d, &b.effective_settings);
    };
    FRONTIER_ASSIGN_OR_RETURN(
        PointWorkload requests,
        PointRequests(plan_, point, load, options.rules ? &*options.rules : nullptr, /*live=*/true, vocabulary,
                      options_.datasets.get()));
    if (requests.sessions) b.sessions = &*requests.sessions;
    b.effective_settings.merge(requests.settings);
    b.run.progress_interval = options_.point_progress_interval;
    // The measurement as bench takes it from its flags. A simulated system
    // served over HTTP draws nothing worth measuring: power off unless the plan asks.
    MeasureRequest m = system_.measure;
    if (system_.simulated() && m.power_kind == "auto") m.power_kind = "off";
    FRONTIER_RETURN_IF_ERROR(ConfigureMeasurement(m, /*sharded=*/false, &b));
    b.requested_settings["system"] = system_.name;
    b.requested_settings["base_url"] = base_url_;
    b.requested_settings["model"] = model_;
    return loadgen::RunBenchmark(b, requests.specs, load, observer, stop);
  }

  const Plan& plan_;
  const SystemSpec& system_;
  SessionOptions options_;
  std::string base_url_, model_;
};

}  // namespace

Result<PointWorkload> PointRequests(const Plan& plan, const PointSpec& point, const workload::LoadOptions& load,
                                    const loadgen::ScenarioRules* rules, bool live,
                                    const std::function<void(workload::DatasetOptions*)>& adjust,
                                    DatasetCache* datasets) {
  const WorkloadSpec& w = plan.workloads[point.workload];
  workload::DatasetOptions d = workload::ToDatasetOptions(w);  // checked when the plan was parsed
  d.random.format = workload::PromptFormatFor(w, /*over_http=*/live);
  // A server that takes text only (TGI, TensorRT-LLM, OpenAI chat) gets text;
  // token-ids said outright was refused when the plan was read.
  if (live && w.prompt_format.empty() && plan.systems[point.system].NeedsTextPrompts())
    d.random.format = workload::PromptFormat::kText;
  d.path = d.kind == workload::DatasetKind::kMlperf ? std::string() : PlanPath(plan, w.path);
  d.seed = point.seed;
  d.allow_repeat = true;
  if (adjust) adjust(&d);
  PointWorkload out;
  if (workload::IsSessionKind(d.kind)) {
    // Sessions: a trace is read whole (RunSessions reuses its sessions
    // cyclically when the point asks for more); the generator makes the
    // point's count.
    d.num_prompts = d.kind == workload::DatasetKind::kTrace ? 0 : point.num_prompts;
    Result<workload::SessionWorkload> s = workload::LoadSessionWorkload(d);
    if (!s.ok()) return s.status().WithContext("workload " + w.name);
    out.sessions = std::move(*s);
    return out;
  }
  d.num_prompts = point.num_prompts + plan.load.warmup;
  int64_t most = LargestPointRequests(plan);  // what a file is read for, once
  if (rules != nullptr && rules->scenario) {
    // A scenario sets the run length: a pool of distinct prompts (the
    // benchmark's performance sample count, else 1000, as `frontier bench
    // --scenario` draws it) reused cyclically.
    const int64_t pool = rules->performance_sample_count > 0 ? rules->performance_sample_count : 1000;
    d.num_prompts = std::min<int64_t>(load.num_prompts, pool) + load.warmup;
    most = pool + load.warmup;
  }
  Result<std::vector<workload::RequestSpec>> specs =
      datasets != nullptr ? datasets->Load(d, most) : workload::LoadDataset(d);
  if (!specs.ok()) return specs.status().WithContext("workload " + w.name);
  out.specs = std::move(*specs);
  if (live && !w.tokenizer.empty()) {  // the simulator in virtual time reads lengths, not text
    if (Status st = workload::TokenizePrompts(PlanPath(plan, w.tokenizer), out.specs, d.random.prefix_len, d.seed,
                                              &out.settings);
        !st.ok())
      return st.WithContext("workload " + w.name);
  }
  return out;
}

Result<workload::LoadOptions> PointLoad(const Plan& plan, const PointSpec& point, const loadgen::ScenarioRules* rules) {
  workload::LoadOptions l;
  l.num_prompts = point.num_prompts;
  l.warmup = plan.load.warmup;
  l.seed = point.seed;
  l.burstiness = plan.load.burstiness;
  l.duration_s = plan.load.duration_s;  // bench's --duration: the count or the time, whichever is first
  if (rules != nullptr && rules->scenario) {
    // The scenario sets the arrivals and the run length (the plan's load
    // values are its target QPS, in the rules).
    workload::LoadOptions base;
    base.warmup = l.warmup;
    base.seed = l.seed;
    return loadgen::ScenarioLoad(*rules, base);
  }
  if (plan.load.kind == store::LoadKind::kConcurrency) {
    l.max_concurrency = static_cast<int64_t>(point.load_value);
  } else {
    l.request_rate = point.load_value;
    l.max_concurrency = plan.load.max_concurrency;
  }
  return l;
}

// The simulator names its settings as `frontier simulate` flags; a plan
// writes them as fields of its system. Says the fields' names instead
// (workload/option_names.h, the one table of both spellings).
static Status InPlanTerms(const Status& s, const Plan& plan, const SystemSpec& system) {
  return Status(s.code(), plan.file + ":" + std::to_string(system.line) + ": " + workload::InPlanTerms(s.message()));
}

Result<std::unique_ptr<Session>> MakeSimSession(const Plan& plan, const SystemSpec& system,
                                                const sim::BandTable* bands, DatasetCache* datasets) {
  Result<sim::SimConfig> config = sim::ResolveSimConfig(*system.sim);
  if (!config.ok()) return InPlanTerms(config.status(), plan, system);
  std::optional<PredictionBand> band;
  if (bands != nullptr) band = bands->For(sim::KeyOf(*config));
  return std::unique_ptr<Session>(std::make_unique<SimSession>(plan, std::move(*config), system.sim->max_num_seqs_auto,
                                                                std::move(band), datasets));
}

Result<std::unique_ptr<Session>> MakeSimSession(const Plan& plan, sim::SimConfig config, DatasetCache* datasets) {
  return std::unique_ptr<Session>(
      std::make_unique<SimSession>(plan, std::move(config), false, std::nullopt, datasets));
}

Result<std::unique_ptr<Session>> MakeServerSession(const Plan& plan, const SystemSpec& system,
                                                   const SessionOptions& options) {
  auto session = std::make_unique<HttpSession>(plan, system, options, system.base_url, system.model);
  if (system.launch) {
    const LaunchSpec& l = *system.launch;
    FRONTIER_ASSIGN_OR_RETURN(const HostPort server, UrlHostPort(system.base_url));
    const bool local = IsLocalHost(server.host);
    if (l.check_owner && !local) {
      return InvalidArgument("base_url " + system.base_url + " is not on this machine, so frontier cannot check "
                             "that the launched server is the one answering; set launch.check_owner: false "
                             "if it is");
    }
    if (local) FRONTIER_RETURN_IF_ERROR(CheckPortFree(server.port, "base_url " + system.base_url));
    ProcessOptions po;
    po.command = l.command;
    po.env = l.env;
    po.cwd = PlanPath(plan, l.cwd);
    po.log_path = !l.log.empty() ? PlanPath(plan, l.log) : options.log_dir + "/" + system.name + ".log";
    po.stop_timeout_s = l.stop_timeout_s;
    session->process_ = std::make_unique<ServerProcess>();
    FRONTIER_RETURN_IF_ERROR(session->process_->Start(po));
    if (options.store != nullptr) {
      store::LaunchRecord rec;
      rec.system = system.name;
      rec.host = HostName();
      rec.boot_id = BootId();
      rec.pgid = session->process_->pid();
      rec.marker = session->process_->marker();
      rec.command = l.command;
      FRONTIER_ASSIGN_OR_RETURN(session->launch_id_, options.store->AddLaunch(rec));
    }
    Status healthy = session->process_->WaitHealthy(l.health, l.timeout_s, SteadyClock::Get());
    if (healthy.ok() && l.check_owner) healthy = session->process_->CheckServes(server.port);
    if (!healthy.ok()) return healthy;  // the session's destructor stops the server
    if (l.check_owner) session->check_port_ = server.port;
  }
  return std::unique_ptr<Session>(std::move(session));
}

Result<std::unique_ptr<Session>> MakeLiveSimSession(const Plan& plan, const SystemSpec& system,
                                                    const SessionOptions& options) {
  serve::ProfileSpec ps;
  ps.profile = "sim";
  ps.sim = *system.sim;
  if (ps.sim.max_num_seqs_auto)
    return InvalidArgument("system " + system.name + ": max_num_seqs: auto needs virtual time (live: false); a live "
                           "server's cap is fixed when it starts");
  Result<serve::ResolvedProfile> profile = serve::ResolveProfile(ps);
  if (!profile.ok()) return InPlanTerms(profile.status(), plan, system);
  serve::ServeOptions so;
  so.host = "127.0.0.1";
  so.port = 0;
  so.model_name = profile->default_model_name;
  FRONTIER_ASSIGN_OR_RETURN(auto server, serve::Server::Create(so, std::move(profile->timing)));
  FRONTIER_RETURN_IF_ERROR(server->Start());
  auto session = std::make_unique<HttpSession>(plan, system, options, server->address(), so.model_name);
  session->server_ = std::move(server);
  return std::unique_ptr<Session>(std::move(session));
}

namespace {

// The band table of a sweep, loaded when its first simulated system's session
// is made and shared by the rest (one load per run, not per point). Catalogs
// that cannot be read leave the points without a band, said once.
class SweepBands {
 public:
  const sim::BandTable* Get(const std::string& data_dir) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!loaded_) {
      loaded_ = true;
      Result<sim::BandTable> t = sim::BandTable::LoadFrom(data_dir.empty() ? sim::DefaultDataDir() : data_dir);
      if (t.ok()) {
        table_ = std::move(*t);
      } else {
        std::fprintf(stderr, "frontier sweep: simulated points have no prediction band: %s\n",
                     t.status().message().c_str());
      }
    }
    return table_ ? &*table_ : nullptr;
  }

 private:
  std::mutex mu_;
  bool loaded_ = false;
  std::optional<sim::BandTable> table_;
};

}  // namespace

SessionFactory DefaultSessionFactory(const SessionOptions& given) {
  auto bands = std::make_shared<SweepBands>();
  SessionOptions options = given;
  if (!options.datasets) options.datasets = std::make_shared<DatasetCache>();
  return [options, bands](const Plan& plan, const SystemSpec& system) -> Result<std::unique_ptr<Session>> {
    if (system.simulated()) {
      return system.live ? MakeLiveSimSession(plan, system, options)
                         : MakeSimSession(plan, system, bands->Get(system.sim->data_dir), options.datasets.get());
    }
    return MakeServerSession(plan, system, options);
  };
}

Result<std::vector<std::string>> StopOrphanedServers(store::Store& store, const std::string& only_system) {
  FRONTIER_ASSIGN_OR_RETURN(std::vector<store::LaunchRecord> open, store.ListOpenLaunches());
  std::vector<std::string> lines;
  if (open.empty()) return lines;
  const std::string host = HostName();
  const std::string boot = BootId();
  for (const auto& l : open) {
    if (l.host != host) continue;  // another machine's sweep: not ours to stop
    if (!only_system.empty() && l.system != only_system) continue;
    if (l.boot_id == boot && !l.marker.empty()) {
      const int n = StopMarkedProcesses(l.marker, 10);
      if (n > 0) {
        lines.push_back("stopped " + std::to_string(n) + " process(es) of system " + l.system +
                        " (launched " + l.started_utc + ", process group " + std::to_string(l.pgid) +
                        ") left running by a sweep that died");
      }
    }
    FRONTIER_RETURN_IF_ERROR(store.SetLaunchStopped(l.id));
  }
  return lines;
}

}  // namespace frontier::sweep
