// serve_flags.cc: `frontier serve`'s flags, their table and their resolution
// (serve_flags.h).
#include "serve/serve_flags.h"

#include <utility>

#include "serve/option_ranges.h"

namespace frontier::serve {
namespace {

using F = ServeFlags;

const FlagRow<F> kFlags[] = {
    {"--profile", &F::profile, "sim: the simulator's timeline for --model on --hardware; fixed: --ttft-ms/--itl-ms",
     "Options"},
    {"--ttft-ms", &F::ttft_ms, "fixed: admission to the first token event, ms", "Options"},
    {"--itl-ms", &F::itl_ms, "fixed: gap between token events, ms", "Options"},
    {"--tokens-per-event", &F::tokens_per_event, "fixed: tokens per stream event", "Options"},
    {"--slots", &F::slots, "fixed: requests served at once, the rest wait first-come first-served; 0 = no limit",
     "Options"},
    {"--max-model-len", &F::max_model_len, "context length, tokens (fixed: 131072; sim: the model's)", "Options"},
    {"--time-scale", &F::time_scale, "run the clock this many times faster (tests)", "Options"},
    {"--host", &F::host, "numeric address to bind", "Options"},
    {"--port", &F::port, "TCP port; 0 picks a free one", "Options"},
    {"--served-model-name", &F::model_name, "model name clients send (default --model, or 'fixed')", "Options"},
    {"--seed", &F::seed, "seeds the synthetic tokens", "Options"},
    {"--default-max-tokens", &F::default_max_tokens, "max_tokens of a request that gives none", "Options"},
    {"--natural-output-len", &F::natural_output_len,
     "mean length at which the synthetic model ends with EOS, uniform in [N/2, 3N/2]; 0: never", "Options"},
    {"--max-body-bytes", &F::max_body_bytes, "larger request bodies get 413", "Options"},
    {"--max-connections", &F::max_connections,
     "open connections; past it a newcomer closes the one idle the longest, or gets 503 when none is idle (lowered "
     "to the descriptor limit less 64)",
     "Options"},
    {"--header-timeout-s", &F::header_timeout_s,
     "a request head must arrive within this long of its first byte; a body may not pause longer", "Options"},
    {"--idle-timeout-s", &F::idle_timeout_s,
     "a connection with no request in progress and no bytes moving is closed after this long", "Options"},
    {"--fault-error-rate", &F::fault_error_rate, "fraction of requests answered 500", "Options"},
    {"--fault-429-rate", &F::fault_429_rate, "fraction of requests answered 429", "Options"},
    {"--fault-disconnect-rate", &F::fault_disconnect_rate, "fraction of responses cut off mid-stream", "Options"},
    {"--fault-stall-ms", &F::fault_stall_ms, "one stall of this length in each affected response", "Options"},
    {"--fault-stall-rate", &F::fault_stall_rate, "fraction of responses that stall (with --fault-stall-ms)",
     "Options"},
    {"--shutdown-grace-s", &F::shutdown_grace_s,
     "on SIGINT/SIGTERM, stop accepting and let admitted requests finish for up to this long", "Options"},
    {"--fault-seed", &F::fault_seed, "seeds the fault draws (default --seed)", "Options"},
};

// The profile the flags describe, and the flags given that the other profile refuses.
ProfileSpec ProfileOf(const ServeFlags& f, const std::map<std::string, std::string>& given,
                      const std::vector<std::string>& sim_flags) {
  ProfileSpec p;
  p.profile = f.profile;
  p.fixed.ttft_ms = f.ttft_ms;
  p.fixed.itl_ms = f.itl_ms;
  p.fixed.tokens_per_event = f.tokens_per_event;
  p.fixed.slots = f.slots;
  p.sim = f.sim;
  p.max_model_len = f.max_model_len;
  p.time_scale = f.time_scale;
  for (const std::string& flag : sim_flags)
    if (given.contains(flag.substr(2))) p.sim_only_flags_given.push_back(flag);
  for (const char* flag : {"--ttft-ms", "--itl-ms", "--tokens-per-event", "--slots"})
    if (given.contains(flag + 2)) p.fixed_only_flags_given.push_back(flag);
  return p;
}

}  // namespace

std::span<const FlagRow<ServeFlags>> ServeFlagRows() { return kFlags; }

Result<ServeSetup> ResolveServeFlags(const ServeFlags& f, const std::map<std::string, std::string>& given,
                                     const std::vector<std::string>& sim_flags) {
  const ProfileSpec p = ProfileOf(f, given, sim_flags);
  ServeSetup s;
  ServeOptions& o = s.options;
  o = static_cast<const ServeOptions&>(f);  // the fields the rows bound in place
  o.http.max_connections = f.max_connections;
  o.faults.error_rate = f.fault_error_rate;
  o.faults.rate_limit_rate = f.fault_429_rate;
  o.faults.disconnect_rate = f.fault_disconnect_rate;
  o.faults.stall_ms = f.fault_stall_ms;
  o.faults.stall_rate = f.fault_stall_rate;
  FRONTIER_RETURN_IF_ERROR(CheckServeRanges(p, o, f.shutdown_grace_s, f.header_timeout_s, f.idle_timeout_s));
  o.http.header_timeout = SecondsToNanos(f.header_timeout_s);
  o.http.idle_timeout = SecondsToNanos(f.idle_timeout_s);
  o.faults.seed = f.fault_seed.value_or(f.seed);
  if (f.sim.max_num_seqs_auto)
    return InvalidArgument("--max-num-seqs auto raises the cap to a sweep's concurrency; a server's cap is fixed "
                           "when it starts: give a number");
  FRONTIER_ASSIGN_OR_RETURN(s.profile, ResolveProfile(p));
  if (o.model_name.empty()) o.model_name = s.profile.default_model_name;
  s.grace_s = f.shutdown_grace_s;
  return s;
}

}  // namespace frontier::serve
