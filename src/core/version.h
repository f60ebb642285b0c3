// version.h: frontier's version, stamped into every result's provenance.
#pragma once

namespace frontier {
inline constexpr const char* kVersion = "0.1.0";
// Version of the result JSON's `frontier` section and of the store schema's record shape.
inline constexpr int kResultFormatVersion = 1;
}  // namespace frontier
