// ascii.h: ASCII case folding for names, keys, header names and URL schemes,
// independent of the C locale (bytes outside A-Z are kept as they are, so
// UTF-8 text passes through unchanged).
//
//   if (AsciiLower(name) == "content-length") ...
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace frontier {

// `s` with A-Z turned to a-z.
std::string AsciiLower(std::string_view s);

// Whether `a` and `b` are equal but for the case of A-Z.
bool AsciiEqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace frontier
