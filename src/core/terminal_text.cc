#include "core/terminal_text.h"

#include <cstdint>
#include <cstdio>

namespace frontier {
namespace {

void Hex(std::string& out, const char* prefix, uint32_t v) {
  char buf[12];
  std::snprintf(buf, sizeof buf, "%s%02x", prefix, static_cast<unsigned>(v));
  out += buf;
}

// Length of the valid UTF-8 sequence at text[i] (1..4) and its code point,
// or 0 when the bytes there are not valid UTF-8.
size_t Utf8At(std::string_view text, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = b(i);
  size_t n;
  uint32_t v;
  if (c < 0x80) {
    *cp = c;
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    v = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    v = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    v = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
  if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10FFFF)) || (v >= 0xD800 && v <= 0xDFFF))
    return 0;
  *cp = v;
  return n;
}

std::string Escape(std::string_view text, bool keep_lines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t n = Utf8At(text, i, &cp);
    if (n == 0) {
      Hex(out, "\\x", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if (cp < 0x20 || cp == 0x7F) {
      if (keep_lines && (cp == '\n' || cp == '\t')) {
        out += static_cast<char>(cp);
      } else {
        Hex(out, "\\x", cp);
      }
    } else if (cp >= 0x80 && cp <= 0x9F) {
      Hex(out, "\\u00", cp);
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

}  // namespace

std::string EscapeControls(std::string_view text) { return Escape(text, false); }

std::string TerminalSafe(std::string_view text) { return Escape(text, true); }

}  // namespace frontier
