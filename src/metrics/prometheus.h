// prometheus.h: a parser for the Prometheus text exposition format (version
// 0.0.4), what vLLM, SGLang, llama.cpp and `frontier serve` answer on GET
// /metrics.
//
//   Result<Exposition> e = ParsePrometheusText(body);
//   std::optional<double> q = e->Sum("vllm:prefix_cache_queries_total");
//
// Accepted: "# HELP name text" (escapes \\ and \n), "# TYPE name type"
// (counter, gauge, histogram, summary, untyped), other comments, blank
// lines, and samples `name{label="value",...} value [timestamp_ms]` with
// label values escaped (\\, \", \n), an optional trailing comma in the label
// set, values as Go's ParseFloat reads them (+Inf, -Inf, NaN included),
// spaces or tabs between fields and \n or \r\n line ends. Histograms and
// summaries are their _bucket / _sum / _count / quantile samples, kept as
// samples; FamilyOf() maps them (and a counter's _total) to their family.
//
// Bounded: an input over kMaxPrometheusBytes is refused before parsing, so a
// hostile or runaway server cannot make the parser allocate without limit.
//
// Thread safety: pure functions and plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace frontier::metrics {

// Largest exposition accepted, bytes. vLLM's with a few models is ~100 KB.
inline constexpr size_t kMaxPrometheusBytes = 8u << 20;

struct PromSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // in the order written
  double value = 0;
  std::optional<int64_t> timestamp_ms;

  // The value of label `key`, or nullopt.
  std::optional<std::string_view> Label(std::string_view key) const;
};

struct Exposition {
  std::map<std::string, std::string> types;  // family -> "counter", "gauge", ...
  std::map<std::string, std::string> help;   // family -> unescaped text
  std::vector<PromSample> samples;           // in the order written

  // The sum over every label set of the samples named `name`; nullopt when
  // there is none. (Per-engine or per-model series add up to the server's.)
  std::optional<double> Sum(std::string_view name) const;
  // The family a sample name belongs to: the name itself when it has a TYPE,
  // else the name less _total, _bucket, _sum, _count or _created when that
  // stem has one; else the name.
  std::string FamilyOf(std::string_view sample_name) const;
};

// Parses `text`. InvalidArgument naming the line (from 1), the column and what
// was expected; also when the text is larger than kMaxPrometheusBytes.
Result<Exposition> ParsePrometheusText(std::string_view text);

}  // namespace frontier::metrics
