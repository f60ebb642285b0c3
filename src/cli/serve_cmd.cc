// `frontier serve`: an OpenAI-compatible server whose tokens come out on a
// known timeline: the simulator's, in wall-clock time, for a catalogued
// deployment (the default), or a fixed one (--profile fixed). Parsing only;
// the flags resolve in serve/serve_flags.h, the server is src/serve/.
#include <pthread.h>
#include <signal.h>

#include <iostream>
#include <utility>

#include "cli/cli_util.h"
#include "cli/command.h"
#include "cli/sim_flags.h"
#include "core/clock.h"
#include "serve/serve_flags.h"
#include "serve/server.h"

namespace frontier::cli {
namespace {

int RunServe(int argc, char** argv) {
  CLI::App app{"Serve an OpenAI-compatible API whose tokens follow the simulator's timeline (or a fixed one)",
               "serve"};
  serve::ServeFlags f;
  // --help shows the defaults; the deployment's flags are `frontier simulate`'s, five of them showing theirs.
  for (CLI::Option* o : AddFlagRows(app, serve::ServeFlagRows(), &f)) o->capture_default_str();
  AddSimSpecFlags(app, &f.sim);
  for (const char* name : {"--model", "--hardware", "--tp", "--ep", "--spec-tokens"})
    app.get_option(name)->capture_default_str();
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  Result<serve::ServeSetup> setup =
      serve::ResolveServeFlags(f, GivenFlags(std::as_const(app).get_options()), SimSpecFlagNames());
  if (!setup.ok()) return Fail("serve", setup.status());
  const serve::ServeOptions& o = setup->options;
  auto server = serve::Server::Create(o, std::move(setup->profile.timing));
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
            << setup->profile.description << ")" << std::endl;
  int sig = 0;
  sigwait(&stop_signals, &sig);
  if (const double grace_s = setup->grace_s; grace_s > 0) {
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
