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
#include "core/clock.h"
#include "core/host_name.h"
#include "core/parse.h"
#include "metrics/result_json.h"

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
    const int64_t index = meta["shard_index"].get<int64_t>(), k = meta["shard_count"].get<int64_t>();
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
  std::string missing;
  for (int64_t i = 0; i < count; ++i)
    if (!indices.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  if (!missing.empty())
    return InvalidArgument("bench merge: shard(s) " + missing + " of " + std::to_string(count) +
                           " missing: give every shard's JSONL");

  std::set<int64_t> ids;
  for (size_t f = 0; f < jsonl_paths.size(); ++f) {
    const nlohmann::json& meta = metas[f];
    const int64_t index = meta["shard_index"].get<int64_t>();
    FRONTIER_ASSIGN_OR_RETURN(std::string text, ReadFile(jsonl_paths[f], kMaxFileBytes, "request records"));
    std::istringstream in(text);
    std::string line;
    int64_t n = 0, lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      if (line.empty()) continue;
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded())
        return InvalidArgument(jsonl_paths[f] + ":" + std::to_string(lineno) + ": not JSON (a record cut off?)");
      Result<RequestRecord> r = metrics::RequestRecordFromJson(j);
      if (!r.ok()) return r.status().WithContext(jsonl_paths[f] + ":" + std::to_string(lineno));
      if (!r->warmup && r->id % count != index) {
        return InvalidArgument(jsonl_paths[f] + ":" + std::to_string(lineno) + ": request " + std::to_string(r->id) +
                               " does not belong to shard " + std::to_string(index) + " of " + std::to_string(count));
      }
      if (!r->warmup && !ids.insert(r->id).second)
        return InvalidArgument(jsonl_paths[f] + ":" + std::to_string(lineno) + ": request " + std::to_string(r->id) +
                               " appears twice");
      m.run.requests.push_back(std::move(*r));
      ++n;
    }
    const double bound_ms = static_cast<double>(meta["clock_offset_bound_ns"].get<int64_t>()) / 1e6;
    m.clock_offset_bound_ms = std::max(m.clock_offset_bound_ms, bound_ms);
    m.shards.push_back({{"index", index},
                        {"host", meta.value("host", "")},
                        {"jsonl", jsonl_paths[f]},
                        {"requests", n},
                        {"clock_offset_ms", static_cast<double>(meta["clock_offset_ns"].get<int64_t>()) / 1e6},
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
  m.run.duration_ns = hi > lo ? hi - lo : 0;
  return m;
}

}  // namespace

}  // namespace frontier::loadgen
