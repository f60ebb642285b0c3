#include "loadgen/shard.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/host_name.h"
#include "core/limits.h"
#include "core/line_reader.h"
#include "core/parse.h"
#include "metrics/json_fields.h"
#include "metrics/percentile_list.h"
#include "metrics/result_json.h"
#include "loadgen/point.h"

namespace frontier::loadgen {
namespace {

Result<ShardSpec> ParsePair(const std::string& what, const std::string& index, const std::string& count) {
  ShardSpec s;
  s.from = what;
  Result<int64_t> k = ParseInt(what, count, 1, 1'000'000);
  if (!k.ok()) return InvalidArgument(what + ": the shard count must be an integer in 1..1000000, got '" + count + "'");
  Result<int64_t> i = ParseInt(what, index, 0, *k - 1);
  if (!i.ok()) {
    return InvalidArgument(what + ": the shard index must be an integer in 0.." + std::to_string(*k - 1) + ", got '" +
                           index + "'");
  }
  s.index = *i;
  s.count = *k;
  return s;
}

}  // namespace

Result<std::optional<ShardSpec>> ResolveShard(const std::string& flag) {
  if (!flag.empty()) {
    const size_t slash = flag.find('/');
    if (slash == std::string::npos)
      return InvalidArgument("--shard " + flag + ": must be INDEX/COUNT, e.g. 0/4 (indices from 0)");
    FRONTIER_ASSIGN_OR_RETURN(ShardSpec s, ParsePair("--shard", flag.substr(0, slash), flag.substr(slash + 1)));
    s.from = "--shard";
    return std::optional<ShardSpec>(s);
  }
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v != nullptr ? v : "";
  };
  std::string what, index, count;
  if (!env("OMPI_COMM_WORLD_SIZE").empty()) {
    what = "OMPI_COMM_WORLD_RANK/SIZE";
    index = env("OMPI_COMM_WORLD_RANK");
    count = env("OMPI_COMM_WORLD_SIZE");
  } else if (!env("SLURM_STEP_ID").empty() && !env("SLURM_NTASKS").empty()) {
    // Only inside an srun step: a batch script also sees SLURM_NTASKS, but runs once.
    what = "SLURM_PROCID/SLURM_NTASKS";
    index = env("SLURM_PROCID");
    count = env("SLURM_NTASKS");
  } else {
    return std::optional<ShardSpec>();
  }
  FRONTIER_ASSIGN_OR_RETURN(ShardSpec s, ParsePair(what, index, count));
  if (s.count == 1) return std::optional<ShardSpec>();
  return std::optional<ShardSpec>(s);
}

Status ShareLoad(const ShardSpec& shard, workload::LoadOptions* load) {
  if (load->warmup > 0)
    return InvalidArgument("--warmup with --shard: warm the server with a separate run first (shards share "
                           "one measured schedule)");
  if (load->max_concurrency) {
    const int64_t c = *load->max_concurrency;
    if (c < shard.count)
      return InvalidArgument("--max-concurrency " + std::to_string(c) + " is less than the " +
                             std::to_string(shard.count) + " shards: each needs at least 1");
    load->max_concurrency = c / shard.count + (shard.index < c % shard.count ? 1 : 0);
  }
  load->shard_index = shard.index;
  load->shard_count = shard.count;
  return Status::Ok();
}

nlohmann::json ShardSchedule(const workload::LoadOptions& whole_load, const std::string& dataset, int64_t input_len,
                             int64_t output_len) {
  nlohmann::json schedule = LoadResultFields(whole_load);
  schedule["seed"] = whole_load.seed;
  schedule["dataset"] = dataset;
  schedule["input_len"] = input_len;
  schedule["output_len"] = output_len;
  return schedule;
}

