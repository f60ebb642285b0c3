// dataset_cache.h: a sweep's file datasets (sharegpt, jsonl), each read once.
//
// Each point of a sweep, and each trial of a search, draws its requests from
// its workload (sessions.h's PointRequests). Read per point, a large file is
// read and parsed again and again: a 120 MB JSONL of 100,000 prompts costs
// about a second a point, far more than simulating it. A DatasetCache reads
// each file once and draws every point from what it read
// (workload::ReadDatasetEntries, workload::DrawDataset): the requests are
// those workload::LoadDataset gives the point, the same prompts, lengths,
// ids and cancellations, and so are the errors.
//
// A read is identified by what its entries depend on: the kind, the path,
// sharegpt_output_len and, for ShareGPT only, the seed (a JSONL file's first
// lines are the same whatever the seed, so all repetitions share one read).
// The first point to ask reads the file for the most requests the caller
// says the sweep will ask (`expect`, its largest point: reading more costs
// no more time, every line is parsed anyway, only the memory of the entries
// kept). A point that asks for more than a read holds, while the file holds
// more, reads it again for max(asked, twice the count held) (a scenario's or
// a search's counts are known only as they come). A failed read is kept
// like a successful one: every point of that read gets its error.
// Other kinds (generated, session workloads) are LoadDataset's, uncached.
//
// One per sweep: the default session factory (sessions.h) makes one and its
// sessions share it; it is freed with the factory, when the sweep ends.
//
// Thread safety: Load may be called from any thread (a simulated system's
// points run on several); a file is read by the first caller that needs it
// while the others that need it wait, and points of other files go on.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "core/status.h"
#include "sweep/plan.h"
#include "workload/dataset.h"
#include "workload/request_spec.h"

namespace frontier::sweep {

class DatasetCache {
 public:
  // workload::LoadDataset(options), a file dataset read for at least
  // `expect` requests when it is read.
  Result<std::vector<workload::RequestSpec>> Load(const workload::DatasetOptions& options, int64_t expect = 0);

  // How many times a file has been read (tests, benchmarks).
  int64_t reads() const { return reads_.load(); }

 private:
  struct Slot {
    std::mutex mu;                                              // held while the file is read
    int64_t read_for = 0;                                       // the last read's count; 0: never read
    std::shared_ptr<const workload::DatasetEntries> entries;    // its entries, when it succeeded
    Status error = Status::Ok();                                // else its error
  };
  using Key = std::tuple<workload::DatasetKind, std::string, uint64_t, int32_t>;

  std::mutex mu_;  // guards slots_ (not the slots)
  std::map<Key, std::unique_ptr<Slot>> slots_;
  std::atomic<int64_t> reads_{0};
};

// The most requests a point of the plan's grid draws from its workload (its
// count plus the warm-up; 0 for a plan with `search:`, whose trials the
// search sizes): what a sweep's DatasetCache reads a file for.
int64_t LargestPointRequests(const Plan& plan);

}  // namespace frontier::sweep
