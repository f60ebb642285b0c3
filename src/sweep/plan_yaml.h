// Internal to frontier_sweep: reading a plan's YAML, shared by plan.cc (the
// plan as a whole), plan_system.cc (its systems) and plan_fields.cc (its
// workloads, load and blocks). Not a public interface.
//
// Thread safety: stateless functions and an immutable Checker.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <variant>

#include "core/flag_table.h"
#include "core/parse.h"
#include "core/status.h"
#include "core/terminal_text.h"
#include "sweep/plan.h"

namespace frontier::sweep::internal {

// Outside text quoted in a message: at most 40 characters.
inline std::string Shorten(const std::string& text) {
  return text.size() > 40 ? text.substr(0, 40) + "..." : text;
}

// Builds "FILE:LINE: FIELD: message" errors; yaml-cpp marks are 0-based.
class Checker {
 public:
  explicit Checker(std::string file) : file_(std::move(file)) {}

  Status Error(const YAML::Node& at, const std::string& field, const std::string& msg) const {
    const int line = at.IsDefined() ? at.Mark().line + 1 : 0;
    return InvalidArgument(file_ + ":" + std::to_string(line) + ": " + field + ": " + msg);
  }

  // Rejects keys not in `allowed` (typos would otherwise be silently ignored).
  Status KnownKeys(const YAML::Node& map, const std::string& field,
                   const std::set<std::string>& allowed) const {
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (!allowed.count(key)) {
        std::string list;
        for (auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        return Error(it->first, Join(field, key), "unknown field; allowed: " + list);
      }
    }
    return Status::Ok();
  }

  static std::string Join(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
  }

  Status String(const YAML::Node& map, const std::string& parent, const std::string& key,
                std::string* out, bool required = false) const {
    const YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) {
      return required ? Error(map, Join(parent, key), "is required") : Status::Ok();
    }
    if (!n.IsScalar()) return Error(n, Join(parent, key), "must be a string");
    *out = n.Scalar();
    if (required && out->empty()) return Error(n, Join(parent, key), "must not be empty");
    // A name is printed, stored and used in file names: no control characters.
    if (key == "name" && std::any_of(out->begin(), out->end(), [](char ch) {
          const auto u = static_cast<unsigned char>(ch);
          return u < 0x20 || u == 0x7f;
        })) {
      return Error(n, Join(parent, key), "must not contain control characters, got '" + TerminalSafe(Shorten(*out)) + "'");
    }
    return Status::Ok();
  }

  template <typename T>
  Status Number(const YAML::Node& map, const std::string& parent, const std::string& key, T* out,
                double min, double max, bool required = false) const {
    const YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) {
      return required ? Error(map, Join(parent, key), "is required") : Status::Ok();
    }
    return Value(n, Join(parent, key), out, min, max);
  }

  // Number() into an optional, set only where the key is given (null counts
  // as not given, as for Number()).
  template <typename T>
  Status OptionalNumber(const YAML::Node& map, const std::string& parent, const std::string& key,
                        std::optional<T>* out, double min, double max) const {
    T v{};
    const YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) return Status::Ok();
    FRONTIER_RETURN_IF_ERROR(Value(n, Join(parent, key), &v, min, max));
    *out = v;
    return Status::Ok();
  }

  template <typename T>
  Status Value(const YAML::Node& n, const std::string& field, T* out, double min, double max) const {
    const char* kind = std::is_integral_v<T> ? "an integer" : "a number";
    const std::string allowed =
        std::string("must be ") + kind + " in [" + FormatNumber(min) + ", " + FormatNumber(max) + "], got ";
    if (!n.IsScalar()) return Error(n, field, allowed + "a list or map");
    T v{};
    if constexpr (std::is_integral_v<T>) {
      // Decimal only, as flags are: yaml-cpp reads 010 as octal 8 and 0x10 as 16.
      Result<int64_t> i = ParseInt(field, n.Scalar(), INT64_MIN, INT64_MAX);
      if (!i.ok()) return Error(n, field, allowed + "'" + Shorten(n.Scalar()) + "'");
      // Checked before narrowing to T ([min, max] lies inside T's range).
      if (static_cast<double>(*i) < min || static_cast<double>(*i) > max)
        return Error(n, field, allowed + Shorten(n.Scalar()));
      v = static_cast<T>(*i);
    } else if (!YAML::convert<T>::decode(n, v)) {
      return Error(n, field, allowed + "'" + Shorten(n.Scalar()) + "'");
    }
    const double d = static_cast<double>(v);
    if (!std::isfinite(d) || d < min || d > max) return Error(n, field, allowed + Shorten(n.Scalar()));
    *out = v;
    return Status::Ok();
  }

  // A scalar read as int64_t or a finite double, with no range of its own:
  // the range is the validator's that the caller runs next.
  template <typename T>
  Status Typed(const YAML::Node& map, const std::string& parent, const std::string& key, T* out) const {
    static_assert(std::is_same_v<T, int64_t> || std::is_same_v<T, double>);
    const YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) return Status::Ok();
    const std::string field = Join(parent, key);
    const std::string kind = std::is_integral_v<T> ? "must be an integer, got " : "must be a finite number, got ";
    if (!n.IsScalar()) return Error(n, field, kind + "a list or map");
    if constexpr (std::is_integral_v<T>) {
      // Decimal only, as flags are: yaml-cpp reads 010 as octal 8 and 0x10 as 16.
      Result<int64_t> i = ParseInt(field, n.Scalar(), INT64_MIN, INT64_MAX);
      if (!i.ok()) return Error(n, field, kind + "'" + Shorten(n.Scalar()) + "'");
      *out = *i;
    } else {
      T v{};
      if (!YAML::convert<T>::decode(n, v) || !std::isfinite(v)) return Error(n, field, kind + "'" + Shorten(n.Scalar()) + "'");
      *out = v;
    }
    return Status::Ok();
  }

  Status Bool(const YAML::Node& map, const std::string& parent, const std::string& key,
              bool* out) const {
    const YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) return Status::Ok();
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, *out))
      return Error(n, Join(parent, key), "must be true or false, got '" + Shorten(n.Scalar()) + "'");
    return Status::Ok();
  }

  Status Map(const YAML::Node& n, const std::string& field) const {
    return n.IsMap() ? Status::Ok() : Error(n, field, "must be a map of fields");
  }

 private:
  std::string file_;
};