Result<ShardClock> MeetShards(const ShardSpec& shard, RendezvousOptions options, const nlohmann::json& schedule,
                              std::map<std::string, std::string>* effective) {
  (*effective)["shard"] = std::to_string(shard.index) + "/" + std::to_string(shard.count);
  (*effective)["shard_from"] = shard.from;
  if (options.token.empty()) {
    const char* env = std::getenv("FRONTIER_RENDEZVOUS_TOKEN");
    if (env != nullptr) options.token = env;
  }
  if (options.token.empty()) options.token = "schedule " + std::to_string(shard.count) + " " + schedule.dump();
  FRONTIER_ASSIGN_OR_RETURN(ShardClock clock, Rendezvous(shard, options));
  (*effective)["clock_offset_ns"] = std::to_string(clock.offset_ns);
  (*effective)["clock_offset_bound_ns"] = std::to_string(clock.bound_ns);
  return clock;
}

std::string ShardMetaPath(const std::string& jsonl) { return jsonl + ".shard.json"; }

Status WriteShardMeta(const std::string& jsonl, const ShardSpec& shard, const ShardClock& clock,
                      const nlohmann::json& schedule, const nlohmann::json& run_fields) {
  nlohmann::json j = {{"shard_index", shard.index},
                      {"shard_count", shard.count},
                      {"shard_from", shard.from},
                      {"host", HostName()},
                      {"clock_offset_ns", clock.offset_ns},
                      {"clock_offset_bound_ns", clock.bound_ns},
                      {"clock_rtt_ns", clock.rtt_ns},
                      {"start_unix_ns", clock.start_unix_ns},
                      {"schedule", schedule},
                      {"run", run_fields}};
  return WriteFileAtomically(ShardMetaPath(jsonl), j.dump(2) + "\n");
}

namespace {

// A shard description's integer field, named with its file when it is not an
// integer in [min, max] (a field edited by hand, a float such as 1e300).
Result<int64_t> MetaInt(const nlohmann::json& meta, const std::string& file, const std::string& field, int64_t min,
                        int64_t max) {
  const auto it = meta.find(field);
  if (it == meta.end())
    return InvalidArgument(file + ": field '" + field + "' is missing; not a shard description of `frontier bench --shard`");
  return metrics::JsonFields(meta, file).IntegerValue(*it, field, min, max);
}

// A shard description's string field ("" when absent).
Result<std::string> MetaText(const nlohmann::json& object, const std::string& file, const std::string& field) {
  return metrics::JsonFields(object, file).Name(field);
}

// What one .shard.json says, each field checked.
struct ShardMeta {
  int64_t index = 0, count = 0;
  int64_t offset_ns = 0, bound_ns = 0;
  std::string host;
  nlohmann::json schedule, run;
};

Result<ShardMeta> ReadShardMeta(const std::string& meta_path) {
  Result<std::string> text = ReadFile(meta_path, kMiB, "shard descriptions");
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return NotFound(meta_path + " is missing: merge takes the JSONL files of `frontier bench --shard` runs, each "
                      "with its .shard.json beside it");
    }
    return text.status();  // names the file and why (too large, a directory, unreadable)
  }
  const nlohmann::json meta = nlohmann::json::parse(*text, nullptr, false);
  if (meta.is_discarded() || !meta.is_object())
    return InvalidArgument(meta_path + ": not a shard description (not a JSON object)");
  ShardMeta m;
  FRONTIER_ASSIGN_OR_RETURN(m.count, MetaInt(meta, meta_path, "shard_count", 1, 1'000'000));
  FRONTIER_ASSIGN_OR_RETURN(m.index, MetaInt(meta, meta_path, "shard_index", 0, m.count - 1));
  // Offsets beyond an hour were refused by the rendezvous itself: one here was written by hand.
  FRONTIER_ASSIGN_OR_RETURN(m.offset_ns, MetaInt(meta, meta_path, "clock_offset_ns", -kMaxClockOffsetNs, kMaxClockOffsetNs));
  FRONTIER_ASSIGN_OR_RETURN(m.bound_ns, MetaInt(meta, meta_path, "clock_offset_bound_ns", 0, kMaxClockOffsetNs));
  if (m.index == 0 && (m.offset_ns != 0 || m.bound_ns != 0)) {
    return InvalidArgument(meta_path + ": shard 0 is the reference clock: its clock_offset_ns and "
                           "clock_offset_bound_ns must be 0, got " + std::to_string(m.offset_ns) + " and " +
                           std::to_string(m.bound_ns));
  }
  FRONTIER_ASSIGN_OR_RETURN(m.host, MetaText(meta, meta_path, "host"));
  m.schedule = meta.value("schedule", nlohmann::json::object());
  m.run = meta.value("run", nlohmann::json::object());
  if (!m.schedule.is_object()) return InvalidArgument(meta_path + ": schedule must be a JSON object");
  if (!m.run.is_object()) return InvalidArgument(meta_path + ": run must be a JSON object");
  return m;
}

