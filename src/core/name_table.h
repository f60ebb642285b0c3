// name_table.h: an enum's names as one table, read both ways, so that the
// name printed and the name parsed cannot drift apart.
//
//   constexpr NameEntry<Scenario> kScenarioNames[] = {
//       {Scenario::kOffline, "offline"}, {Scenario::kServer, "server"}};
//   const char* n = NameOf(kScenarioNames, s);                       // "offline"
//   std::optional<Scenario> v = ValueOf(kScenarioNames, "server");   // kServer
//   std::string list = NamesList(kScenarioNames);                    // "offline or server"
//   std::string known = JoinNames({"h100", "h200"});                 // "h100, h200"
//
// A value may stand in more than one row (aliases): NameOf gives its first
// row's name, ValueOf accepts every row's. Lookups are linear: the tables are
// a handful of rows.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace frontier {

// `names` joined with ", " ("a, b, c"; empty for none), for messages that
// list what is known.
inline std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

template <typename E>
struct NameEntry {
  E value;
  const char* name;
};

// The name of `value`'s first row; `unknown` where no row holds it.
template <typename E, size_t N>
const char* NameOf(const NameEntry<E> (&table)[N], E value, const char* unknown = "?") {
  for (const auto& e : table)
    if (e.value == value) return e.name;
  return unknown;
}

// The value of the row named exactly `name`; nullopt where none is.
template <typename E, size_t N>
std::optional<E> ValueOf(const NameEntry<E> (&table)[N], std::string_view name) {
  for (const auto& e : table)
    if (name == e.name) return e.value;
  return std::nullopt;
}

// Every row's name in order, "a, b or c", for messages that list the choices.
template <typename E, size_t N>
std::string NamesList(const NameEntry<E> (&table)[N], std::string_view last_separator = " or ") {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? std::string(last_separator) : std::string(", ");
    out += table[i].name;
  }
  return out;
}

}  // namespace frontier
