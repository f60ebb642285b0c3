#include "serve/profile.h"

#include <cmath>

#include "core/parse.h"
#include "serve/sim_timing.h"

namespace frontier::serve {
namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

Result<ResolvedProfile> ResolveProfile(const ProfileSpec& spec) {
  if (!(spec.time_scale > 0) || !std::isfinite(spec.time_scale))
    return InvalidArgument("--time-scale must be > 0, got " + FormatSignificant(spec.time_scale));
  ResolvedProfile r;
  r.effective["profile"] = spec.profile;
  r.effective["time_scale"] = FormatSignificant(spec.time_scale);
  if (spec.profile == "fixed") {
    if (!spec.sim_only_flags_given.empty())
      return InvalidArgument(Join(spec.sim_only_flags_given) +
                             ": only for the sim profile; drop it or leave out --profile fixed");
    FixedProfile f = spec.fixed;
    f.time_scale = spec.time_scale;
    f.context_length = spec.max_model_len.value_or(131072);
    FRONTIER_RETURN_IF_ERROR(ValidateFixedProfile(f));
    r.timing = std::make_unique<FixedTiming>(f);
    r.default_model_name = "fixed";
    r.description = "profile fixed: ttft " + FormatSignificant(f.ttft_ms) + " ms, itl " + FormatSignificant(f.itl_ms) +
                    " ms, " + std::to_string(f.tokens_per_event) + " token(s) per event, " +
                    (f.slots > 0 ? std::to_string(f.slots) + " slots" : "no slot limit") + ", context " +
                    std::to_string(f.context_length);
    r.effective["ttft_ms"] = FormatSignificant(f.ttft_ms);
    r.effective["itl_ms"] = FormatSignificant(f.itl_ms);
    r.effective["tokens_per_event"] = std::to_string(f.tokens_per_event);
    r.effective["slots"] = std::to_string(f.slots);
    r.effective["max_model_len"] = std::to_string(f.context_length);
  } else if (spec.profile == "sim") {
    if (!spec.fixed_only_flags_given.empty())
      return InvalidArgument(Join(spec.fixed_only_flags_given) + ": only for --profile fixed");
    FRONTIER_ASSIGN_OR_RETURN(sim::SimConfig config, sim::ResolveSimConfig(spec.sim));
    const int64_t model_ctx = config.model.max_context > 0 ? config.model.max_context : 131072;
    const int64_t ctx = spec.max_model_len.value_or(model_ctx);
    if (ctx < 2 || ctx > model_ctx)
      return InvalidArgument("--max-model-len must be in [2, " + std::to_string(model_ctx) + "] for " +
                             config.model.name + ", got " + std::to_string(ctx));
    r.effective = config.EffectiveSettings();
    r.effective["profile"] = "sim";
    r.effective["time_scale"] = FormatSignificant(spec.time_scale);
    r.effective["max_model_len"] = std::to_string(ctx);
    r.default_model_name = spec.sim.model;
    r.description = "profile sim: " + config.model.name + " on " + std::to_string(config.gpus) + " x " +
                    config.hardware.name + ", tp " + std::to_string(config.tp) +
                    (config.dp > 1 ? ", dp " + std::to_string(config.dp) : "") +
                    (config.ep > 1 ? ", ep " + std::to_string(config.ep) : "") + ", context " +
                    std::to_string(ctx) +
                    (spec.time_scale != 1 ? ", time scale " + FormatSignificant(spec.time_scale) : "");
    r.timing = std::make_unique<SimTiming>(std::move(config), spec.time_scale, ctx);
  } else {
    return InvalidArgument("--profile must be fixed or sim, got '" + spec.profile + "'");
  }
  return r;
}

}  // namespace frontier::serve
