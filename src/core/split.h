// split.h: the non-empty items of a list separated by one character, for
// comma-separated flag values and query parameters and space-separated
// protocol words. Empty items ("a,,b,") are dropped; callers that refuse an
// empty list check the result themselves, with their own message.
//
//   SplitNonEmpty("16,,64,", ',')  // {"16", "64"}
//   SplitNonEmpty("", ',')         // {}
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace frontier {

// The non-empty pieces of `text` between `separator`s, in order.
inline std::vector<std::string> SplitNonEmpty(std::string_view text, char separator) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t at = text.find(separator);
    if (at != 0) out.emplace_back(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return out;
}

}  // namespace frontier
