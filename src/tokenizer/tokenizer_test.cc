// tokenizer_test.cc: the tokenizer's parts against hand-worked answers: the
// regex splits, NFC, BPE merge order, byte fallback, added tokens, and the
// errors that name what a tokenizer.json asks for and is not supported.
// tests/tokenizer/ checks whole tokenizers against real ones.
#include "tokenizer/tokenizer.h"

#include <gtest/gtest.h>

#include "tokenizer/pretokenizer.h"
#include "tokenizer/unicode.h"

namespace frontier::tokenizer {
namespace {

std::vector<std::string> Pieces(SplitPattern p, std::string_view text) {
  std::vector<std::string_view> v;
  Split(p, text, &v);
  return {v.begin(), v.end()};
}
using V = std::vector<std::string>;

TEST(Unicode, Categories) {
  EXPECT_EQ(Category(U'a'), Cat::kLl);
  EXPECT_EQ(Category(U'Ω'), Cat::kLu);
  EXPECT_EQ(Category(U'中'), Cat::kLo);
  EXPECT_EQ(Category(0x0301), Cat::kMark);
  EXPECT_EQ(Category(U'٣'), Cat::kNumber);
  EXPECT_EQ(Category(U'½'), Cat::kNumber);
  EXPECT_EQ(Category(U'!'), Cat::kPunct);
  EXPECT_EQ(Category(U'€'), Cat::kSymbol);
  EXPECT_EQ(Category(0x1F600), Cat::kSymbol);  // 😀
  EXPECT_EQ(Category(U' '), Cat::kOther);
  EXPECT_TRUE(IsWhiteSpace(0x3000));
  EXPECT_FALSE(IsWhiteSpace(0x200B));  // zero-width space is not White_Space
}

TEST(Unicode, NfcComposesReordersAndLeavesComposedTextAlone) {
  EXPECT_EQ(Nfc("Cafe\xCC\x81"), "Caf\xC3\xA9");                      // e + U+0301 -> é
  EXPECT_EQ(Nfc("a\xCC\xA3\xCC\x87"), "\xE1\xBA\xA1\xCC\x87");        // a + dot below + dot above -> ạ + dot above
  EXPECT_EQ(Nfc("a\xCC\x87\xCC\xA3"), "\xE1\xBA\xA1\xCC\x87");        // reordered first
  EXPECT_EQ(Nfc("\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB"), "\xED\x95\x9C");  // Hangul jamo -> 한
  EXPECT_EQ(Nfc("\xE2\x84\xAB"), "\xC3\x85");                          // Å (angstrom sign, a singleton) -> Å
  EXPECT_FALSE(MayNeedNfc("plain ASCII and \xE4\xB8\xAD\xE6\x96\x87"));
}

TEST(Unicode, NfcTouchesOnlyTheStretchesAroundUnstableCharacters) {
  // Precomposed é and Hangul syllables are stable: nothing to do.
  EXPECT_FALSE(MayNeedNfc("caf\xC3\xA9 \xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4"));
  // Two stretches far apart, each normalized as if alone, the rest kept.
  const std::string mid(1000, 'x');
  EXPECT_EQ(Nfc("Cafe\xCC\x81 " + mid + " a\xCC\x87\xCC\xA3!"), "Caf\xC3\xA9 " + mid + " \xE1\xBA\xA1\xCC\x87!");
  // A stretch starts at the stable character before the unstable one: é
  // followed by a combining mark below reorders and recomposes with it.
  EXPECT_EQ(Nfc("\xC3\xA9\xCC\xA3"), "\xE1\xBA\xB9\xCC\x81");  // é + dot below -> ẹ + acute
  // Hangul: a syllable followed by a trailing consonant composes.
  EXPECT_EQ(Nfc("\xEA\xB0\x80\xE1\x86\xA8"), "\xEA\xB0\x81");  // 가 + ᆨ -> 각
  // Bytes that are not UTF-8 stay as they are outside a stretch.
  EXPECT_EQ(Nfc("\xFF e\xCC\x81 \xFE"), "\xFF \xC3\xA9 \xFE");
}

TEST(Split, Llama3) {
  EXPECT_EQ(Pieces(SplitPattern::kLlama3, "Hello world's 12345 end"),
            (V{"Hello", " world", "'s", " ", "123", "45", " end"}));
  EXPECT_EQ(Pieces(SplitPattern::kLlama3, "a  b\n\n c   "), (V{"a", " ", " b", "\n\n", " c", "   "}));
  EXPECT_EQ(Pieces(SplitPattern::kLlama3, "x = (y);\n"), (V{"x", " =", " (", "y", ");\n"}));
  EXPECT_EQ(Pieces(SplitPattern::kLlama3, "I'M"), (V{"I", "'M"}));
}

TEST(Split, QwenDigitsOneByOne) {
  EXPECT_EQ(Pieces(SplitPattern::kQwen, "x123"), (V{"x", "1", "2", "3"}));
}

TEST(Split, O200kCaseAwareWords) {
  EXPECT_EQ(Pieces(SplitPattern::kO200k, "HTTPServer CamelCase"), (V{"HTTPServer", " Camel", "Case"}));
  EXPECT_EQ(Pieces(SplitPattern::kO200k, "HELLO they're"), (V{"HELLO", " they're"}));
  EXPECT_EQ(Pieces(SplitPattern::kO200k, "a/b //\n"), (V{"a", "/b", " //\n"}));
}

TEST(Split, DeepSeekThreeSplits) {
  EXPECT_EQ(Pieces(SplitPattern::kDeepSeekDigits, "ab12345c"), (V{"ab", "123", "45", "c"}));
  EXPECT_EQ(Pieces(SplitPattern::kDeepSeekCjk, "x\xE4\xB8\xAD\xE6\x96\x87y"), (V{"x", "\xE4\xB8\xAD\xE6\x96\x87", "y"}));
  EXPECT_EQ(Pieces(SplitPattern::kDeepSeekWords, ".foo bar!?\n"), (V{".foo", " bar", "!?\n"}));
}

TEST(Split, CoversTheTextExactly) {
  const std::string text = "mixed\t \xF0\x9F\x98\x80 \xFF bad byte\r\n  end";
  for (auto p : {SplitPattern::kLlama3, SplitPattern::kQwen, SplitPattern::kO200k, SplitPattern::kDeepSeekWords,
                 SplitPattern::kGpt2}) {
    std::string joined;
    for (const auto& s : Pieces(p, text)) {
      EXPECT_FALSE(s.empty());
      joined += s;
    }
    EXPECT_EQ(joined, text) << PatternName(p);
  }
}

// A byte-level tokenizer whose merges are worked out by hand: "Ġ" is space.
constexpr char kByteLevelJson[] = R"({
  "added_tokens": [{"id": 300, "content": "<|end|>", "special": true}],
  "normalizer": null,
  "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
  "decoder": {"type": "ByteLevel"},
  "model": {"type": "BPE", "vocab": VOCAB, "merges": ["l l", "h e", "he ll", "hell o", "Ġ w", "Ġw o"]}
})";

