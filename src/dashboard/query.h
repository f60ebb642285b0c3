// query.h: a URL's query string as typed parameters, each bad value an
// InvalidArgument that names the parameter, the value and what is allowed
// (the dashboard answers it with 400, never 500).
//
//   FRONTIER_ASSIGN_OR_RETURN(Query q, Query::Parse("run=3&run=4&y=output"));
//   FRONTIER_ASSIGN_OR_RETURN(auto runs, q.Ids("run"));           // {3, 4}
//   FRONTIER_ASSIGN_OR_RETURN(auto y, q.OneOf("y", {"total", "output"}, "total"));
//
// Thread safety: values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace frontier::dashboard {

// Percent-decodes a query component ('+' is a space). InvalidArgument for a
// '%' not followed by two hex digits.
Result<std::string> UrlDecode(std::string_view s);

class Query {
 public:
  // Splits on '&' and '='; keys and values are percent-decoded. A key may repeat.
  static Result<Query> Parse(std::string_view query);

  bool Has(const std::string& key) const { return values_.count(key) > 0; }
  // The last value of `key`, or `fallback` when absent or empty.
  std::string Text(const std::string& key, const std::string& fallback = "") const;
  // Every non-empty value of `key`, in order; comma-separated values are split.
  std::vector<std::string> List(const std::string& key) const;
  // A value from `allowed`; `fallback` when absent.
  Result<std::string> OneOf(const std::string& key, const std::vector<std::string>& allowed,
                            const std::string& fallback) const;
  // A positive integer id (run or point); nullopt when absent.
  Result<std::optional<int64_t>> Id(const std::string& key) const;
  // A non-negative integer (a count, or "after this id" where 0 means from the start).
  Result<std::optional<int64_t>> Index(const std::string& key) const;
  // Every value of `key` as positive integer ids.
  Result<std::vector<int64_t>> Ids(const std::string& key) const;
  // A finite number in [min, max]; nullopt when absent.
  Result<std::optional<double>> Number(const std::string& key, double min, double max) const;
  // An ISO-8601 date (YYYY-MM-DD); nullopt when absent.
  Result<std::optional<std::string>> Date(const std::string& key) const;
  // The keys given that are not in `known`: the first one is an error, so a
  // misspelt filter never silently shows everything.
  Status OnlyKnown(const std::vector<std::string>& known) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
};

}  // namespace frontier::dashboard
