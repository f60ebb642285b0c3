// command.h: the `frontier` subcommands and how each one registers itself.
//
// Each subcommand lives in its own <name>_cmd.cc and registers with
//
//   FRONTIER_REGISTER_COMMAND(bench, "Benchmark an OpenAI-compatible server", RunBench);
//
// where RunBench(argc, argv) receives argv[0] == "bench" and returns the
// process exit status: 0 success, 1 the run failed, 2 bad usage.
// The cli/ layer only parses flags and calls into the other layers.
//
// Thread safety: registration happens during static initialisation only.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace frontier::cli {

using CommandFn = int (*)(int argc, char** argv);

struct Command {
  std::string name;
  std::string summary;
  CommandFn run;
};

// All registered commands, sorted by name.
std::vector<Command>& Commands();

struct Registrar {
  Registrar(const char* name, const char* summary, CommandFn fn);
};

}  // namespace frontier::cli

#define FRONTIER_REGISTER_COMMAND(name, summary, fn) \
  static ::frontier::cli::Registrar frontier_registrar_##name(#name, summary, fn)