std::string ByteLevelJson() {
  // The 256 byte tokens in GPT-2's order of stand-ins, then the merged ones.
  std::string vocab = "{";
  int next = 256, id = 0;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    std::string ch;
    AppendUtf8(printable ? static_cast<char32_t>(b) : static_cast<char32_t>(next++), &ch);
    if (ch == "\"" || ch == "\\") ch = "\\" + ch;
    vocab += "\"" + ch + "\": " + std::to_string(id++) + ",";
  }
  vocab += R"("ll": 256, "he": 257, "hell": 258, "hello": 259, "Ġw": 260, "Ġwo": 261})";
  std::string j = kByteLevelJson;
  j.replace(j.find("VOCAB"), 5, vocab);
  return j;
}

TEST(Tokenizer, ByteLevelMergesByRank) {
  auto t = Tokenizer::FromJson(ByteLevelJson(), "test.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  // "hello": l+l (rank 0), h+e (1), he+ll (2), hell+o (3). " world": Ġ+w, Ġw+o, then bytes.
  EXPECT_EQ((*t)->Encode("hello world"), (std::vector<int32_t>{259, 261, 'r', 'l', 'd'}));
  EXPECT_EQ((*t)->Encode("hello<|end|>"), (std::vector<int32_t>{259, 300}));
  EXPECT_EQ((*t)->Decode((*t)->Encode("hello world<|end|>\n\xC3\xA9")), "hello world<|end|>\n\xC3\xA9");
  EXPECT_EQ((*t)->Decode((*t)->Encode("x<|end|>"), /*skip_special=*/true), "x");
  EXPECT_TRUE((*t)->IsSpecial(300));
  EXPECT_FALSE((*t)->IsOrdinary(300));
  EXPECT_TRUE((*t)->IsOrdinary(259));
  EXPECT_EQ((*t)->vocab_size(), 301);
  // Half a character decodes to U+FFFD, not to invalid UTF-8.
  EXPECT_EQ((*t)->Decode(std::vector<int32_t>{0xC3}), "\xEF\xBF\xBD");
}

// SentencePiece-style: ▁ for spaces, byte fallback for what has no piece.
constexpr char kSpJson[] = R"({
  "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                 {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
  "pre_tokenizer": null,
  "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
              {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
  "model": {"type": "BPE", "byte_fallback": true, "unk_token": "<unk>", "fuse_unk": true,
            "vocab": {"<unk>": 0, "<0xC3>": 1, "<0xA9>": 2, "▁": 3, "a": 4, "b": 5, "▁a": 6, "ab": 7, "▁ab": 8},
            "merges": ["a b", "▁ ab", "▁ a"]}
})";

