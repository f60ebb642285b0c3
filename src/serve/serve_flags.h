// serve_flags.h: `frontier serve`'s own flags (ServeFlags: the server's
// options, which the rows bind in place, and the raw values the rest resolve
// from, defaults those of ProfileSpec and ServeOptions), their table
// (ServeFlagRows, which cli/serve_cmd.cc binds beside SimSpec's), and their
// resolution into the server's options and its timeline (ResolveServeFlags).
//
// Thread safety: none; the command's thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/flag_table.h"
#include "core/status.h"
#include "serve/profile.h"
#include "serve/server.h"

namespace frontier::serve {

// The rows bind ServeOptions' own fields (--host, --port, --served-model-name,
// --seed, --default-max-tokens, --natural-output-len, --max-body-bytes) in
// the base; the fields below are what a row cannot reach there (the members
// of its http and faults members) or what resolves first: the profile,
// seconds to nanoseconds, the fault seed's default, the grace.
struct ServeFlags : ServeOptions {
  std::string profile = ProfileSpec{}.profile;
  sim::SimSpec sim;  // the deployment, bound by SimSpec's own table
  double ttft_ms = FixedProfile{}.ttft_ms, itl_ms = FixedProfile{}.itl_ms;
  int tokens_per_event = FixedProfile{}.tokens_per_event;
  int64_t slots = FixedProfile{}.slots;
  std::optional<int64_t> max_model_len;
  double time_scale = ProfileSpec{}.time_scale;
  int max_connections = ServeOptions{}.http.max_connections;
  double header_timeout_s = NanosToSeconds(ServeOptions{}.http.header_timeout);
  double idle_timeout_s = NanosToSeconds(ServeOptions{}.http.idle_timeout);
  double fault_error_rate = 0, fault_429_rate = 0, fault_disconnect_rate = 0, fault_stall_ms = 0,
         fault_stall_rate = FaultOptions{}.stall_rate;
  double shutdown_grace_s = 0;
  std::optional<uint64_t> fault_seed;  // default: seed
};

// The flags above but the deployment's, in --help's order, in the default
// group ("Options"); --help shows their defaults.
std::span<const FlagRow<ServeFlags>> ServeFlagRows();

// What the flags resolve to.
struct ServeSetup {
  ServeOptions options;     // model_name: --served-model-name, else the profile's
  ResolvedProfile profile;
  double grace_s = 0;       // --shutdown-grace-s
};

// The options and the timeline of `f`. `given`: the flags on the command
// line, by name without "--"; `sim_flags`: the deployment's flags (with
// "--"), which the fixed profile refuses. InvalidArgument naming the flag for
// a value out of range (option_ranges.h), --max-num-seqs auto, or a flag of
// the other profile; ResolveProfile's errors.
Result<ServeSetup> ResolveServeFlags(const ServeFlags& f, const std::map<std::string, std::string>& given,
                                     const std::vector<std::string>& sim_flags);

}  // namespace frontier::serve
