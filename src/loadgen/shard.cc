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

int64_t WallNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

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

// A connected TCP socket with line-based reads under a deadline.
class Line {
 public:
  explicit Line(int fd) : fd_(fd) {
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~Line() {
    if (fd_ >= 0) ::close(fd_);
  }
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;

  Status Send(const std::string& line) {
    const std::string s = line + "\n";
    size_t off = 0;
    while (off < s.size()) {
      const ssize_t n = ::send(fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return IoError("rendezvous: the connection closed while sending");
      off += static_cast<size_t>(n);
    }
    return Status::Ok();
  }

  Result<std::string> Receive(int64_t deadline_ns) {
    for (;;) {
      const size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      const int64_t left = deadline_ns - SteadyClock::MonotonicNow();
      if (left <= 0) return Unavailable("rendezvous: no answer in time");
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(std::min<int64_t>(left / 1'000'000 + 1, 1000))) <= 0) continue;
      char tmp[512];
      const ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
      if (n <= 0) return IoError("rendezvous: the other side closed the connection");
      buf_.append(tmp, static_cast<size_t>(n));
      if (buf_.size() > 4096) return IoError("rendezvous: an over-long line (not a frontier shard?)");
    }
  }

 private:
  int fd_;
  std::string buf_;
};

Result<sockaddr_in> Resolve(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos)
    return InvalidArgument("--rendezvous " + address + ": must be HOST:PORT, e.g. 127.0.0.1:29517");
  FRONTIER_ASSIGN_OR_RETURN(int64_t port, ParseInt("--rendezvous port", address.substr(colon + 1), 1, 65535));
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string host = address.substr(0, colon);
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || res == nullptr)
    return InvalidArgument("--rendezvous " + address + ": the host " + host + " does not resolve (IPv4)");
  sockaddr_in a = *reinterpret_cast<sockaddr_in*>(res->ai_addr);
  ::freeaddrinfo(res);
  a.sin_port = htons(static_cast<uint16_t>(port));
  return a;
}

int64_t Field(const std::string& line, const std::string& word) {
  std::istringstream in(line);
  std::string w;
  int64_t v = 0;
  in >> w >> v;
  return w == word ? v : std::numeric_limits<int64_t>::min();
}

// Shard 0: accepts every other shard and answers its pings; returns the connections.
Status Leader(const ShardSpec& shard, const sockaddr_in& addr, int64_t deadline,
              std::vector<std::unique_ptr<Line>>* peers_out) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0) {
    ::close(fd);
    return IoError("rendezvous: shard 0 cannot listen on port " + std::to_string(ntohs(addr.sin_port)) +
                   " (in use? pick another --rendezvous port)");
  }
  std::vector<std::unique_ptr<Line>>& peers = *peers_out;
  std::set<int64_t> seen;
  while (static_cast<int64_t>(peers.size()) < shard.count - 1) {
    const int64_t left = deadline - SteadyClock::MonotonicNow();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0) {
      ::close(fd);
      return Unavailable("rendezvous: " + std::to_string(shard.count - 1 - static_cast<int64_t>(peers.size())) +
                         " of " + std::to_string(shard.count) + " shards never connected (started with the same --shard count and --rendezvous?)");
    }
    if (::poll(&p, 1, static_cast<int>(std::min<int64_t>(left / 1'000'000 + 1, 1000))) <= 0) continue;
    const int c = ::accept(fd, nullptr, nullptr);
    if (c < 0) continue;
    auto line = std::make_unique<Line>(c);
    Result<std::string> hello = line->Receive(deadline);
    if (!hello.ok()) continue;
    std::istringstream in(*hello);
    std::string word;
    int64_t index = -1, count = -1;
    in >> word >> index >> count;
    if (word != "hello" || count != shard.count || index <= 0 || index >= shard.count || !seen.insert(index).second) {
      (void)line->Send("refused: this rendezvous is for shards 1.." + std::to_string(shard.count - 1) + " of " +
                       std::to_string(shard.count));
      continue;
    }
    // Answers the rank's pings with this clock until it says "done".
    for (;;) {
      Result<std::string> ping = line->Receive(deadline);
      if (!ping.ok()) {
        ::close(fd);
        return ping.status();
      }
      if (ping->rfind("done", 0) == 0) break;
      FRONTIER_RETURN_IF_ERROR(line->Send("pong " + std::to_string(WallNow())));
    }
    peers.push_back(std::move(line));
  }
  ::close(fd);
  return Status::Ok();
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

Result<ShardClock> Rendezvous(const ShardSpec& shard, const std::string& address, double timeout_s, double lead_s) {
  FRONTIER_ASSIGN_OR_RETURN(sockaddr_in addr, Resolve(address));
  const int64_t deadline = SteadyClock::MonotonicNow() + static_cast<int64_t>(timeout_s * 1e9);
  ShardClock clock;
  std::unique_ptr<Line> leader;
  if (shard.index == 0) {
    std::vector<std::unique_ptr<Line>> peers;
    FRONTIER_RETURN_IF_ERROR(Leader(shard, addr, deadline, &peers));
    // Every other rank has measured its offset: the start is named on this clock.
    clock.start_unix_ns = WallNow() + static_cast<int64_t>(lead_s * 1e9);
    for (auto& p : peers) FRONTIER_RETURN_IF_ERROR(p->Send("start " + std::to_string(clock.start_unix_ns)));
  } else {
    // Connects, retrying while shard 0 is not listening yet.
    int fd = -1;
    for (;;) {
      fd = ::socket(AF_INET, SOCK_STREAM, 0);
      if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) break;
      ::close(fd);
      if (SteadyClock::MonotonicNow() > deadline)
        return Unavailable("rendezvous: shard 0 is not listening on " + address + " (is it running?)");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    leader = std::make_unique<Line>(fd);
    FRONTIER_RETURN_IF_ERROR(leader->Send("hello " + std::to_string(shard.index) + " " + std::to_string(shard.count)));
    int64_t best_rtt = std::numeric_limits<int64_t>::max();
    for (int r = 0; r < kPingRounds; ++r) {
      const int64_t t1 = WallNow();
      FRONTIER_RETURN_IF_ERROR(leader->Send("ping"));
      FRONTIER_ASSIGN_OR_RETURN(std::string pong, leader->Receive(deadline));
      const int64_t t3 = WallNow();
      const int64_t t2 = Field(pong, "pong");
      if (t2 == std::numeric_limits<int64_t>::min()) return IoError("rendezvous: shard 0 answered '" + pong + "'");
      if (t3 - t1 < best_rtt) {
        best_rtt = t3 - t1;
        clock.rtt_ns = best_rtt;
        clock.offset_ns = t2 - (t1 + t3) / 2;
        clock.bound_ns = (best_rtt + 1) / 2;
      }
    }
    FRONTIER_RETURN_IF_ERROR(leader->Send("done"));
    FRONTIER_ASSIGN_OR_RETURN(std::string start, leader->Receive(deadline));
    clock.start_unix_ns = Field(start, "start");
    if (clock.start_unix_ns == std::numeric_limits<int64_t>::min())
      return IoError("rendezvous: shard 0 answered '" + start + "'");
  }
  // The start on this machine's wall clock, then on its steady clock (which the run's times use).
  const int64_t local_start = clock.start_unix_ns - clock.offset_ns;
  clock.start_steady_ns = SteadyClock::MonotonicNow() + (local_start - WallNow());
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
