// `frontier version`: prints the version and the result format version.
#include <iostream>

#include "cli/command.h"
#include "core/version.h"

namespace frontier::cli {
namespace {

int RunVersion(int, char**) {
  std::cout << "frontier " << kVersion << " (result format " << kResultFormatVersion << ")\n";
  return 0;
}

}  // namespace
}  // namespace frontier::cli

FRONTIER_REGISTER_COMMAND(version, "Print frontier's version", frontier::cli::RunVersion);