// Each shard's meta file, checked to be one run's: the same count and
// schedule, every shard once.
Result<std::vector<ShardMeta>> ReadShardMetas(const std::vector<std::string>& jsonl_paths) {
  std::vector<ShardMeta> metas;
  int64_t count = -1;
  std::set<int64_t> indices;
  for (const auto& path : jsonl_paths) {
    FRONTIER_ASSIGN_OR_RETURN(ShardMeta meta, ReadShardMeta(ShardMetaPath(path)));
    if (count < 0) count = meta.count;
    if (meta.count != count)
      return InvalidArgument(path + " is shard " + std::to_string(meta.index) + " of " + std::to_string(meta.count) +
                             ", " + jsonl_paths[0] + " one of " + std::to_string(count) + ": not the same run");
    if (!indices.insert(meta.index).second)
      return InvalidArgument(path + ": shard " + std::to_string(meta.index) + " given twice");
    if (!metas.empty() && meta.schedule != metas[0].schedule)
      return InvalidArgument(path + ": its schedule " + meta.schedule.dump() + " differs from " + jsonl_paths[0] +
                             "'s " + metas[0].schedule.dump() + ": not the same run");
    metas.push_back(std::move(meta));
  }
  // Every shard once; the first few missing are named (the count may be large).
  std::string missing;
  int64_t missing_n = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (indices.count(i)) continue;
    if (++missing_n <= 10) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  }
  if (missing_n > 10) missing += ", ... (" + std::to_string(missing_n) + " in all)";
  if (missing_n > 0)
    return InvalidArgument("bench merge: shard(s) " + missing + " of " + std::to_string(count) +
                           " missing: give every shard's JSONL");
  return metas;
}

