#include "serve/openai.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace frontier::serve {
namespace {

using json = nlohmann::json;

std::optional<ApiError> Parse(ApiKind k, const std::string& body, GenerationRequest& r) {
  return ParseGenerationRequest(k, body, r);
}

TEST(ParseGenerationRequest, CompletionFields) {
  GenerationRequest r;
  auto e = Parse(ApiKind::kCompletions,
                 R"({"model":"m","prompt":"the of and","max_tokens":7,"min_tokens":2,"ignore_eos":true,
                     "stop":["x","yz"],"stream":true,"stream_options":{"include_usage":true,
                     "continuous_usage_stats":true},"temperature":0.5,"n":1,"seed":9})",
                 r);
  ASSERT_FALSE(e) << e->message;
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.prompt_tokens, 3);
  EXPECT_EQ(*r.max_tokens, 7);
  EXPECT_EQ(r.min_tokens, 2);
  EXPECT_TRUE(r.ignore_eos && r.stream && r.include_usage && r.continuous_usage);
  EXPECT_EQ(r.stop.size(), 2u);
  EXPECT_EQ(*r.seed, 9);
}

TEST(ParseGenerationRequest, TokenIdPromptsAreExact) {
  GenerationRequest a, b, c;
  ASSERT_FALSE(Parse(ApiKind::kCompletions, R"({"prompt":[1,2,3,4,5]})", a));
  EXPECT_EQ(a.prompt_tokens, 5);
  ASSERT_FALSE(Parse(ApiKind::kCompletions, R"({"prompt":[[1,2,3,4,5]]})", b));
  EXPECT_EQ(b.prompt_tokens, 5);
  EXPECT_EQ(a.prompt_hash, b.prompt_hash);
  ASSERT_FALSE(Parse(ApiKind::kCompletions, R"({"prompt":[1,2,3,4,6]})", c));
  EXPECT_NE(a.prompt_hash, c.prompt_hash);
}

TEST(ParseGenerationRequest, ChatMessagesCountTextOfEveryMessage) {
  GenerationRequest r;
  ASSERT_FALSE(Parse(ApiKind::kChat,
                     R"({"messages":[{"role":"system","content":"be brief"},
                         {"role":"user","content":[{"type":"text","text":"one two three"}]}],
                         "max_completion_tokens":5,"max_tokens":99})",
                     r));
  EXPECT_EQ(r.prompt_tokens, 5);
  EXPECT_EQ(*r.max_tokens, 5);  // max_completion_tokens wins
}

TEST(ParseGenerationRequest, BadInputNamesTheField) {
  struct Case {
    ApiKind kind;
    const char* body;
    const char* param;
  };
  const Case cases[] = {
      {ApiKind::kCompletions, "{not json", ""},
      {ApiKind::kCompletions, "[1,2]", ""},
      {ApiKind::kCompletions, R"({"max_tokens":3})", "prompt"},
      {ApiKind::kCompletions, R"({"prompt":""})", "prompt"},
      {ApiKind::kCompletions, R"({"prompt":5})", "prompt"},
      {ApiKind::kCompletions, R"({"prompt":[1,-2]})", "prompt"},
      {ApiKind::kCompletions, R"({"prompt":["a","b"]})", "prompt"},
      {ApiKind::kCompletions, R"({"prompt":"a","max_tokens":"10"})", "max_tokens"},
      {ApiKind::kCompletions, R"({"prompt":"a","max_tokens":0})", "max_tokens"},
      {ApiKind::kCompletions, R"({"prompt":"a","stream":"yes"})", "stream"},
      {ApiKind::kCompletions, R"({"prompt":"a","stream_options":{"include_usage":true}})", "stream_options"},
      {ApiKind::kCompletions, R"({"prompt":"a","n":2})", "n"},
      {ApiKind::kCompletions, R"({"prompt":"a","stop":[""]})", "stop"},
      {ApiKind::kCompletions, R"({"prompt":"a","max_tokens":2,"min_tokens":3})", "min_tokens"},
      {ApiKind::kCompletions, R"({"prompt":"a","model":7})", "model"},
      {ApiKind::kChat, R"({"messages":[]})", "messages"},
      {ApiKind::kChat, R"({"prompt":"a"})", "messages"},
      {ApiKind::kChat, R"({"messages":[{"content":"a"}]})", "messages[0].role"},
      {ApiKind::kChat, R"({"messages":[{"role":"user","content":5}]})", "messages[0].content"},
  };
  for (const Case& c : cases) {
    GenerationRequest r;
    auto e = Parse(c.kind, c.body, r);
    ASSERT_TRUE(e) << c.body;
    EXPECT_EQ(e->status, 400) << c.body;
    EXPECT_EQ(e->param, c.param) << c.body;
    EXPECT_FALSE(e->message.empty());
  }
}

