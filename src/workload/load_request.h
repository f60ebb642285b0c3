// load_request.h: the load a command asks for, as its flags give it, resolved
// against the workload into LoadOptions and the dataset's size, and every
// resolved workload and load setting described for a run's provenance.
//
//   workload::LoadRequest r;              // filled from --num-prompts, --warmup, ...
//   FRONTIER_RETURN_IF_ERROR(workload::ResolveLoad(r, spec, &dataset, &load));
//   workload::DescribeWorkload(spec, dataset, load, ignore_eos, "token-ids", &effective);
//
// Rules (docs/bench.md, docs/workloads.md):
//   * burstiness inf sends every request at time zero (request_rate = inf).
//   * a duration without a request count: load.num_prompts = kUnboundedPrompts
//     and the dataset (kDurationDatasetSize distinct requests) is cycled; a
//     duration needs a concurrency cap or a finite rate, except for sessions.
//   * dataset.num_prompts = warm-up + measured requests.
//   * no request count given: shared-prefix sends its G x P prompts once, a
//     trace all of its sessions (dataset.num_prompts 0: PrepareWorkload counts
//     them), multi-turn 100 sessions.
//   * session workloads take the session rate instead of the request rate.
// Messages name the command line's flags (plans translate them through
// workload/option_names.h).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "core/status.h"
#include "workload/dataset.h"
#include "workload/load.h"
#include "workload/spec.h"

namespace frontier::workload {

inline constexpr int64_t kUnboundedPrompts = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kDurationDatasetSize = 1000;
// The largest finite burstiness (the gamma shape of arrival gaps): --burstiness
// and a plan's load.burstiness take (0, kMaxBurstiness].
inline constexpr double kMaxBurstiness = 1e6;

// The load flags as given (text where "inf" is allowed).
struct LoadRequest {
  int64_t num_prompts = 1000;              // --num-prompts
  bool num_prompts_given = false;          // else a session or shared-prefix workload picks its own count
  int64_t warmup = 0;                      // --warmup
  std::optional<int64_t> max_concurrency;  // --max-concurrency, when given
  std::string request_rate = "inf";        // --request-rate: req/s or inf
  std::string session_rate = "inf";        // --session-rate: sessions/s or inf (session workloads)
  std::string burstiness = "1";            // --burstiness: Gamma shape or inf
  std::optional<double> duration_s;        // --duration, when given
  uint64_t seed = 0;                       // --seed
};

// Fills *load and dataset->num_prompts (and allow_repeat) from `r`;
// dataset->kind must be spec's. InvalidArgument naming the flag and its bounds.
Status ResolveLoad(const LoadRequest& r, const WorkloadSpec& spec, DatasetOptions* dataset, LoadOptions* load);

// The token ids `prompts` random prompts of `r`'s lengths hold in memory:
// prompts x (ceil(input_len x (1 + range_ratio)) + prefix_len), each at its
// longest. The flags' bound (CheckPromptMemory) and a plan's use it.
double RandomPromptTokens(const RandomDatasetOptions& r, double prompts);

// InvalidArgument when a random workload's prompts (dataset.num_prompts of
// dataset.random's lengths), held in memory as token ids, would pass
// kMaxRunPromptTokens.
Status CheckPromptMemory(const DatasetOptions& dataset);

// Writes the resolved workload and load settings into *effective (dataset,
// lengths, sessions, cancellation, counts, rates); `prompt_format` is the one
// shown for random prompts.
void DescribeWorkload(const WorkloadSpec& spec, const DatasetOptions& dataset, const LoadOptions& load,
                      bool ignore_eos, const std::string& prompt_format,
                      std::map<std::string, std::string>* effective);

// "inf" / "infinity" -> +inf, else a finite number. InvalidArgument naming `flag`.
Result<double> ParseNumberOrInf(const std::string& flag, const std::string& text);

// A number as provenance shows it: "inf" (either sign), or %g (FormatSignificant).
std::string SettingNumber(double v);

}  // namespace frontier::workload
