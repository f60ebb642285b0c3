#include "client/openai.h"

#include "client/backend.h"

#include "client/sse.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace frontier::client {
namespace {

Chunk Parse(std::string s, Dialect d = Dialect::kCompletions, bool* ok = nullptr) {
  ChunkReader r;
  Chunk c;
  std::string why;
  s.reserve(s.size() + kSsePadding);
  bool good = r.Read(s, d, true, &c, &why);
  if (ok) *ok = good;
  return c;
}

// The text a chunk carries, appended unescaped when asked for.
std::string TextOf(std::string s, Dialect d) {
  ChunkReader r;
  Chunk c;
  std::string why, text = "so far:";
  s.reserve(s.size() + kSsePadding);
  EXPECT_TRUE(r.Read(s, d, false, &c, &why, &text)) << why;
  return text;
}

TEST(OpenAiTest, KeepsTheGeneratedTextOnlyWhenAsked) {
  EXPECT_EQ(TextOf(R"({"choices":[{"text":" a\"b\nc\u00e9","finish_reason":null}]})", Dialect::kCompletions),
            "so far: a\"b\nc\xc3\xa9");
  EXPECT_EQ(TextOf(R"({"choices":[{"delta":{"content":" hi"},"finish_reason":null}]})", Dialect::kChat),
            "so far: hi");
  // Reasoning is a token but not the answer a next turn carries.
  EXPECT_EQ(TextOf(R"({"choices":[{"delta":{"reasoning_content":"hmm"}}]})", Dialect::kChat), "so far:");
  EXPECT_EQ(TextOf(R"({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}})", Dialect::kCompletions),
            "so far:");
  bool ok = false;
  EXPECT_TRUE(Parse(R"({"choices":[{"text":" x"}]})", Dialect::kCompletions, &ok).content);
  EXPECT_TRUE(ok);
}

TEST(OpenAiTest, CompletionsBodyWithTokenIds) {
  BodyOptions o;
  o.model = "m";
  const int32_t ids[] = {101, 102};
  auto body = BuildBody(o, ids, "", 16);
  ASSERT_TRUE(body.ok());
  auto j = nlohmann::json::parse(*body);
  EXPECT_EQ(j["prompt"], nlohmann::json::array({101, 102}));
  EXPECT_EQ(j["max_tokens"], 16);
  EXPECT_EQ(j["stream"], true);
  EXPECT_EQ(j["stream_options"]["include_usage"], true);
  EXPECT_EQ(j["stream_options"]["continuous_usage_stats"], true);
  EXPECT_EQ(j["ignore_eos"], true);
}

TEST(OpenAiTest, ChatBodyNeedsTextAndExtraBodyWins) {
  BodyOptions o;
  o.dialect = Dialect::kChat;
  o.model = "m";
  o.usage = UsageMode::kFinal;
  o.ignore_eos = false;
  o.extra_body = R"({"temperature": 0.7, "top_p": 0.9})";
  auto body = BuildBody(o, {}, "hello", 8);
  ASSERT_TRUE(body.ok());
  auto j = nlohmann::json::parse(*body);
  EXPECT_EQ(j["messages"][0]["content"], "hello");
  EXPECT_EQ(j["max_completion_tokens"], 8);
  EXPECT_EQ(j["max_tokens"], 8);  // llama.cpp's server reads only this one
  EXPECT_EQ(j["temperature"], 0.7);
  EXPECT_FALSE(j["stream_options"].contains("continuous_usage_stats"));
  EXPECT_FALSE(j.contains("ignore_eos"));
  const int32_t ids[] = {1};
  EXPECT_FALSE(BuildBody(o, ids, "", 8).ok());
  EXPECT_FALSE(ValidateExtraBody("[1]").ok());
  EXPECT_NE(ValidateExtraBody("{").message().find("--extra-body"), std::string::npos);
  EXPECT_FALSE(DialectForEndpoint("/v1/embeddings").ok());
  EXPECT_EQ(*DialectForEndpoint("/generate"), Dialect::kSglang);  // SGLang's native API (native_dialects.h)
}

