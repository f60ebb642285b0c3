#include "core/terminal_text.h"

#include <gtest/gtest.h>

namespace frontier {
namespace {

TEST(TerminalText, EscapesC0DelAndC1) {
  EXPECT_EQ(EscapeControls("m\x1b]0;pwned\x07"), "m\\x1b]0;pwned\\x07");
  EXPECT_EQ(EscapeControls("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(EscapeControls(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(EscapeControls("del\x7f"), "del\\x7f");
  EXPECT_EQ(EscapeControls("line\nnext\ttab\r"), "line\\x0anext\\x09tab\\x0d");
  EXPECT_EQ(EscapeControls("c1 \xc2\x9b" "2J"), "c1 \\u009b2J");  // U+009B, CSI
  EXPECT_EQ(EscapeControls("raw \x9b" "2J"), "raw \\x9b2J");      // a lone CSI byte
  EXPECT_EQ(EscapeControls("cut \xe2\x86"), "cut \\xe2\\x86");    // a sequence cut short
}

TEST(TerminalText, KeepsValidTextAndLines) {
  EXPECT_EQ(EscapeControls("llama-3.1-70b µs → 日本"), "llama-3.1-70b µs → 日本");
  EXPECT_EQ(TerminalSafe("a\n\tb\x1b[2J\x07"), "a\n\tb\\x1b[2J\\x07");
  EXPECT_EQ(EscapeControls(""), "");
}

}  // namespace
}  // namespace frontier
