// shard.h: one workload's load from several processes (and hosts), merged
// back into one result.
//
// `frontier bench --shard i/k` runs shard i of k: every shard builds the same
// seeded requests and arrival schedule and issues the positions p with
// p % k == i (workload::LoadOptions::shard_*), so the shards together issue
// exactly the single-process schedule. Before the run the shards meet at a
// rendezvous (a TCP address, rank 0 listening): each other rank measures the
// offset of its wall clock from rank 0's by ping-pong (the exchange with the
// shortest round trip of kPingRounds; the offset is known to within half that
// round trip, its bound), and rank 0 names a start time on its clock a moment
// ahead; every rank converts it to its own steady clock and starts its
// schedule then (LoadOptions::start_at_ns). Records are relative to that
// common time zero, so merging is a union. The shards prove to each other
// that they hold one shared token (RendezvousOptions) before they trust a
// clock reading.
//
// Each shard writes its per-request JSONL as usual and, beside it,
// `<jsonl>.shard.json` (ShardMetaPath): its index, the count, host, clock
// offset and bound, and the schedule's identity (seed, num_prompts, rate, ...).
// `frontier bench merge A.jsonl B.jsonl ...` (MergeShards) checks the shards
// form one complete set of one schedule and joins their records; the summary
// is then computed once over every request (metrics::Summarize), so its
// percentiles are exact, and the result states the offsets and their bound.
//
// Thread safety: functions; Rendezvous blocks the calling thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/run_result.h"
#include "core/status.h"
#include "metrics/summary.h"
#include "workload/load.h"

