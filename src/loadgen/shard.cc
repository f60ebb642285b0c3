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
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>
#include <thread>

#include "core/atomic_file.h"
#include "core/checked.h"
#include "core/clock.h"
#include "core/host_name.h"
#include "core/limits.h"
#include "core/line_reader.h"
#include "core/parse.h"
#include "metrics/result_json.h"

namespace frontier::loadgen {
namespace {

Result<ShardSpec> ParsePair(const std::string& what, const std::string& index, const std::string& count) {
  ShardSpec s;
  s.from = what;
  Result<int64_t> k = ParseInt(what, count, 1, kMaxShards);
  if (!k.ok())
    return InvalidArgument(what + ": the shard count must be an integer in 1.." + std::to_string(kMaxShards) +
                           ", got '" + count + "'");
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
Result<MergedShards> MergeShardsUnchecked(const std::vector<std::string>& jsonl_paths);
}  // namespace

Result<MergedShards> MergeShards(const std::vector<std::string>& jsonl_paths) {
  // A .shard.json edited by hand (a field of the wrong type) ends as an error, not an exception.
  try {
    return MergeShardsUnchecked(jsonl_paths);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument("bench merge: a shard description (.shard.json) has a field of the wrong type: " +
                           std::string(e.what()));
  }
}

namespace {

// A record's times (ns from the run's start, shifted by its shard's clock
// offset) within +-kMaxRunNanos, so every difference the summary takes fits
// 64 bits; -1 stands for "none" where a time may be absent.
Status CheckRecordTimes(const RequestRecord& r) {
  auto check = [](const char* field, Nanos t) -> Status {
    if (t >= -kMaxRunNanos && t <= kMaxRunNanos) return Status::Ok();
    return InvalidArgument(std::string("request record: ") + field + " " + std::to_string(t) +
                           " is outside [-1e18, 1e18] ns (1e9 s, the bound on a run's length; docs/limits.md)");
  };
  FRONTIER_RETURN_IF_ERROR(check("scheduled_ns", r.scheduled_ns));
  FRONTIER_RETURN_IF_ERROR(check("sent_ns", r.sent_ns));
  FRONTIER_RETURN_IF_ERROR(check("first_token_ns", r.first_token_ns));
  FRONTIER_RETURN_IF_ERROR(check("end_ns", r.end_ns));
  for (const auto& e : r.events) FRONTIER_RETURN_IF_ERROR(check("events[].t_ns", e.t_ns));
  return Status::Ok();
}

Result<MergedShards> MergeShardsUnchecked(const std::vector<std::string>& jsonl_paths) {
  if (jsonl_paths.empty()) return InvalidArgument("bench merge: give the shards' --requests-jsonl files");
  MergedShards m;
  m.shards = nlohmann::json::array();
  std::vector<nlohmann::json> metas;
  int64_t count = -1;
  std::set<int64_t> indices;
  for (const auto& path : jsonl_paths) {
    const std::string meta_path = ShardMetaPath(path);
    Result<std::string> text = ReadFile(meta_path, kMiB, "shard descriptions");
    if (!text.ok()) {
      return NotFound(meta_path + " is missing: merge takes the JSONL files of `frontier bench --shard` runs (" +
                      text.status().message() + ")");
    }
    nlohmann::json meta = nlohmann::json::parse(*text, nullptr, false);
    if (meta.is_discarded() || !meta.is_object() || !meta.contains("shard_index") || !meta.contains("shard_count"))
      return InvalidArgument(meta_path + ": not a shard description");
    // Judged before anything is sized by them: the count must be one a
    // bench --shard run can have and match the files given.
    auto integer = [&](const char* field, int64_t lo, int64_t hi) -> Result<int64_t> {
      const nlohmann::json& v = meta[field];
      if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX}) ||
          v.get<int64_t>() < lo || v.get<int64_t>() > hi)
        return InvalidArgument(meta_path + ": " + field + " must be an integer in [" + std::to_string(lo) + ", " +
                               std::to_string(hi) + "], got " + v.dump());
      return v.get<int64_t>();
    };
    FRONTIER_ASSIGN_OR_RETURN(const int64_t k, integer("shard_count", 1, kMaxShards));
    FRONTIER_ASSIGN_OR_RETURN(const int64_t index, integer("shard_index", 0, k - 1));
    for (const char* field : {"clock_offset_ns", "clock_offset_bound_ns"}) {
      if (meta.contains(field)) {
        FRONTIER_RETURN_IF_ERROR(integer(field, -kMaxRunNanos, kMaxRunNanos).status());
      }
    }
    if (count < 0) count = k;
    if (k != count)
      return InvalidArgument(path + " is shard " + std::to_string(index) + " of " + std::to_string(k) + ", " +
                             jsonl_paths[0] + " one of " + std::to_string(count) + ": not the same run");
    if (!indices.insert(index).second) return InvalidArgument(path + ": shard " + std::to_string(index) + " given twice");
    if (!metas.empty() && meta["schedule"] != metas[0]["schedule"])
      return InvalidArgument(path + ": its schedule " + meta["schedule"].dump() + " differs from " + jsonl_paths[0] +
                             "'s " + metas[0]["schedule"].dump() + ": not the same run");
    metas.push_back(meta);
  }
  // Named up to ten: shard_count is bounded, but a list of a million is no help.
  std::string missing;
  int64_t n_missing = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (indices.count(i)) continue;
    if (++n_missing <= 10) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  }
  if (n_missing > 10) missing += ", ... (" + std::to_string(n_missing) + " in all)";
  if (!missing.empty())
    return InvalidArgument("bench merge: shard(s) " + missing + " of " + std::to_string(count) + " missing (" +
                           ShardMetaPath(jsonl_paths[0]) + ": shard_count " + std::to_string(count) + ", " +
                           std::to_string(jsonl_paths.size()) + " file(s) given): give every shard's JSONL");

  std::set<int64_t> ids;
  for (size_t f = 0; f < jsonl_paths.size(); ++f) {
    const nlohmann::json& meta = metas[f];
    const int64_t index = meta["shard_index"].get<int64_t>();
    // Streamed: the records are held, never the files' text (core/line_reader.h).
    FRONTIER_ASSIGN_OR_RETURN(LineReader in, LineReader::Open(jsonl_paths[f], kMaxFileBytes, "request records"));
    std::string line;
    int64_t n = 0;
    while (true) {
      FRONTIER_ASSIGN_OR_RETURN(const bool more, in.Next(&line));
      if (!more) break;
      const int64_t lineno = in.line_no();
      if (line.empty()) continue;
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded())
        return InvalidArgument(jsonl_paths[f] + ":" + std::to_string(lineno) + ": not JSON (a record cut off?)");
      Result<RequestRecord> r = metrics::RequestRecordFromJson(j);
      if (!r.ok()) return r.status().WithContext(jsonl_paths[f] + ":" + std::to_string(lineno));
      if (Status st = CheckRecordTimes(*r); !st.ok())
        return st.WithContext(jsonl_paths[f] + ":" + std::to_string(lineno));
      if (!r->warmup && r->id % count != index) {
        return InvalidArgument(jsonl_paths[f] + ":" + std::to_string(lineno) + ": request " + std::to_string(r->id) +
                               " does not belong to shard " + std::to_string(index) + " of " + std::to_string(count));
      }
      if (!r->warmup && !ids.insert(r->id).second)
        return InvalidArgument(jsonl_paths[f] + ":" + std::to_string(lineno) + ": request " + std::to_string(r->id) +
                               " appears twice");
      if (static_cast<int64_t>(m.run.requests.size()) >= kMaxRunRequests)
        return InvalidArgument(jsonl_paths[f] + ":" + std::to_string(lineno) + ": the shards hold more than " +
                               std::to_string(kMaxRunRequests) +
                               " request records, the bound on one run's requests (docs/limits.md)");
      m.run.requests.push_back(std::move(*r));
      ++n;
    }
    const double bound_ms = static_cast<double>(meta.value("clock_offset_bound_ns", int64_t{0})) / 1e6;
    m.clock_offset_bound_ms = std::max(m.clock_offset_bound_ms, bound_ms);
    m.shards.push_back({{"index", index},
                        {"host", meta.value("host", "")},
                        {"jsonl", jsonl_paths[f]},
                        {"requests", n},
                        {"clock_offset_ms", static_cast<double>(meta.value("clock_offset_ns", int64_t{0})) / 1e6},
                        {"clock_offset_bound_ms", bound_ms}});
  }
  std::sort(m.run.requests.begin(), m.run.requests.end(),
            [](const RequestRecord& a, const RequestRecord& b) { return a.id < b.id; });
  std::sort(m.shards.begin(), m.shards.end(),
            [](const nlohmann::json& a, const nlohmann::json& b) { return a["index"] < b["index"]; });
  // Provenance from shard 0; the duration over every shard (first send to last end, as RunLoad counts it).
  const nlohmann::json* first = &metas[0];
  for (const auto& meta : metas)
    if (meta["shard_index"] == 0) first = &meta;
  m.schedule = (*first)["schedule"];
  const nlohmann::json& run = (*first)["run"];
  m.run.source = RunSource::kMeasured;
  m.run.base_url = run.value("base_url", "");
  m.run.endpoint = run.value("endpoint", "");
  m.run.model = run.value("model", "");
  m.run.served_model = run.value("served_model", "");
  m.run.num_gpus = run.value("num_gpus", 1);
  m.run.start_time_utc = run.value("start_time_utc", "");
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (const auto& r : m.run.requests) {
    if (r.warmup) continue;
    lo = std::min<int64_t>(lo, r.sent_ns);
    hi = std::max<int64_t>(hi, r.end_ns);
  }
  m.run.duration_ns = hi > lo ? SaturatingSub(hi, lo) : 0;
  return m;
}

}  // namespace

}  // namespace frontier::loadgen
