// terminal_text.h: outside text made safe to print on a terminal. A model id,
// a run or system name, a file name or a server's message may hold escape
// sequences (ESC, BEL, CSI) that retitle the window, clear the screen or move
// the cursor; every printer passes such text through one of these first.
//
//   EscapeControls("m\x1b]0;pwned\x07")   // "m\\x1b]0;pwned\\x07"
//   TerminalSafe("line 1\nline 2\x1b[2J")  // "line 1\nline 2\\x1b[2J"
//
// Escaped, as "\xNN" (or "\u00NN" for a C1 code point): C0 controls, DEL,
// the C1 code points U+0080..U+009F, and bytes that are not valid UTF-8 (a
// lone 0x9B is CSI to an 8-bit terminal). A backslash is left as it is, so
// the escaping is for reading, not for decoding back. Valid UTF-8 text
// ("µs", "→") is unchanged.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace frontier {

// `text` with every control character escaped, newline and tab included: for
// one field (a table cell, a name in a message).
std::string EscapeControls(std::string_view text);

// As EscapeControls, but newlines and tabs are kept: for whole blocks of
// output (a report, a message of several lines).
std::string TerminalSafe(std::string_view text);

}  // namespace frontier