TEST(OpenAiTest, CompletionsChunks) {
  Chunk c = Parse(R"({"id":"x","model":"llama","choices":[{"index":0,"text":" hi","finish_reason":null}],
                     "usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}})");
  EXPECT_TRUE(c.content);
  EXPECT_FALSE(c.finish);
  EXPECT_TRUE(c.has_usage);
  EXPECT_EQ(c.prompt_tokens, 5);
  EXPECT_EQ(c.completion_tokens, 3);
  EXPECT_EQ(c.model, "llama");
  EXPECT_FALSE(Parse(R"({"choices":[{"text":"","finish_reason":"length"}]})").content);
  EXPECT_TRUE(Parse(R"({"choices":[{"text":"","finish_reason":"length"}]})").finish);
  Chunk usage_only = Parse(R"({"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":9}})");
  EXPECT_FALSE(usage_only.content);
  EXPECT_EQ(usage_only.completion_tokens, 9);
}

TEST(OpenAiTest, LlamaCppTimingsAreRead) {
  // llama.cpp's last completions chunk, as its server (b4747) streams it.
  Chunk c = Parse(R"({"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}],
                     "usage":{"completion_tokens":20,"prompt_tokens":3,"total_tokens":23},
                     "timings":{"prompt_n":3,"prompt_ms":1.963,"prompt_per_token_ms":0.654,
                                "prompt_per_second":1528.27,"predicted_n":20,"predicted_ms":14.532,
                                "predicted_per_token_ms":0.7266,"predicted_per_second":1376.27}})");
  ASSERT_TRUE(c.has_timings);
  EXPECT_EQ(c.timings.prompt_n, 3);
  EXPECT_DOUBLE_EQ(c.timings.prompt_ms, 1.963);
  EXPECT_EQ(c.timings.predicted_n, 20);
  EXPECT_DOUBLE_EQ(c.timings.predicted_ms, 14.532);
  EXPECT_EQ(c.completion_tokens, 20);
  EXPECT_FALSE(Parse(R"({"choices":[{"text":"a"}]})").has_timings);
  EXPECT_FALSE(Parse(R"({"choices":[],"timings":{"prompt_n":"x","prompt_ms":null}})").has_timings);
}

