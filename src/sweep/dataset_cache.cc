#include "sweep/dataset_cache.h"

#include <algorithm>

namespace frontier::sweep {

Result<std::vector<workload::RequestSpec>> DatasetCache::Load(const workload::DatasetOptions& o, int64_t expect) {
  // A count under 1 is refused by LoadDataset before it reads anything.
  if (!workload::IsFileDataset(o.kind) || o.num_prompts < 1) return workload::LoadDataset(o);
  const uint64_t seed = o.kind == workload::DatasetKind::kShareGpt ? o.seed : 0;
  const Key key{o.kind, o.path, seed, o.sharegpt_output_len.value_or(0)};
  Slot* slot = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<Slot>& s = slots_[key];
    if (!s) s = std::make_unique<Slot>();
    slot = s.get();  // slots are never removed while the cache lives
  }
  std::shared_ptr<const workload::DatasetEntries> entries;
  {
    std::lock_guard<std::mutex> lock(slot->mu);
    if (slot->read_for == 0 || (slot->error.ok() && !slot->entries->Covers(o.num_prompts))) {
      workload::DatasetOptions r = o;
      r.num_prompts = std::max({o.num_prompts, expect, 2 * slot->read_for});
      ++reads_;
      Result<workload::DatasetEntries> read = workload::ReadDatasetEntries(r);
      slot->read_for = r.num_prompts;
      if (read.ok()) {
        slot->entries = std::make_shared<const workload::DatasetEntries>(std::move(*read));
        slot->error = Status::Ok();
      } else {
        slot->entries.reset();
        slot->error = read.status();
      }
    }
    if (!slot->error.ok()) return slot->error;
    entries = slot->entries;  // kept while drawing, even if another point reads the file again
  }
  return workload::DrawDataset(*entries, o);
}

int64_t LargestPointRequests(const Plan& plan) {
  if (plan.search) return 0;
  int64_t most = 0;
  for (double v : plan.load.values)
    most = std::max(most, static_cast<int64_t>(PointPrompts(plan.load, v)) + plan.load.warmup);
  return most;
}

}  // namespace frontier::sweep
