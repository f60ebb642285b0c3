// frontier's own `db export` JSON read back by `frontier db import`: every
// input gives parsed runs or an error, never a crash, a hang or an exception;
// every point accepted is within the store's bounds, with its verdict and
// trial texts parseable (CheckPoint checks both).
#include <cstddef>
#include <cstdint>
#include <string>

#include "store/import_export.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  frontier::store::ImportOptions o;
  auto runs =
      frontier::store::ParseResultFile(text, "fuzz.json", o, frontier::store::ImportFormat::kFrontierExport);
  if (!runs.ok()) return 0;
  for (const auto& run : *runs)
    for (const auto& p : run.points)
      if (!frontier::store::CheckPoint(p, "").ok()) __builtin_trap();
  return 0;
}
