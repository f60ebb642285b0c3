// spec_table.h: SimSpec's fields as one table: each field's flag row (core/
// flag_table.h), its key in a sweep plan's `sim:` map and its bounds. The
// flags (sim/spec_fields.h, bound by cli/), the plan reader (sweep/) and the
// resolution (ResolveSimConfig's size check) all read a field's bounds here,
// so a field has one range however it is given.
//
// Thread safety: the table is immutable; the functions are pure.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/flag_table.h"
#include "core/status.h"
#include "sim/engine/config.h"

namespace frontier::sim {

struct SimSpecField {
  FlagRow<SimSpec> flag;
  // The key under a plan system's `sim:` map: the flag's name without "--",
  // '-' as '_'; a pool's flag ("--prefill-tp") nests under the pool's map
  // ("prefill.tp"). "" for the system's own keys (--hardware, --gpus), which
  // a plan gives beside `sim:`.
  const char* plan_key;
  // The closed range of a number (and of --max-num-seqs' cap); a string,
  // bool or on/off field has none (min > max).
  double min = 1, max = 0;

  bool bounded() const { return min <= max; }
};

// Every field, in the order --help lists them.
std::span<const SimSpecField> SimSpecTable();
// The field of `flag` ("--tp"); the program's error if there is none.
const SimSpecField& SimSpecFieldOf(std::string_view flag);
// The value of `field` in `spec` as text, as a stored config and a plan
// write it: a number in its shortest exact form ("64", "0.9"), a string as it
// is, a bool "true" / "false", --max-num-seqs' "auto" or cap and
// --prefix-caching's "on" / "off"; nothing for an unset optional.
std::optional<std::string> SimSpecFieldText(const SimSpecField& field, const SimSpec& spec);
// The configuration a simulated system is stored with (sweep::SystemSpec::
// Config() adds the system's own keys): every field of the table with a plan
// key, under it, its text (SimSpecFieldText) written when it is unlike
// SimSpec{}'s (an optional: when set), model, tp and ep always. A pool's
// fields make one key while it has workers: "prefill": "2x(tp4,dp1,ep1)".
std::map<std::string, std::string> SimSpecConfig(const SimSpec& spec);
// Each bounded field of `spec` in its range, else the first that is not:
// "--tp must be an integer in [1, 1024], got 0".
Status CheckSimSpecBounds(const SimSpec& spec);

}  // namespace frontier::sim
