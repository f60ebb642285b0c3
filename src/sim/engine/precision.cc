#include "sim/engine/precision.h"

#include <string>

namespace frontier::sim {

double BytesPerElement(Precision p) {
  switch (p) {
    case Precision::kBf16: return 2.0;
    case Precision::kFp8: return 1.0;
    case Precision::kFp4: return 4.5 / 8.0;
  }
  return 2.0;
}

const char* PrecisionName(Precision p) {
  switch (p) {
    case Precision::kBf16: return "bf16";
    case Precision::kFp8: return "fp8";
    case Precision::kFp4: return "fp4";
  }
  return "bf16";
}

Result<Precision> ParsePrecision(std::string_view text, std::string_view flag) {
  if (text == "bf16" || text == "fp16" || text == "bfloat16" || text == "float16")
    return Precision::kBf16;
  if (text == "fp8" || text == "float8" || text == "e4m3") return Precision::kFp8;
  if (text == "fp4" || text == "mxfp4" || text == "nvfp4") return Precision::kFp4;
  return InvalidArgument(std::string(flag) + ": unknown precision '" + std::string(text) +
                         "'; use bf16, fp8 or fp4");
}

}  // namespace frontier::sim
