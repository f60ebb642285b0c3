#include "sim/engine/precision.h"

#include <string>

#include "core/name_table.h"

namespace frontier::sim {

double BytesPerElement(Precision p) {
  switch (p) {
    case Precision::kBf16: return 2.0;
    case Precision::kFp8: return 1.0;
    case Precision::kFp4: return 4.5 / 8.0;
  }
  return 2.0;
}

// The first row of each precision is its name; the rest are the aliases
// configuration files and flags also use.
constexpr NameEntry<Precision> kPrecisionNames[] = {
    {Precision::kBf16, "bf16"},   {Precision::kFp8, "fp8"},        {Precision::kFp4, "fp4"},
    {Precision::kBf16, "fp16"},   {Precision::kBf16, "bfloat16"},  {Precision::kBf16, "float16"},
    {Precision::kFp8, "float8"},  {Precision::kFp8, "e4m3"},       {Precision::kFp4, "mxfp4"},
    {Precision::kFp4, "nvfp4"}};

const char* PrecisionName(Precision p) { return NameOf(kPrecisionNames, p, "bf16"); }

Result<Precision> ParsePrecision(std::string_view text, std::string_view flag) {
  if (std::optional<Precision> p = ValueOf(kPrecisionNames, text)) return *p;
  return InvalidArgument(std::string(flag) + ": unknown precision '" + std::string(text) +
                         "'; use bf16, fp8 or fp4");
}

}  // namespace frontier::sim