// Reads one shard's records into m->run.requests, checking each (times in
// order, the shard's own ids, within the schedule, each once across shards in
// `ids`) and that the shard's ids have no hole; adds the shard to m->shards.
Status ReadShardRecords(const std::string& path, const ShardMeta& meta, int64_t count,
                        const std::optional<int64_t>& num_prompts, std::set<int64_t>* ids, MergedShards* m) {
  const int64_t index = meta.index;
  // Streamed: the records are held, never the files' text (core/line_reader.h).
  FRONTIER_ASSIGN_OR_RETURN(LineReader in, LineReader::Open(path, kMaxFileBytes, "request records"));
  std::string line;
  int64_t n = 0;
  std::vector<int64_t> own;  // this shard's measured ids
  while (true) {
    FRONTIER_ASSIGN_OR_RETURN(const bool more, in.Next(&line));
    if (!more) break;
    const int64_t lineno = in.line_no();
    if (line.empty()) continue;
    const std::string at = path + ":" + std::to_string(lineno);
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) return InvalidArgument(at + ": not JSON (a record cut off?)");
    Result<RequestRecord> r = metrics::RequestRecordFromJson(j);
    if (!r.ok()) return r.status().WithContext(at);
    const std::string req = at + ": request " + std::to_string(r->id);
    // Times in order: sent, then the first token, then the end (-1: not reached).
    if (r->end_ns >= 0 && r->end_ns < r->sent_ns)
      return InvalidArgument(req + ": end_ns " + std::to_string(r->end_ns) + " is before sent_ns " +
                             std::to_string(r->sent_ns));
    if (r->first_token_ns >= 0 && (r->first_token_ns < r->sent_ns || (r->end_ns >= 0 && r->first_token_ns > r->end_ns)))
      return InvalidArgument(req + ": first_token_ns " + std::to_string(r->first_token_ns) +
                             " is outside [sent_ns, end_ns] = [" + std::to_string(r->sent_ns) + ", " +
                             std::to_string(r->end_ns) + "]");
    if (!r->warmup) {
      if (r->id % count != index) {
        return InvalidArgument(req + " does not belong to shard " + std::to_string(index) + " of " +
                               std::to_string(count));
      }
      if (num_prompts && r->id >= *num_prompts)
        return InvalidArgument(req + ": the id is outside the schedule's " + std::to_string(*num_prompts) +
                               " requests (ids 0.." + std::to_string(*num_prompts - 1) + ")");
      if (!ids->insert(r->id).second) return InvalidArgument(req + " appears twice");
      own.push_back(r->id);
    }
    if (static_cast<int64_t>(m->run.requests.size()) >= kMaxRunRequests)
      return InvalidArgument(at + ": the shards hold more than " + std::to_string(kMaxRunRequests) +
                             " request records, the bound on one run's requests (docs/limits.md)");
    m->run.requests.push_back(std::move(*r));
    ++n;
  }
  // A shard issues its positions in order, so its ids are index, index + k,
  // ... without a hole: one missing was lost or removed.
  std::sort(own.begin(), own.end());
  for (size_t i = 0; i < own.size(); ++i) {
    const int64_t want = index + static_cast<int64_t>(i) * count;
    if (own[i] != want) {
      return InvalidArgument(path + ": request " + std::to_string(want) + " is missing (shard " +
                             std::to_string(index) + " of " + std::to_string(count) + " issues ids " +
                             std::to_string(index) + ", " + std::to_string(index + count) +
                             ", ... in order; its records end at " + std::to_string(own.back()) + ")");
    }
  }
  const double bound_ms = static_cast<double>(meta.bound_ns) / 1e6;
  m->clock_offset_bound_ms = std::max(m->clock_offset_bound_ms, bound_ms);
  m->shards.push_back({{"index", index},
                       {"host", meta.host},
                       {"jsonl", path},
                       {"requests", n},
                       {"clock_offset_ms", static_cast<double>(meta.offset_ns) / 1e6},
                       {"clock_offset_bound_ms", bound_ms}});
  return Status::Ok();
}

// Provenance from shard 0 (its schedule and run); the duration over every
// shard (first send to last end, as RunLoad counts it).
Status SetMergedRun(const std::vector<std::string>& jsonl_paths, const std::vector<ShardMeta>& metas,
                    MergedShards* m) {
  size_t first = 0;
  for (size_t f = 0; f < metas.size(); ++f)
    if (metas[f].index == 0) first = f;
  m->schedule = metas[first].schedule;
  const std::string run_where = ShardMetaPath(jsonl_paths[first]) + ": run";
  const nlohmann::json& run = metas[first].run;
  m->run.source = RunSource::kMeasured;
  FRONTIER_ASSIGN_OR_RETURN(m->run.base_url, MetaText(run, run_where, "base_url"));
  FRONTIER_ASSIGN_OR_RETURN(m->run.endpoint, MetaText(run, run_where, "endpoint"));
  FRONTIER_ASSIGN_OR_RETURN(m->run.model, MetaText(run, run_where, "model"));
  FRONTIER_ASSIGN_OR_RETURN(m->run.served_model, MetaText(run, run_where, "served_model"));
  FRONTIER_ASSIGN_OR_RETURN(m->run.start_time_utc, MetaText(run, run_where, "start_time_utc"));
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> gpus,
                            metrics::JsonFields(run, run_where).Integer("num_gpus", 1, bounds::kMaxGpus));
  m->run.num_gpus = static_cast<int>(gpus.value_or(1));
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (const auto& r : m->run.requests) {
    if (r.warmup) continue;
    lo = std::min<int64_t>(lo, r.sent_ns);
    hi = std::max<int64_t>(hi, r.end_ns);
  }
  m->run.duration_ns = hi > lo ? hi - lo : 0;
  return Status::Ok();
}

