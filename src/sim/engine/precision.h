// precision.h: numeric formats of weights, activations and the KV cache.
//
// Bytes per element, as stored in HBM:
//   bf16  2
//   fp8   1       (E4M3; per-tensor or per-block scales are negligible)
//   fp4   0.5625  (MXFP4 / NVFP4: 4-bit elements plus one 8-bit scale per 16
//                  (NVFP4) or 32 (MXFP4) elements; we charge the NVFP4 figure,
//                  4.5 bits, as the worst of the two)
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace frontier::sim {

enum class Precision { kBf16, kFp8, kFp4 };

double BytesPerElement(Precision p);
const char* PrecisionName(Precision p);
// Parses "bf16" / "fp16" (treated as bf16), "fp8", "fp4" / "mxfp4" / "nvfp4".
// `flag` names the flag or field in the error message.
Result<Precision> ParsePrecision(std::string_view text, std::string_view flag);

}  // namespace frontier::sim