TEST(Tokenizer, SentencePieceStyleWithByteFallback) {
  auto t = Tokenizer::FromJson(kSpJson, "sp.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  // "▁ab▁a▁é": a+b first (rank 0), then ▁+ab (1), ▁+a (2); é has no piece: its two bytes.
  EXPECT_EQ((*t)->Encode("ab a \xC3\xA9"), (std::vector<int32_t>{8, 6, 3, 1, 2}));
  EXPECT_EQ((*t)->Decode((*t)->Encode("ab a \xC3\xA9")), "ab a \xC3\xA9");
  // A long word (past the short-word path) merges the same way.
  std::string many;
  std::vector<int32_t> expect;
  for (int i = 0; i < 40; ++i) {
    many += " ab";
    expect.push_back(8);
  }
  EXPECT_EQ((*t)->Encode(many.substr(1)), expect);
}

// Cutting the text before each ▁ must not change the ids. The same vocabulary
// with one more merge that joins "b" to "▁" cannot be cut (the loader sees
// the merge) and runs BPE over the whole text: on texts where that merge never
// applies, both must agree. Words that start with a run of ▁, repeated merges
// over a long run of one character (past the short-word path and the word
// cache's bound), the same word many times, unknown characters fused.
std::string CutJson(bool with_b_space) {
  std::string j = R"({
  "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                 {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
  "pre_tokenizer": null, "decoder": null,
  "model": {"type": "BPE", "byte_fallback": false, "unk_token": "<unk>", "fuse_unk": true,
            "vocab": {"<unk>": 0, "▁": 1, "a": 2, "b": 3, "aa": 4, "aaaa": 5, "▁▁": 6, "▁a": 7, "▁aa": 8,
                      "▁▁a": 9, "ab": 10, "b▁": 11},
            "merges": ["a a", "aa aa", "▁ ▁", "▁ a", "▁ aa", "▁▁ a", "a b"MORE]}
})";
  j.replace(j.find("MORE"), 4, with_b_space ? R"(, "b ▁")" : "");
  return j;
}