Result<MergedShards> MergeShardsUnchecked(const std::vector<std::string>& jsonl_paths) {
  if (jsonl_paths.empty()) return InvalidArgument("bench merge: give the shards' --requests-jsonl files");
  MergedShards m;
  m.shards = nlohmann::json::array();
  FRONTIER_ASSIGN_OR_RETURN(const std::vector<ShardMeta> metas, ReadShardMetas(jsonl_paths));
  const int64_t count = metas[0].count;
  // The schedule's request count, when it had one: no id reaches it.
  const metrics::JsonFields schedule(metas[0].schedule, ShardMetaPath(jsonl_paths[0]) + ": schedule");
  FRONTIER_ASSIGN_OR_RETURN(const std::optional<int64_t> num_prompts,
                            schedule.Integer("num_prompts", 1, kMaxRunRequests));

  std::set<int64_t> ids;
  for (size_t f = 0; f < jsonl_paths.size(); ++f)
    FRONTIER_RETURN_IF_ERROR(ReadShardRecords(jsonl_paths[f], metas[f], count, num_prompts, &ids, &m));
  std::sort(m.run.requests.begin(), m.run.requests.end(),
            [](const RequestRecord& a, const RequestRecord& b) { return a.id < b.id; });
  std::sort(m.shards.begin(), m.shards.end(),
            [](const nlohmann::json& a, const nlohmann::json& b) { return a["index"] < b["index"]; });
  FRONTIER_RETURN_IF_ERROR(SetMergedRun(jsonl_paths, metas, &m));
  char bound[32];
  std::snprintf(bound, sizeof bound, "%.3f", m.clock_offset_bound_ms);
  m.run.effective_settings["shards"] = std::to_string(jsonl_paths.size());
  m.run.effective_settings["clock_offset_bound_ms"] = bound;
  return m;
}

}  // namespace

Result<MergedShards> MergeShards(const std::vector<std::string>& jsonl_paths) {
  // Every field is read with its type (MetaInt, JsonFields); a library
  // exception would still end as an error naming the command, not a crash.
  try {
    return MergeShardsUnchecked(jsonl_paths);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument("bench merge: a shard file could not be read: " + std::string(e.what()));
  }
}

Status WriteMergedResultJson(const std::string& path, const MergedShards& merged, const metrics::Summary& summary,
                             const metrics::SummaryOptions& options) {
  nlohmann::json extra = merged.schedule;
  extra["shards"] = merged.shards;
  extra["clock_offset_bound_ms"] = merged.clock_offset_bound_ms;
  return metrics::WriteResultJson(path, merged.run, summary, options, &extra);
}

Result<MergedRun> MergeShardRun(const std::vector<std::string>& jsonl_paths, const std::string& percentiles,
                                const std::string& command_line) {
  MergedRun m;
  FRONTIER_ASSIGN_OR_RETURN(m.options.percentiles, metrics::ParsePercentileList(percentiles, "--percentiles"));
  FRONTIER_ASSIGN_OR_RETURN(m.merged, MergeShards(jsonl_paths));
  m.options.num_gpus = m.merged.run.num_gpus;
  m.merged.run.command_line = command_line;
  m.summary = metrics::Summarize(m.merged.run, m.options);
  return m;
}

std::string MergedShardsText(const MergedShards& merged) {
  std::string out =
      fmt::format("Shards: {}; clock offsets from shard 0 measured at the rendezvous:\n", merged.shards.size());
  for (const auto& sh : merged.shards) {
    out += fmt::format("  shard {} on {}: {} requests, offset {:+.3f} ms +/- {:.3f} ms\n", sh["index"].get<int64_t>(),
                       sh["host"].get<std::string>(), sh["requests"].get<int64_t>(),
                       sh["clock_offset_ms"].get<double>(), sh["clock_offset_bound_ms"].get<double>());
  }
  return out + fmt::format("Times across shards are known to within {:.3f} ms (the largest bound)\n",
                           merged.clock_offset_bound_ms);
}

}  // namespace frontier::loadgen
