// `frontier serve`: an OpenAI-compatible server whose tokens come out on a
// known timeline: the simulator's, in wall-clock time, for a catalogued
// deployment (the default), or a fixed one (--profile fixed). Parsing only;
// the server is src/serve/.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/sim_flags.h"
#include "core/parse.h"
#include "serve/option_ranges.h"
#include "serve/profile.h"
#include "serve/server.h"

namespace frontier::cli {
namespace {

int RunServe(int argc, char** argv) {
  CLI::App app{"Serve an OpenAI-compatible API whose tokens follow the simulator's timeline (or a fixed one)",
               "serve"};
  serve::ServeOptions o;
  serve::ProfileSpec p;
  sim::SimSpec& s = p.sim;
  // A flag whose help shows its default.
  auto shown = [&app](const char* name, auto& value, const std::string& help) {
    return app.add_option(name, value, help)->capture_default_str();
  };
  shown("--profile", p.profile, "sim: the simulator's timeline for --model on --hardware; fixed: --ttft-ms/--itl-ms");
  // The deployment, with the same flags as `frontier simulate`.
  AddSimSpecFlags(app, &s);
  for (const char* name : {"--model", "--hardware", "--tp", "--ep", "--spec-tokens"})
    app.get_option(name)->capture_default_str();
  const std::vector<std::string>& sim_flags = SimSpecFlagNames();
  // The fixed profile.
  const std::vector<std::string> fixed_flags = {"--ttft-ms", "--itl-ms", "--tokens-per-event", "--slots"};
  shown("--ttft-ms", p.fixed.ttft_ms, "fixed: admission to the first token event, ms");
  shown("--itl-ms", p.fixed.itl_ms, "fixed: gap between token events, ms");
  shown("--tokens-per-event", p.fixed.tokens_per_event, "fixed: tokens per stream event");
  shown("--slots", p.fixed.slots,
        "fixed: requests served at once, the rest wait first-come first-served; 0 = no limit");
  // Both.
  app.add_option("--max-model-len", p.max_model_len, "context length, tokens (fixed: 131072; sim: the model's)");
  shown("--time-scale", p.time_scale, "run the clock this many times faster (tests)");
  shown("--host", o.host, "numeric address to bind");
  shown("--port", o.port, "TCP port; 0 picks a free one");
  app.add_option("--served-model-name", o.model_name, "model name clients send (default --model, or 'fixed')");
  shown("--seed", o.seed, "seeds the synthetic tokens");
  shown("--default-max-tokens", o.default_max_tokens, "max_tokens of a request that gives none");
  shown("--natural-output-len", o.natural_output_len,
        "mean length at which the synthetic model ends with EOS, uniform in [N/2, 3N/2]; 0: never");
  shown("--max-body-bytes", o.max_body_bytes, "larger request bodies get 413");
  shown("--max-connections", o.http.max_connections,
        "open connections; past it a newcomer closes the one idle the longest, or gets 503 when "
        "none is idle (lowered to the descriptor limit less 64)");
  double header_timeout_s = NanosToSeconds(o.http.header_timeout);
  double idle_timeout_s = NanosToSeconds(o.http.idle_timeout);
  shown("--header-timeout-s", header_timeout_s,
        "a request head must arrive within this long of its first byte; a body may not pause longer");
  shown("--idle-timeout-s", idle_timeout_s,
        "a connection with no request in progress and no bytes moving is closed after this long");
  shown("--fault-error-rate", o.faults.error_rate, "fraction of requests answered 500");
  shown("--fault-429-rate", o.faults.rate_limit_rate, "fraction of requests answered 429");
  shown("--fault-disconnect-rate", o.faults.disconnect_rate, "fraction of responses cut off mid-stream");
  shown("--fault-stall-ms", o.faults.stall_ms, "one stall of this length in each affected response");
  shown("--fault-stall-rate", o.faults.stall_rate, "fraction of responses that stall (with --fault-stall-ms)");
  double grace_s = 0;
  shown("--shutdown-grace-s", grace_s,
        "on SIGINT/SIGTERM, stop accepting and let admitted requests finish for up to this long");
  std::optional<uint64_t> fault_seed;
  app.add_option("--fault-seed", fault_seed, "seeds the fault draws (default --seed)");
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (Status in = serve::CheckServeRanges(p, o, grace_s, header_timeout_s, idle_timeout_s); !in.ok())
    return UsageError("serve", in.message());
  o.http.header_timeout = SecondsToNanos(header_timeout_s);
  o.http.idle_timeout = SecondsToNanos(idle_timeout_s);
  o.faults.seed = fault_seed.value_or(o.seed);
  for (const auto& f : sim_flags)
    if (app.get_option(f)->count() > 0) p.sim_only_flags_given.push_back(f);
  for (const auto& f : fixed_flags)
    if (app.get_option(f)->count() > 0) p.fixed_only_flags_given.push_back(f);

  if (s.max_num_seqs_auto)
    return UsageError("serve", "--max-num-seqs auto raises the cap to a sweep's concurrency; a server's cap is fixed "
                               "when it starts: give a number");
  Result<serve::ResolvedProfile> profile = serve::ResolveProfile(p);
  if (!profile.ok()) return Fail("serve", profile.status());
  if (o.model_name.empty()) o.model_name = profile->default_model_name;
  auto server = serve::Server::Create(o, std::move(profile->timing));
  if (!server.ok()) return Fail("serve", server.status());

  // Block the stop signals before the loop thread starts, so it inherits the
  // mask and only sigwait() below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  if (Status st = (*server)->Start(); !st.ok()) return Fail("serve", st);
  std::cout << "frontier serve: listening on " << (*server)->address() << " (model " << o.model_name << ", "
            << profile->description << ")" << std::endl;
  int sig = 0;
  sigwait(&stop_signals, &sig);
  if (grace_s > 0) {
    std::cout << "frontier serve: draining for up to " << grace_s << " s" << std::endl;
    (*server)->Drain(SecondsToNanos(grace_s));
    (*server)->Wait();
  }
  (*server)->Stop();
  std::cout << "frontier serve: stopped on " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << std::endl;
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(serve, "Serve an OpenAI-compatible API on a simulated or fixed timeline",
                          frontier::cli::RunServe);
