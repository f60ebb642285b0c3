// option_ranges.h: the ranges `frontier serve`'s settings must lie in
// (docs/limits.md): token counts fit the engine's 32-bit lengths, times up
// to about 3 hours, rates are probabilities. A pure function, safe from any
// thread.
#pragma once

#include "core/status.h"
#include "serve/profile.h"
#include "serve/server.h"

namespace frontier::serve {

// InvalidArgument naming the first setting out of range by its flag
// (--ttft-ms, --port, ...). The three times are in seconds as the flags give
// them: the shutdown grace and the HTTP header and idle timeouts.
Status CheckServeRanges(const ProfileSpec& p, const ServeOptions& o, double grace_s, double header_timeout_s,
                        double idle_timeout_s);

}  // namespace frontier::serve