namespace frontier::loadgen {

inline constexpr int kPingRounds = 32;

struct ShardSpec {
  int64_t index = 0, count = 1;
  std::string from;            // "--shard", "OMPI_COMM_WORLD_RANK/SIZE" or "SLURM_PROCID/SLURM_NTASKS"
};

// `flag` ("i/k"; "" = not given). Without the flag: Open MPI's
// OMPI_COMM_WORLD_RANK/SIZE, else, inside an srun step (SLURM_STEP_ID set),
// SLURM_PROCID/SLURM_NTASKS; nullopt when none gives more than one shard.
// InvalidArgument naming the flag or variable for a malformed value.
Result<std::optional<ShardSpec>> ResolveShard(const std::string& flag);

// Shard `shard`'s part of `*load`: its position in the schedule
// (shard_index / shard_count) and its share of max_concurrency (shard i gets
// C / k, the first C % k one more). InvalidArgument for a warm-up (shards
// share one measured schedule) or a cap smaller than the shard count.
Status ShareLoad(const ShardSpec& shard, workload::LoadOptions* load);

// What must be equal in every shard of one run, checked by MergeShards: the
// whole (unshared) load's result fields, its seed, and the dataset's name and
// random lengths.
nlohmann::json ShardSchedule(const workload::LoadOptions& whole_load, const std::string& dataset, int64_t input_len,
                             int64_t output_len);

struct ShardClock {
  int64_t offset_ns = 0;       // rank 0's wall clock minus this rank's (0 on rank 0)
  int64_t bound_ns = 0;        // |error| of offset_ns is at most this (half the best round trip)
  int64_t rtt_ns = 0;          // the best round trip
  int64_t start_unix_ns = 0;   // the agreed time zero on rank 0's wall clock
  int64_t start_steady_ns = 0; // the same instant on this process's steady clock
};

// The rendezvous (rendezvous.cc). Every connection proves the shared token
// both ways before anything else is said: shard 0 greets with a random nonce,
// the connecting shard answers "hello INDEX COUNT NONCE MAC" and shard 0
// "welcome MAC", each MAC an HMAC-SHA256 under the token of both nonces, the
// index and the count (the token itself never crosses the wire). A peer that
// cannot (a port scanner, a shard of another run, a forged shard 0) is
// dropped and counted, and the real peer is waited for until the deadline.
struct RendezvousOptions {
  std::string address;         // "HOST:PORT" (IPv4): shard 0 listens there, the others connect
  std::string token;           // the shared secret (required; bench derives one when none is given)
  double timeout_s = 60;       // for the whole meeting: every connect, read and write is under it
  double lead_s = 0.5;         // shard 0 names a start this long after the last shard has measured
};

// A clock offset beyond this is refused: hosts whose wall clocks differ by
// more than an hour are mis-set (fix NTP), and a value that large is more
// likely a forged or broken answer than a clock.
inline constexpr int64_t kMaxClockOffsetNs = 3'600'000'000'000;

// A connection that has not proven the token this long after it was accepted
// is dropped by shard 0 (so idle strangers hold nothing).
inline constexpr double kRendezvousHelloTimeoutS = 5;

// Meets the other shards. Rank 0 names a start `lead_s` after the last rank
// has measured its offset. DeadlineExceeded naming the ranks missing and how
// many strangers were ignored; OutOfRange for an implausible clock offset or
// start; IoError for a socket that cannot be used.
Result<ShardClock> Rendezvous(const ShardSpec& shard, const RendezvousOptions& options);

// Rendezvous with `options.token` resolved: as given, else
// $FRONTIER_RENDEZVOUS_TOKEN, else the identity of `schedule` (so only shards
// of this very schedule meet; a stray of another run is ignored). Records the
// shard and the measured clock in `*effective` (shard, shard_from,
// clock_offset_ns, clock_offset_bound_ns). Rendezvous's errors.
Result<ShardClock> MeetShards(const ShardSpec& shard, RendezvousOptions options, const nlohmann::json& schedule,
                              std::map<std::string, std::string>* effective);

// "<jsonl>.shard.json".
std::string ShardMetaPath(const std::string& jsonl);

// Writes a shard's description (atomically): `schedule` holds what must be
// equal in every shard of one run (seed, num_prompts, request_rate, ...).
Status WriteShardMeta(const std::string& jsonl, const ShardSpec& shard, const ShardClock& clock,
                      const nlohmann::json& schedule, const nlohmann::json& run_fields);

struct MergedShards {
  RunResult run;               // every shard's requests, by id; provenance from shard 0
  nlohmann::json schedule;     // shard 0's (equal in all)
  nlohmann::json shards;       // [{index, host, clock_offset_ms, clock_offset_bound_ms, requests}]
  double clock_offset_bound_ms = 0;  // the largest bound
};

// Reads the shards' JSONL files and their .shard.json; the merged run's
// effective settings add `shards` (how many) and `clock_offset_bound_ms`. InvalidArgument when
// they are not one complete set (a shard missing or twice, counts or
// schedules that differ, a record id outside its shard); NotFound / IoError
// naming the file that cannot be read.
Result<MergedShards> MergeShards(const std::vector<std::string>& jsonl_paths);

// Writes the merged run's result JSON (metrics::WriteResultJson, atomically)
// with the schedule's fields, the shards and the largest clock-offset bound.
Status WriteMergedResultJson(const std::string& path, const MergedShards& merged, const metrics::Summary& summary,
                             const metrics::SummaryOptions& options);

// `frontier bench merge`: the shards of `jsonl_paths` merged (MergeShards),
// with `command_line` as the run's, and summarized once over every request
// at `percentiles` (a --percentiles value, metrics::ParsePercentileList).
struct MergedRun {
  MergedShards merged;
  metrics::SummaryOptions options;
  metrics::Summary summary;
};
Result<MergedRun> MergeShardRun(const std::vector<std::string>& jsonl_paths, const std::string& percentiles,
                                const std::string& command_line);

// The lines `bench merge` prints under the summary: each shard's requests and
// clock offset from shard 0, then the largest bound.
std::string MergedShardsText(const MergedShards& merged);

}  // namespace frontier::loadgen
