// search_text.h: a search as the terminal shows it: the line that opens it,
// one row per trial as it ends, and the answer with its verdict. `frontier
// search` prints them as its trials run; the result file is SearchResultJson
// (search.h).
//
//   std::printf("%s\n", SearchHeadline(options, runner.Name()).c_str());
//   ... on each trial: std::printf("%s\n", TrialRow(trial, options.axis).c_str());
//   std::printf("%s", SearchAnswerText(*result, options).c_str());
//
// Thread safety: functions of their arguments.
#pragma once

#include <string>

#include "loadgen/search.h"

namespace frontier::loadgen {

// "search: max_valid_qps, Server (<benchmark>) over request_rate, on <runner>"
// (an SLO search says "SLO" for the scenario). No newline.
std::string SearchHeadline(const SearchOptions& options, const std::string& runner);

// One trial: its load, verdict, throughput, p99 latencies and band, then its
// first failure reason when invalid, then "-> <decision>", on indented lines.
// No final newline.
std::string TrialRow(const Trial& trial, SearchAxis axis);

// The search's answer: why it stopped, the best trial (max valid QPS, or the
// best throughput under the SLO) with its prediction band, and that trial's
// verdict (FormatVerdict, judged at its own target QPS); "no trial was valid"
// when none was. Each line ends in a newline.
std::string SearchAnswerText(const SearchResult& result, const SearchOptions& options);

}  // namespace frontier::loadgen