TEST(OpenAiTest, LlamaCppNativeBodyAndChunks) {
  ASSERT_TRUE(DialectForEndpoint("/completion").ok());
  EXPECT_EQ(*DialectForEndpoint("/completion"), Dialect::kLlamaCpp);
  EXPECT_NE(DialectForEndpoint("/completions").status().message().find("/completion (llamacpp)"),
            std::string::npos);
  BodyOptions o;
  o.dialect = Dialect::kLlamaCpp;
  o.model = "m";
  o.extra_body = R"({"cache_prompt": false})";
  const int32_t ids[] = {1, 15043, 3186};
  auto body = BuildBody(o, ids, "", 7);
  ASSERT_TRUE(body.ok());
  auto j = nlohmann::json::parse(*body);
  EXPECT_EQ(j["prompt"], nlohmann::json::array({1, 15043, 3186}));
  EXPECT_EQ(j["n_predict"], 7);
  EXPECT_EQ(j["stream"], true);
  EXPECT_EQ(j["ignore_eos"], true);
  EXPECT_EQ(j["cache_prompt"], false);
  EXPECT_FALSE(j.contains("model"));
  EXPECT_FALSE(j.contains("stream_options"));
  EXPECT_EQ(nlohmann::json::parse(*BuildBody(o, {}, "Hello", 2))["prompt"], "Hello");

  // Chunks as llama.cpp's server (b4747) streams them.
  Chunk c = Parse(R"({"index":0,"content":" Marine","tokens":[15929],"stop":false,"id_slot":-1,
                     "tokens_predicted":1,"tokens_evaluated":3})", Dialect::kLlamaCpp);
  EXPECT_TRUE(c.content);
  EXPECT_FALSE(c.finish);
  EXPECT_TRUE(c.has_usage);
  EXPECT_EQ(c.completion_tokens, 1);
  EXPECT_EQ(c.prompt_tokens, 3);
  EXPECT_EQ(TextOf(R"({"content":" Mar\u00e9","tokens":[15929],"stop":false})", Dialect::kLlamaCpp),
            "so far: Mar\xc3\xa9");
  // A token whose bytes the server holds back (part of a UTF-8 character) still arrived.
  EXPECT_TRUE(Parse(R"({"content":"","tokens":[227],"stop":false,"tokens_predicted":2})", Dialect::kLlamaCpp).content);
  Chunk last = Parse(R"({"index":0,"content":"","tokens":[],"id_slot":1,"stop":true,"model":"gpt-3.5-turbo",
                        "tokens_predicted":3,"tokens_evaluated":3,"generation_settings":{"n_predict":3,"stop":[]},
                        "prompt":"<s> Hello world","stop_type":"limit","tokens_cached":5,
                        "timings":{"prompt_n":1,"prompt_ms":7.217,"predicted_n":3,"predicted_ms":2.597}})",
                     Dialect::kLlamaCpp);
  EXPECT_FALSE(last.content);
  EXPECT_TRUE(last.finish);
  EXPECT_EQ(last.completion_tokens, 3);
  EXPECT_EQ(last.model, "gpt-3.5-turbo");
  ASSERT_TRUE(last.has_timings);
  EXPECT_EQ(last.timings.prompt_n, 1);
  EXPECT_DOUBLE_EQ(last.timings.predicted_ms, 2.597);
  // The OpenAI readers ignore native fields.
  EXPECT_FALSE(Parse(R"({"content":"x","tokens":[1],"stop":true})").content);
}

TEST(OpenAiTest, ChatRoleOnlyAndEmptyDeltasAreNotTokens) {
  EXPECT_FALSE(Parse(R"({"choices":[{"delta":{"role":"assistant"}}]})", Dialect::kChat).content);
  EXPECT_FALSE(Parse(R"({"choices":[{"delta":{"role":"assistant","content":""}}]})", Dialect::kChat).content);
  EXPECT_FALSE(Parse(R"({"choices":[{"delta":{"content":null}}]})", Dialect::kChat).content);
  EXPECT_TRUE(Parse(R"({"choices":[{"delta":{"content":"Hi"}}]})", Dialect::kChat).content);
  EXPECT_TRUE(Parse(R"({"choices":[{"delta":{"reasoning_content":"hm"}}]})", Dialect::kChat).content);
  // A completions reader ignores chat fields and vice versa.
  EXPECT_FALSE(Parse(R"({"choices":[{"delta":{"content":"Hi"}}]})").content);
}

TEST(OpenAiTest, ErrorsAndMalformedJson) {
  Chunk e = Parse(R"({"error":{"message":"boom","code":500}})");
  EXPECT_TRUE(e.error);
  EXPECT_NE(e.error_message.find("boom"), std::string::npos);
  Chunk v = Parse(R"({"object":"error","message":"bad","code":400})");
  EXPECT_TRUE(v.error);
  EXPECT_EQ(v.error_message, "bad");
  bool ok = true;
  Parse(R"({"choices":[{"text":"a")", Dialect::kCompletions, &ok);
  EXPECT_FALSE(ok);
  Parse(R"({"choices":[]} trailing)", Dialect::kCompletions, &ok);
  EXPECT_FALSE(ok);
  Parse("not json", Dialect::kCompletions, &ok);
  EXPECT_FALSE(ok);
}

}  // namespace
}  // namespace frontier::client
