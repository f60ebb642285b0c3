// flag_table.h: a command's flags as data, one row a flag: its name as CLI11
// spells it, the field of a struct of raw values it fills (or a setter that
// checks the text as it is parsed), its help and its --help group. The layer
// that owns the struct keeps the table beside the code that resolves the
// values; cli/ only binds the rows to its parser, so the resolution needs no
// parser and the table is the one list of the flags.
//
//   const FlagRow<Raw> kRows[] = {{"--seed", &Raw::seed, "Seeds the dataset [0]", "Workload"}, ...};
//
// Thread safety: plain data.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/parse.h"

namespace frontier {

template <class Raw>
struct FlagRow {
  // Sets *values from the flag's text: "" or what is wrong, without the flag
  // ("must be on or off, got 'x'"), which the binder names.
  using Setter = std::string (*)(const std::string& text, Raw* values);
  // The field a flag fills; a bool field is a flag without a value.
  using Field = std::variant<std::string Raw::*, int64_t Raw::*, uint64_t Raw::*, int Raw::*, double Raw::*,
                             bool Raw::*, std::vector<std::string> Raw::*, std::optional<std::string> Raw::*,
                             std::optional<int> Raw::*, std::optional<int64_t> Raw::*,
                             std::optional<uint64_t> Raw::*, std::optional<double> Raw::*, Setter>;
  const char* name;  // CLI11's spelling ("--ignore-eos,!--no-ignore-eos" for a flag with its negation)
  Field field;
  const char* help;
  const char* group;
};

// Whether a flag (with its leading "--") was given on the command line: the
// checks of which flags fit together read it below cli/, which answers it
// from its parser.
using FlagGiven = std::function<bool(const std::string& flag)>;

// The value `row`'s field holds in `raw` as text: a bool "true" / "false", a
// number in its shortest exact form ("64", "0.9"), a string through
// `string_text(s)` (a plan quotes it, a stored config keeps it as it is);
// nothing for an unset optional. A setter's field and a list's have no one
// text: `other()` answers for them (nothing, or the caller's own words).
template <class Raw, class StringText, class Other>
std::optional<std::string> FlagFieldText(const FlagRow<Raw>& row, const Raw& raw, const StringText& string_text,
                                         const Other& other) {
  auto text = [&](const auto& x) -> std::string {
    using X = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<X, std::string>) return string_text(x);
    else if constexpr (std::is_same_v<X, bool>) return x ? "true" : "false";
    else if constexpr (std::is_floating_point_v<X>) return FormatShortest(x);
    else return std::to_string(x);
  };
  return std::visit(
      [&](auto member) -> std::optional<std::string> {
        if constexpr (std::is_same_v<decltype(member), typename FlagRow<Raw>::Setter>) {
          return other();
        } else {
          const auto& v = raw.*member;
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::vector<std::string>>) return other();
          else if constexpr (requires { v.has_value(); }) return v ? std::optional<std::string>(text(*v)) : std::nullopt;
          else return text(v);
        }
      },
      row.field);
}

}  // namespace frontier
