// The `frontier` binary: dispatches to the registered subcommands.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>

#include "cli/command.h"
#include "core/version.h"

namespace frontier::cli {

std::vector<Command>& Commands() {
  static std::vector<Command> commands;
  return commands;
}

Registrar::Registrar(const char* name, const char* summary, CommandFn fn) {
  auto& c = Commands();
  c.push_back({name, summary, fn});
  std::sort(c.begin(), c.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
}

namespace {

void PrintHelp(std::ostream& out) {
  out << "frontier " << kVersion
      << ": measure, compare and predict LLM inference performance\n\n"
         "usage: frontier <command> [flags]     (frontier <command> --help for its flags)\n\n"
         "commands:\n";
  for (const auto& c : Commands()) {
    out << "  " << c.name << std::string(c.name.size() < 12 ? 12 - c.name.size() : 1, ' ')
        << c.summary << "\n";
  }
}

}  // namespace
}  // namespace frontier::cli

int main(int argc, char** argv) {
  using namespace frontier::cli;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    PrintHelp(std::cout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::cout << "frontier " << frontier::kVersion << "\n";
    return 0;
  }
  for (const auto& c : Commands()) {
    if (c.name != argv[1]) continue;
    // The last line of defence: every library edge turns errors into a
    // Status, so reaching a handler here is a bug; it still ends in one line
    // and a non-zero exit, never an abort.
    try {
      const int rc = c.run(argc - 1, argv + 1);
      // Output that never reached standard output (a full disk, a closed
      // pipe) is lost data: say so and fail rather than exit 0.
      std::cout.flush();
      if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::cerr << "frontier " << c.name << ": cannot write to standard output (a full disk or a closed pipe); "
                  << "what it printed is incomplete\n";
        return rc == 0 ? 1 : rc;
      }
      return rc;
    } catch (const std::bad_alloc&) {
      std::cerr << "frontier " << c.name << ": out of memory\n";
    } catch (const std::exception& e) {
      std::cerr << "frontier " << c.name << ": internal error (a bug in frontier): " << e.what() << "\n";
    }
    return 70;
  }
  std::cerr << "frontier: unknown command '" << argv[1] << "'; known commands:";
  for (const auto& c : Commands()) std::cerr << " " << c.name;
  std::cerr << "\n";
  return 2;
}
