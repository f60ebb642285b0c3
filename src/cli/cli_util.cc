#include "cli/cli_util.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <vector>

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

std::string TopFailureReasons(const RunResult& run, size_t top) {
  struct Reason {
    int64_t count = 0;
    std::string example;
  };
  std::map<std::string, Reason> by_reason;
  for (const auto& r : run.requests) {
    if (r.ok || r.warmup) continue;
    Reason& reason = by_reason[r.failure.empty() ? failure::kOther : r.failure];
    if (reason.count++ == 0) reason.example = r.failure_detail;
  }
  std::vector<std::pair<std::string, Reason>> sorted(by_reason.begin(), by_reason.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  std::string out;
  for (size_t i = 0; i < sorted.size() && i < top; ++i) {
    std::string example = sorted[i].second.example.substr(0, 200);
    for (char& c : example)
      if (c == '\n' || c == '\r') c = ' ';
    out += "  " + std::to_string(sorted[i].second.count) + " " + sorted[i].first +
           (example.empty() ? "" : " (" + example + ")") + "\n";
  }
  if (sorted.size() > top) out += "  ... and " + std::to_string(sorted.size() - top) + " other reason(s)\n";
  return out;
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
