// sim_flags.cc: SimSpec's flags from its field table, --client-rtt-us, and
// the flags a run records as requested.
#include "cli/sim_flags.h"

#include <type_traits>
#include <variant>

#include "sim/spec_fields.h"

namespace frontier::cli {

void AddSimSpecFlags(CLI::App& app, sim::SimSpec* s) {
  for (const sim::SpecField& field : sim::SimSpecFields()) {
    CLI::Option* o = std::visit(
        [&](auto member) -> CLI::Option* {
          using Member = decltype(member);
          if constexpr (std::is_same_v<Member, sim::SpecSetter>) {
            const std::string flag = field.flag;
            return app.add_option_function<std::string>(
                flag,
                [member, s, flag](const std::string& v) {
                  if (Status st = member(v, s); !st.ok()) throw CLI::ValidationError(flag, st.message());
                },
                field.help);
          } else if constexpr (std::is_same_v<Member, bool sim::SimSpec::*>) {
            return app.add_flag(field.flag, s->*member, field.help);
          } else {
            return app.add_option(field.flag, s->*member, field.help);
          }
        },
        field.member);
    o->group(field.group);
  }
}

// In the order `frontier search` checks them (the first given is named).
const std::vector<std::string>& SimSpecFlagNames() {
  static const std::vector<std::string> names = {
      "--model",     "--hardware",     "--gpus",         "--tp",
      "--ep",        "--dp",           "--precision",    "--kv-precision",
      "--stack",     "--max-num-seqs", "--max-num-batched-tokens", "--gpu-memory-utilization",
      "--spec-tokens", "--acceptance", "--acceptance-rate", "--attention-dp", "--prefix-caching",
      "--prefill-workers", "--prefill-tp", "--prefill-dp", "--prefill-ep",
      "--decode-workers", "--decode-tp", "--decode-dp", "--decode-ep"};
  return names;
}

void AddClientRttFlag(CLI::App& app, double* us) {
  app.add_option("--client-rtt-us", *us,
                 "Client round trip: a request reaches the engine this long after it is sent, so a closed-loop "
                 "replacement misses the step that starts as its predecessor finishes; 0 = instantaneous client "
                 "[150]")
      ->group("Load");
}

std::map<std::string, std::string> GivenFlags(const CLI::App& app, const std::vector<std::string>& names) {
  std::map<std::string, std::string> out;
  for (const std::string& flag : names)
    if (app.count(flag)) out[flag.substr(2)] = app[flag]->as<std::string>();
  return out;
}

}  // namespace frontier::cli
