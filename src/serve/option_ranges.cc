// option_ranges.cc: the ranges of `frontier serve`'s settings.
#include "serve/option_ranges.h"

#include <algorithm>
#include <cstdint>

#include "core/parse.h"

namespace frontier::serve {

Status CheckServeRanges(const ProfileSpec& p, const ServeOptions& o, double grace_s,
                        double header_timeout_s, double idle_timeout_s) {
  constexpr int64_t kMaxTokens = 2147483647;
  FRONTIER_RETURN_IF_ERROR(CheckRange("--ttft-ms", p.fixed.ttft_ms, 0.0, 1e7));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--itl-ms", p.fixed.itl_ms, 0.0, 1e7));
  FRONTIER_RETURN_IF_ERROR(
      CheckRange("--tokens-per-event", int64_t{p.fixed.tokens_per_event}, 1, 1000000));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--slots", p.fixed.slots, 0, 1000000));
  if (p.max_model_len)
    FRONTIER_RETURN_IF_ERROR(CheckRange("--max-model-len", *p.max_model_len, 2, kMaxTokens));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--time-scale", p.time_scale, 1e-6, 1e6));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--port", int64_t{o.port}, 0, 65535));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--default-max-tokens", o.default_max_tokens, 1, kMaxTokens));
  FRONTIER_RETURN_IF_ERROR(
      CheckRange("--natural-output-len", o.natural_output_len, 0, kMaxTokens / 2));
  FRONTIER_RETURN_IF_ERROR(CheckRange(
      "--max-body-bytes", static_cast<int64_t>(std::min<size_t>(o.max_body_bytes, INT64_MAX)), 1024,
      int64_t{1} << 30));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--fault-error-rate", o.faults.error_rate, 0.0, 1.0));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--fault-429-rate", o.faults.rate_limit_rate, 0.0, 1.0));
  FRONTIER_RETURN_IF_ERROR(
      CheckRange("--fault-disconnect-rate", o.faults.disconnect_rate, 0.0, 1.0));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--fault-stall-ms", o.faults.stall_ms, 0.0, 1e7));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--fault-stall-rate", o.faults.stall_rate, 0.0, 1.0));
  FRONTIER_RETURN_IF_ERROR(
      CheckRange("--max-connections", int64_t{o.http.max_connections}, 1, 1000000));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--header-timeout-s", header_timeout_s, 0.001, 86400.0));
  FRONTIER_RETURN_IF_ERROR(CheckRange("--idle-timeout-s", idle_timeout_s, 0.001, 86400.0));
  return CheckRange("--shutdown-grace-s", grace_s, 0.0, 86400.0);
}

}  // namespace frontier::serve
