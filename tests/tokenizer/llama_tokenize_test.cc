// llama_tokenize_test.cc: frontier's tokenizer, loaded from the shared GGUF
// model (the real 32,000-token Llama 2 vocabulary), gives the ids llama.cpp's
// own tokenizer gives (llama-server's /tokenize) on every string of the corpus.
// Skipped, saying why, where llama-server or the model is absent.
#include <curl/curl.h>
#include <gtest/gtest.h>

#include "tests/bench/llama_server.h"
#include "tests/tokenizer/reference_util.h"
#include "tokenizer/tokenizer.h"
#include "util/test_paths.h"
#include "workload/exact_text.h"

namespace frontier::tokenizer_test {
namespace {

size_t Collect(char* p, size_t n, size_t m, void* out) {
  static_cast<std::string*>(out)->append(p, n * m);
  return n * m;
}

// POST body to url; the response body, or "" on failure.
std::string Post(const std::string& url, const std::string& body) {
  std::string out;
  CURL* c = curl_easy_init();
  curl_slist* h = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
  const CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(h);
  curl_easy_cleanup(c);
  return rc == CURLE_OK ? out : "";
}

std::string ModelPath() {
  if (const char* v = std::getenv("FRONTIER_TINY_MODEL"); v != nullptr && *v != '\0') return v;
  const fs::path source = testing_util::TestPath("FRONTIER_SOURCE_DIR");
  for (const fs::path& base : {source / ".." / "shared", fs::path("/work/shared")}) {
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(base / "models" / "tiny-llama.gguf", ec);
    if (!ec && fs::exists(p)) return p.string();
  }
  return "";
}

TEST(TokenizerLlamaServer, GgufVocabularyGivesLlamaCppsIds) {
  testing_llama::LlamaServer::Options o;
  o.parallel = 1;
  testing_llama::LlamaServer server(o);
  if (!server.found()) GTEST_SKIP() << server.why();
  ASSERT_TRUE(server.ok()) << server.why();
  auto tok = tokenizer::Tokenizer::Load(ModelPath());
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  EXPECT_EQ((*tok)->vocab_size(), 32000);
  EXPECT_EQ((*tok)->Encode("Hello world"), (std::vector<int32_t>{15043, 3186}));  // the README's example

  const std::vector<std::string> corpus = Corpus();
  size_t match = 0, tokens = 0;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const std::string body = Post(server.base_url() + "/tokenize", nlohmann::json{{"content", corpus[i]}}.dump());
    ASSERT_FALSE(body.empty()) << "no answer from /tokenize for string " << i;
    const auto want = nlohmann::json::parse(body).at("tokens").get<std::vector<int32_t>>();
    const auto got = (*tok)->Encode(corpus[i]);
    tokens += want.size();
    if (got == want) {
      ++match;
    } else {
      ADD_FAILURE() << "string " << i << " " << nlohmann::json(corpus[i]).dump() << "\n  frontier     "
                    << nlohmann::json(got).dump() << "\n  llama-server " << nlohmann::json(want).dump();
    }
  }
  std::printf("llama-server %zu/%zu strings match /tokenize (%zu tokens); %s\n", match, corpus.size(), tokens,
              (*tok)->Describe().c_str());
}

// Prompts made to N tokens by the GGUF vocabulary arrive at llama-server as N
// tokens: its usage.prompt_tokens is N plus the BOS it adds, for every prompt,
// with and without a shared prefix.
TEST(TokenizerLlamaServer, ExactLengthPromptsArriveAsThatManyTokens) {
  testing_llama::LlamaServer::Options o;
  o.parallel = 1;
  o.ctx = 4096;
  testing_llama::LlamaServer server(o);
  if (!server.found()) GTEST_SKIP() << server.why();
  ASSERT_TRUE(server.ok()) << server.why();
  auto tok = tokenizer::Tokenizer::Load(ModelPath());
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  for (const int32_t prefix : {0, 40}) {
    std::vector<workload::RequestSpec> specs;
    for (const int32_t n : {41, 50, 64, 129, 300, 1000, 2000}) {
      workload::RequestSpec r;
      r.input_len = n;
      specs.push_back(r);
    }
    workload::ExactTextStats stats;
    ASSERT_TRUE(workload::MakeExactTextPrompts(specs, prefix, **tok, 7, &stats).ok());
    EXPECT_EQ(stats.prompts, 7);
    int arrived_exact = 0;
    for (const auto& r : specs) {
      const std::string body = Post(server.base_url() + "/v1/completions",
                                    nlohmann::json{{"prompt", r.prompt_text}, {"max_tokens", 1}}.dump());
      ASSERT_FALSE(body.empty());
      const auto j = nlohmann::json::parse(body);
      const int64_t prompt_tokens = j.at("usage").at("prompt_tokens").get<int64_t>();
      EXPECT_EQ(prompt_tokens, r.input_len + 1) << "prefix " << prefix << ", input_len " << r.input_len;
      arrived_exact += prompt_tokens == r.input_len + 1;
    }
    std::printf("prefix %d: %lld/%lld prompts made exact, %d/%zu arrived at llama-server as input_len + BOS, max "
                "deviation %lld\n",
                prefix, static_cast<long long>(stats.exact), static_cast<long long>(stats.prompts), arrived_exact,
                specs.size(), static_cast<long long>(stats.max_abs_deviation));
  }
}

}  // namespace
}  // namespace frontier::tokenizer_test
