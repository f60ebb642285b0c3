// profile.h: turns `frontier serve`'s timing flags into a TimingSource.
//
//   --profile fixed: FixedTiming (fixed_timing.h) with --ttft-ms, --itl-ms,
//     --tokens-per-event, --max-model-len.
//   --profile sim (the default): SimTiming (sim_timing.h), the simulator's
//     engine for the deployment the same flags as `frontier simulate` name.
//
// Thread safety: pure function of its arguments (ResolveProfile reads the
// catalog files for the sim profile).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "serve/fixed_timing.h"
#include "serve/timing.h"
#include "sim/engine/config.h"

namespace frontier::serve {

struct ProfileSpec {
  std::string profile = "sim";           // "fixed" or "sim"
  FixedProfile fixed;                    // fixed profile; its time_scale is ignored
  sim::SimSpec sim;                      // sim profile
  std::optional<int64_t> max_model_len;  // fixed: default 131072; sim: default and cap the model's
  double time_scale = 1.0;               // > 0
  // Flags given that only one profile reads (e.g. "--model"), for an error
  // naming the flag when the other profile is chosen.
  std::vector<std::string> sim_only_flags_given, fixed_only_flags_given;
};

struct ResolvedProfile {
  std::unique_ptr<TimingSource> timing;
  std::string default_model_name;                // what clients send unless --served-model-name
  std::string description;                       // one line for the start-up message
  std::map<std::string, std::string> effective;  // settings as resolved
};

// Errors: InvalidArgument naming the flag (a flag of the other profile, a bad
// value); the simulator's NotFound / FailedPrecondition for an unknown model
// or a deployment that does not fit.
Result<ResolvedProfile> ResolveProfile(const ProfileSpec& spec);

}  // namespace frontier::serve
