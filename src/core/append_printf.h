// append_printf.h: printf-formatted text appended to a string, for the
// formatters that return a command's table as text (the same bytes printf
// wrote to stdout before). Header only; safe from any thread.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

namespace frontier {

// Appends `format` with its arguments, as printf would print them, to `out`.
__attribute__((format(printf, 2, 3))) inline void AppendPrintf(std::string& out, const char* format,
                                                               ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (n > 0) {
    const size_t at = out.size();
    out.resize(at + static_cast<size_t>(n) + 1);
    std::vsnprintf(out.data() + at, static_cast<size_t>(n) + 1, format, again);
    out.resize(at + static_cast<size_t>(n));
  }
  va_end(again);
}

}  // namespace frontier