// Reads the plain field `field` of a flag table's row (a number, string or
// bool) from map `n` under `key` into `raw`, a number within [min, max]; a
// string is required when `required`. A setter's field is its reader's own.
template <class Raw>
Status ReadTableField(const Checker& c, const YAML::Node& n, const std::string& parent, const std::string& key,
                      const typename FlagRow<Raw>::Field& field, double min, double max, bool required, Raw* raw) {
  return std::visit(
      [&](auto member) -> Status {
        if constexpr (std::is_same_v<decltype(member), typename FlagRow<Raw>::Setter>) {
          return Status::Ok();
        } else {
          auto& out = raw->*member;
          using V = std::decay_t<decltype(out)>;
          if constexpr (std::is_same_v<V, std::string>) {
            return c.String(n, parent, key, &out, required);
          } else if constexpr (std::is_same_v<V, std::optional<std::string>>) {
            std::string v;
            FRONTIER_RETURN_IF_ERROR(c.String(n, parent, key, &v));
            if (!v.empty()) out = v;
            return Status::Ok();
          } else if constexpr (std::is_same_v<V, bool>) {
            const YAML::Node v = n[key];
            if (!v.IsDefined()) return Status::Ok();
            if (!v.IsScalar() || (v.Scalar() != "true" && v.Scalar() != "false"))
              return c.Error(v, parent + "." + key, "must be true or false");
            out = v.Scalar() == "true";
            return Status::Ok();
          } else if constexpr (std::is_same_v<V, int> || std::is_same_v<V, int64_t> || std::is_same_v<V, double>) {
            return c.Number(n, parent, key, &out, min, max);
          } else if constexpr (std::is_same_v<V, std::optional<int>> || std::is_same_v<V, std::optional<double>>) {
            return c.OptionalNumber(n, parent, key, &out, min, max);
          } else {
            return c.Error(n[key], parent + "." + key, "has no plan reader (a bug)");
          }
        }
      },
      field);
}
// Each reads one part of a plan into its spec; errors name FILE:LINE: FIELD.
// `f` is the field's path ("systems[0]").
Status ParseSim(const Checker& c, const YAML::Node& n, const std::string& f, sim::SimSpec* s);
Status ParseLaunch(const Checker& c, const YAML::Node& n, const std::string& f, LaunchSpec* l);
Status ParseSystem(const Checker& c, const YAML::Node& n, const std::string& f, SystemSpec* s);
Status ParseWorkload(const Checker& c, const YAML::Node& n, const std::string& f, uint64_t plan_seed,
                     WorkloadSpec* w);
Status ParseLoad(const Checker& c, const YAML::Node& n, bool scenario, bool search, LoadSpec* l);
Status ParseScenarioBlock(const Checker& c, const YAML::Node& n, Plan* plan);
// The summary's top-level keys: percentiles, timeslice_s.
Status ParseSummaryKeys(const Checker& c, const YAML::Node& root, Plan* plan);
Status ParseSearchBlock(const Checker& c, const YAML::Node& n, Plan* plan);

// Rejects a key given twice in one map anywhere in the document (yaml-cpp
// would keep the first silently), and documents nested too deep or with too
// many maps and lists (aliases), each error naming the file.
Status CheckDuplicateKeys(const YAML::Node& root, const std::string& file);

}  // namespace frontier::sweep::internal
