// spec_fields.h: the settings of a SimSpec a command line gives, as one
// table (flag, help text, --help group, member), so every command that takes
// a simulated system (`frontier simulate`, `serve`, `search`, `calibrate`)
// binds the same flags: cli/sim_flags.cc walks it.
//
// Thread safety: the table is immutable.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <variant>

#include "core/status.h"
#include "sim/engine/config.h"

namespace frontier::sim {

// A field given as text and checked as it is parsed; the error's message
// leaves out the flag ("must be on or off, got 'x'"), which the binder names.
using SpecSetter = Status (*)(const std::string& value, SimSpec* spec);

// The member a field sets; a bool member is a flag that takes no value.
using SpecMember = std::variant<std::string SimSpec::*, int SimSpec::*, bool SimSpec::*,
                                std::optional<std::string> SimSpec::*, std::optional<int> SimSpec::*,
                                std::optional<double> SimSpec::*, SpecSetter>;

struct SpecField {
  const char* flag;   // with its leading "--"
  const char* help;
  const char* group;  // "System", "Engine" or "Disaggregation"
  SpecMember member;
};

// Every field, in the order --help lists them. Validation beyond the setters'
// is ResolveSimConfig's, which names the flag at fault.
std::span<const SpecField> SimSpecFields();

}  // namespace frontier::sim