TEST(Tokenizer, SentencePieceCutsBeforeSpacesGiveTheWholeTextsIds) {
  auto cut = Tokenizer::FromJson(CutJson(false), "cut.json");
  auto whole = Tokenizer::FromJson(CutJson(true), "whole.json");
  ASSERT_TRUE(cut.ok()) << cut.status().ToString();
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  // Worked by hand: "▁aa▁▁aab": a+a twice, ▁+▁, ▁+aa; "aa b" has no merge.
  EXPECT_EQ((*cut)->Encode("aa  aab"), (std::vector<int32_t>{8, 6, 4, 3}));
  // ▁ + 402 a: a+a from the left (201 aa), aa+aa (100 aaaa and one aa left).
  const std::string run(402, 'a');
  std::vector<int32_t> want = {1};
  for (int i = 0; i < 100; ++i) want.push_back(5);
  want.push_back(4);
  EXPECT_EQ((*cut)->Encode(run), want);
  EXPECT_EQ((*cut)->Encode(run), want);  // again, now from the cache where it fits
  std::string many, spaces;
  for (int i = 0; i < 300; ++i) many += i % 7 ? " aab a" : "   aaaaa ";
  for (int i = 0; i < 50; ++i) spaces += std::string(static_cast<size_t>(i % 5), ' ') + "a";
  for (const std::string& text : {std::string("aa  aab"), run, many, spaces, std::string("  a\xE2\x82\xAC\xE2\x82\xAC  ab"),
                                  std::string(1000, ' '), " " + run + " " + run}) {
    EXPECT_EQ((*cut)->Encode(text), (*whole)->Encode(text)) << text.substr(0, 40);
  }
  EXPECT_EQ((*cut)->Encode("a\xE2\x82\xAC\xE2\x82\xAC a"), (std::vector<int32_t>{7, 0, 7}));  // € has no piece: one unk
  // The merge that the cut would break is honoured where it applies.
  EXPECT_EQ((*whole)->Encode("b b"), (std::vector<int32_t>{1, 11, 3}));
}

TEST(Tokenizer, RefusesWhatItDoesNotImplementNamingTheField) {
  auto bad_model = Tokenizer::FromJson(R"({"model": {"type": "Unigram", "vocab": []}})", "u.json");
  ASSERT_FALSE(bad_model.ok());
  EXPECT_NE(bad_model.status().message().find("model.type \"Unigram\""), std::string::npos);
  auto re = Tokenizer::FromJson(
      R"({"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "\\w+"}, "behavior": "Isolated"}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})",
      "r.json");
  ASSERT_FALSE(re.ok());
  EXPECT_NE(re.status().message().find("pre_tokenizer Split regex \"\\w+\""), std::string::npos);
  // A component of a type this code does not read is named by its field, inside a Sequence too.
  const std::string model = R"("model": {"type": "BPE", "vocab": {"a": 0}, "merges": []})";
  for (const auto& [component, named] : std::vector<std::pair<std::string, std::string>>{
           {R"("normalizer": {"type": "Lowercase"})", "normalizer \"Lowercase\""},
           {R"("pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}]})",
            "pre_tokenizer \"Whitespace\""},
           {R"("decoder": {"type": "WordPiece"})", "decoder \"WordPiece\""}}) {
    auto unread = Tokenizer::FromJson("{" + component + ", " + model + "}", "c.json");
    ASSERT_FALSE(unread.ok()) << component;
    EXPECT_NE(unread.status().message().find("c.json: " + named + " is not supported"), std::string::npos)
        << unread.status().message();
  }
  auto missing = Tokenizer::Load("/nonexistent/dir");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--tokenizer /nonexistent/dir"), std::string::npos);
}

}  // namespace
}  // namespace frontier::tokenizer