TEST(ParseGenerationRequest, TokenCountsBeyondTheEnginesRangeAreRefused) {
  // These passed the parser and overflowed prompt + max_tokens (undefined
  // behaviour) or were narrowed to 32 bits when the request was admitted.
  const std::pair<const char*, const char*> cases[] = {
      {R"({"prompt": "a", "max_tokens": 9223372036854775807})",
       "`max_tokens` must be an integer in [1, 2147483647], got 9223372036854775807"},
      {R"({"prompt": "a", "min_tokens": 9223372036854775807})",
       "`min_tokens` must be an integer in [0, 2147483647], got 9223372036854775807"},
      {R"({"prompt": "a", "max_completion_tokens": 18446744073709551615})",
       "`max_completion_tokens` must be an integer in [1, 2147483647], got 18446744073709551615"},
      {R"({"prompt": "a", "max_tokens": 4294967296})",
       "`max_tokens` must be an integer in [1, 2147483647], got 4294967296"},
      {R"({"prompt": "a", "max_tokens": 0})", "`max_tokens` must be an integer in [1, 2147483647], got 0"},
      {R"({"prompt": "a", "max_tokens": 1.5})", "`max_tokens` must be an integer in [1, 2147483647], got 1.5"},
      // An integer past 64 bits is read as a floating-point number: it was named "a non-integer number".
      {R"({"prompt": "a", "n": 99999999999999999999})",
       "`n` must be an integer in [1, 9223372036854775807], got 1e+20"},
      // Token ids out of range were refused without the value or where it was.
      {R"({"prompt": [5, -1]})", "`prompt` token ids must be integers in [0, 18446744073709551615], got -1 at index 1"},
      {R"({"prompt": [1e30]})", "`prompt` token ids must be integers in [0, 18446744073709551615], got 1e+30 at index 0"},
      {R"({"prompt": [3, "x"]})",
       "`prompt` token ids must be integers in [0, 18446744073709551615], got a string at index 1"},
  };
  for (const auto& [body, message] : cases) {
    GenerationRequest r;
    auto e = ParseGenerationRequest(ApiKind::kCompletions, body, r);
    ASSERT_TRUE(e.has_value()) << body;
    EXPECT_EQ(e->status, 400);
    EXPECT_EQ(e->message, message) << body;
  }
  GenerationRequest r;
  auto deep = ParseGenerationRequest(ApiKind::kCompletions, std::string(100000, '[') + std::string(100000, ']'), r);
  ASSERT_TRUE(deep.has_value());
  EXPECT_EQ(deep->message, "the request body is nested deeper than 64 levels");
}

TEST(Format, ChunksAreValidJsonWithOpenAiShape) {
  const std::string head = ResponseHead(ApiKind::kChat, true, "chatcmpl-1", 123, "m\"x");
  std::string out;
  AppendRoleEvent(out, head, nullptr);
  const Usage u{3, 2};
  AppendContentEvent(out, ApiKind::kChat, head, " the", "length", &u);
  AppendUsageEvent(out, head, u);
  std::vector<json> events;
  size_t pos = 0;
  while ((pos = out.find("data: ", pos)) != std::string::npos) {
    const size_t end = out.find("\n\n", pos);
    events.push_back(json::parse(out.substr(pos + 6, end - pos - 6)));
    pos = end;
  }
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0]["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(events[0]["model"], "m\"x");
  EXPECT_EQ(events[1]["choices"][0]["delta"]["content"], " the");
  EXPECT_EQ(events[1]["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(events[1]["usage"]["total_tokens"], 5);
  EXPECT_TRUE(events[2]["choices"].empty());
  EXPECT_EQ(events[2]["object"], "chat.completion.chunk");

  const json body = json::parse(FinalBody(ApiKind::kCompletions,
                                          ResponseHead(ApiKind::kCompletions, false, "cmpl-2", 1, "m"),
                                          " a\n\"b", "stop", u));
  EXPECT_EQ(body["choices"][0]["text"], " a\n\"b");
  EXPECT_EQ(body["usage"]["completion_tokens"], 2);
  EXPECT_EQ(body["object"], "text_completion");
  const json bad_utf8 = json::parse(ErrorJson(ApiError{404, "no model \xa2\xff", "invalid_request_error", "", ""}));
  EXPECT_EQ(bad_utf8["error"]["code"], 404);
  const json err = json::parse(ErrorJson(ApiError{404, "no", "invalid_request_error", "model", "model_not_found"}));
  EXPECT_EQ(err["error"]["code"], "model_not_found");
  EXPECT_EQ(err["error"]["param"], "model");
}

}  // namespace
}  // namespace frontier::serve
