#include "cli/cli_util.h"

#include <iostream>

namespace frontier::cli {

int Parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    return UsageError(app.get_name(), e.what());
  }
  return -1;
}

int UsageError(const std::string& command, const std::string& message) {
  std::cerr << "frontier " << command << ": " << message << "\n";
  return 2;
}

int Fail(const std::string& command, const Status& status) {
  std::cerr << "frontier " << command << ": " << status.message() << "\n";
  const bool usage = status.code() == StatusCode::kInvalidArgument ||
                     status.code() == StatusCode::kNotFound;
  return usage ? 2 : 1;
}

std::string CommandLine(int argc, char** argv) {
  std::string out = "frontier";
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    out += ' ';
    if (a.find_first_of(" \t'\"$\\{}") == std::string::npos && !a.empty()) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

}  // namespace frontier::cli
