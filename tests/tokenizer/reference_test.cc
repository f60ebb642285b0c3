// reference_test.cc: frontier's tokenizer gives the ids of a reference
// implementation (@lenml/tokenizers, run by node in this test) on every string
// of tests/tokenizer/corpus.jsonl, for five real tokenizers: Llama 2 (the npm
// package's, SentencePiece-style), Llama 3.1, DeepSeek V3, gpt-oss and Qwen 3
// (byte-level). Prints the match rate per tokenizer; every string must match.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include "tests/tokenizer/reference_util.h"
#include "tokenizer/tokenizer.h"
#include "util/test_paths.h"

namespace frontier::tokenizer_test {
namespace {

std::string Show(const std::vector<int32_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

TEST(TokenizerReference, IdsMatchTheReferenceOnTheWholeCorpus) {
  if (const std::string why = ReferenceMissing(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::string> corpus = Corpus();
  ASSERT_GE(corpus.size(), 50u);
  const std::string out = (fs::temp_directory_path() / ("frontier_tok_ref_" + std::to_string(::getpid()) + ".json")).string();
  const std::string corpus_file = testing_util::TestPath("FRONTIER_SOURCE_DIR") + "/tests/tokenizer/corpus.jsonl";
  const std::string cmd = "node '" + (ReferenceDir() / "ids.mjs").string() + "' '" + corpus_file + "' '" + out + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out);
  const nlohmann::json ref = nlohmann::json::parse(in);
  fs::remove(out);

  for (const std::string& name : kReferenceNames) {
    auto tok = tokenizer::Tokenizer::Load(ModelsDir(name).string());
    ASSERT_TRUE(tok.ok()) << tok.status().ToString();
    const auto& want_all = ref.at(name);
    ASSERT_EQ(want_all.size(), corpus.size()) << name;
    size_t match = 0, tokens = 0;
    for (size_t i = 0; i < corpus.size(); ++i) {
      const auto want = want_all[i].get<std::vector<int32_t>>();
      const auto got = (*tok)->Encode(corpus[i]);
      tokens += want.size();
      if (got == want) {
        ++match;
      } else {
        ADD_FAILURE() << name << ": string " << i << " " << nlohmann::json(corpus[i]).dump() << "\n  frontier  "
                      << Show(got) << "\n  reference " << Show(want);
      }
      // Decoding the reference's ids gives the text back (NFC'd for Qwen).
      if (name != "qwen3" && name != "llama2") {
        EXPECT_EQ((*tok)->Decode(want), corpus[i]) << name << " string " << i;
      }
    }
    std::printf("%-12s %zu/%zu strings match the reference (%zu tokens); %s\n", name.c_str(), match, corpus.size(),
                tokens, (*tok)->Describe().c_str());
  }
}

}  // namespace
}  // namespace frontier::tokenizer_test
