#include "dashboard/query.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "core/parse.h"
#include "core/split.h"

namespace frontier::dashboard {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Quoted for messages; long values are cut so an error stays one line.
std::string Shown(const std::string& v) {
  std::string s = v.size() > 60 ? v.substr(0, 60) + "..." : v;
  return "'" + s + "'";
}

}  // namespace

Result<std::string> UrlDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%') {
      const int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
      const int lo = i + 2 < s.size() ? HexValue(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return InvalidArgument("bad percent-escape '" + std::string(s.substr(i, 3)) +
                               "' in the query string: '%' must be followed by two hex digits");
      }
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

Result<Query> Query::Parse(std::string_view query) {
  Query q;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    FRONTIER_ASSIGN_OR_RETURN(std::string key, UrlDecode(part.substr(0, eq)));
    std::string value;
    if (eq != std::string_view::npos) {
      FRONTIER_ASSIGN_OR_RETURN(value, UrlDecode(part.substr(eq + 1)));
    }
    q.values_[key].push_back(std::move(value));
  }
  return q;
}

std::string Query::Text(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  if (it == values_.end() || it->second.back().empty()) return fallback;
  return it->second.back();
}

std::vector<std::string> Query::List(const std::string& key) const {
  std::vector<std::string> out;
  auto it = values_.find(key);
  if (it == values_.end()) return out;
  for (const auto& v : it->second)
    for (auto& item : SplitNonEmpty(v, ',')) out.push_back(std::move(item));
  return out;
}

Result<std::string> Query::OneOf(const std::string& key, const std::vector<std::string>& allowed,
                                 const std::string& fallback) const {
  const std::string v = Text(key);
  if (v.empty()) return fallback;
  for (const auto& a : allowed)
    if (a == v) return v;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  return InvalidArgument("query parameter '" + key + "' is " + Shown(v) + "; expected one of: " + list);
}

Result<std::optional<int64_t>> Query::Id(const std::string& key) const {
  const std::string v = Text(key);
  if (v.empty()) return std::optional<int64_t>();
  int64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n <= 0) {
    return InvalidArgument("query parameter '" + key + "' is " + Shown(v) +
                           "; expected a positive integer id (the Runs page lists them)");
  }
  return std::optional<int64_t>(n);
}

Result<std::optional<int64_t>> Query::Index(const std::string& key) const {
  const std::string v = Text(key);
  if (v.empty()) return std::optional<int64_t>();
  int64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n < 0) {
    return InvalidArgument("query parameter '" + key + "' is " + Shown(v) + "; expected an integer >= 0");
  }
  return std::optional<int64_t>(n);
}

Result<std::vector<int64_t>> Query::Ids(const std::string& key) const {
  std::vector<int64_t> out;
  for (const auto& v : List(key)) {
    int64_t n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size() || n <= 0) {
      return InvalidArgument("query parameter '" + key + "' has " + Shown(v) +
                             "; expected positive integer ids (the Runs page lists them)");
    }
    out.push_back(n);
  }
  return out;
}

Result<std::optional<double>> Query::Number(const std::string& key, double min, double max) const {
  const std::string v = Text(key);
  if (v.empty()) return std::optional<double>();
  const Result<double> x = ParseNumber(key, v, min, max);  // all of the text, finite, in range
  if (!x.ok()) {
    char range[96];
    std::snprintf(range, sizeof range, "a number from %g to %g", min, max);
    return InvalidArgument("query parameter '" + key + "' is " + Shown(v) + "; expected " + range);
  }
  return std::optional<double>(*x);
}

Result<std::optional<std::string>> Query::Date(const std::string& key) const {
  const std::string v = Text(key);
  if (v.empty()) return std::optional<std::string>();
  bool ok = v.size() == 10 && v[4] == '-' && v[7] == '-';
  for (size_t i = 0; ok && i < v.size(); ++i)
    if (i != 4 && i != 7 && (v[i] < '0' || v[i] > '9')) ok = false;
  if (ok) {
    const int month = std::atoi(v.substr(5, 2).c_str()), day = std::atoi(v.substr(8, 2).c_str());
    ok = month >= 1 && month <= 12 && day >= 1 && day <= 31;
  }
  if (!ok) return InvalidArgument("query parameter '" + key + "' is " + Shown(v) + "; expected a date YYYY-MM-DD");
  return std::optional<std::string>(v);
}

Status Query::OnlyKnown(const std::vector<std::string>& known) const {
  for (const auto& [k, v] : values_) {
    bool found = false;
    for (const auto& n : known) found = found || n == k;
    if (!found) {
      std::string list;
      for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
      return InvalidArgument("unknown query parameter " + Shown(k) + "; this view takes: " + list);
    }
  }
  return Status::Ok();
}

}  // namespace frontier::dashboard
