// The OpenAI-compatible surface: streaming and not, chat and completions,
// usage, stop strings, EOS options, token-id prompts, keep-alive, pipelining,
// HTTP/1.0, Expect: 100-continue, /v1/models, /health.
#include <sys/socket.h>

#include "serve_test_util.h"

namespace frontier::serve::testing {
namespace {

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServeOptions o = TestOptions();
    o.default_max_tokens = 16;
    server_ = StartFixed(1, 1, 1, o, /*context=*/4096);
    ASSERT_TRUE(server_);
    port_ = server_->port();
  }
  void TearDown() override {
    if (server_) ExpectHealthy(port_);
  }
  json PostJson(const std::string& path, const std::string& body, int status = 200) {
    const HttpReply r = Post(port_, path, body);
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_EQ(r.headers.count("content-type") ? r.headers.at("content-type") : "", "application/json");
    return json::parse(r.body);
  }
  std::unique_ptr<Server> server_;
  int port_ = 0;
};

TEST_F(ApiTest, CompletionNonStreaming) {
  const json j = PostJson("/v1/completions", R"({"model":"test-model","prompt":"one two three","max_tokens":7})");
  EXPECT_EQ(j["object"], "text_completion");
  EXPECT_EQ(j["model"], "test-model");
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(CountTextTokens(j["choices"][0]["text"].get<std::string>()), 7);
  EXPECT_EQ(j["usage"]["prompt_tokens"], 3);
  EXPECT_EQ(j["usage"]["completion_tokens"], 7);
  EXPECT_EQ(j["usage"]["total_tokens"], 10);
  // Deterministic: the same prompt gives the same text.
  const json again = PostJson("/v1/completions", R"({"prompt":"one two three","max_tokens":7})");
  EXPECT_EQ(again["choices"][0]["text"], j["choices"][0]["text"]);
  const json other = PostJson("/v1/completions", R"({"prompt":"one two four","max_tokens":7})");
  EXPECT_NE(other["choices"][0]["text"], j["choices"][0]["text"]);
}

TEST_F(ApiTest, TokenIdPromptCountsExactly) {
  const json j = PostJson("/v1/completions", R"({"prompt":[5,6,7,8,9,10,11,12,13,14,15],"max_tokens":2})");
  EXPECT_EQ(j["usage"]["prompt_tokens"], 11);
}

TEST_F(ApiTest, DefaultMaxTokensAndMaxCompletionTokens) {
  EXPECT_EQ(PostJson("/v1/completions", R"({"prompt":"x"})")["usage"]["completion_tokens"], 16);
  const json c = PostJson("/v1/chat/completions",
                          R"({"messages":[{"role":"user","content":"hi there"}],"max_completion_tokens":4})");
  EXPECT_EQ(c["object"], "chat.completion");
  EXPECT_EQ(c["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(c["usage"]["completion_tokens"], 4);
  EXPECT_EQ(c["usage"]["prompt_tokens"], 2);
}

TEST_F(ApiTest, ChatStreamStartsWithRoleAndEndsWithUsageAndDone) {
  const HttpReply r = Post(port_, "/v1/chat/completions",
                           R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":5,"stream":true,
                               "stream_options":{"include_usage":true}})");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.headers.at("content-type").find("text/event-stream"), std::string::npos);
  EXPECT_EQ(r.headers.at("transfer-encoding"), "chunked");
  EXPECT_TRUE(EndsWithDone(r));
  const auto ev = Events(r);
  ASSERT_EQ(ev.size(), 7u);  // role, 5 content, usage
  EXPECT_EQ(ev[0]["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(ev[0]["choices"][0]["delta"]["content"], "");
  EXPECT_FALSE(r.events[0].has_content);
  for (int i = 1; i <= 5; ++i) {
    EXPECT_EQ(ev[i]["object"], "chat.completion.chunk");
    EXPECT_EQ(ev[i]["choices"][0]["finish_reason"], i == 5 ? json("length") : json(nullptr));
    EXPECT_FALSE(ev[i].contains("usage"));
  }
  EXPECT_TRUE(ev[6]["choices"].empty());
  EXPECT_EQ(ev[6]["usage"]["completion_tokens"], 5);
  EXPECT_EQ(ev[6]["usage"]["prompt_tokens"], 1);
}

TEST_F(ApiTest, ContinuousUsageStats) {
  const HttpReply r = Post(port_, "/v1/completions",
                           R"({"prompt":"a b","max_tokens":3,"stream":true,
                               "stream_options":{"include_usage":true,"continuous_usage_stats":true}})");
  const auto ev = Events(r);
  ASSERT_EQ(ev.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ev[i]["usage"]["completion_tokens"], i + 1);
  EXPECT_EQ(ev[3]["usage"]["total_tokens"], 5);
  // Without stream_options there is no usage chunk at all.
  const auto plain = Events(Post(port_, "/v1/completions", R"({"prompt":"a b","max_tokens":3,"stream":true})"));
  ASSERT_EQ(plain.size(), 3u);
  for (const auto& e : plain) EXPECT_FALSE(e.contains("usage"));
}

TEST_F(ApiTest, StopStringCutsTheTextStreamingOrNot) {
  const std::string full = PostJson("/v1/completions", R"({"prompt":"p q","max_tokens":30})")["choices"][0]["text"];
  // Stop at the word that starts at token 10 (the first time that word appears).
  size_t pos = 0;
  for (int i = 0; i < 10; ++i) pos = full.find(' ', pos + 1);
  const std::string stop = full.substr(pos, full.find(' ', pos + 1) - pos);
  const size_t first = full.find(stop);
  const json body = {{"prompt", "p q"}, {"max_tokens", 30}, {"stop", json::array({stop, "zzzz"})}};
  const json j = PostJson("/v1/completions", body.dump());
  EXPECT_EQ(j["choices"][0]["text"], full.substr(0, first));
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
  EXPECT_LE(j["usage"]["completion_tokens"].get<int>(), 11);
  json sbody = body;
  sbody["stream"] = true;
  const HttpReply r = Post(port_, "/v1/completions", sbody.dump());
  EXPECT_EQ(StreamText(r), full.substr(0, first));
  EXPECT_EQ(Events(r).back()["choices"][0]["finish_reason"], "stop");
}

TEST(ApiEos, NaturalLengthIgnoreEosAndMinTokens) {
  ServeOptions o = TestOptions();
  o.natural_output_len = 10;
  auto server = StartFixed(1, 1, 1, o);
  ASSERT_TRUE(server);
  int below = 0;
  for (int i = 0; i < 20; ++i) {
    const json j = json::parse(Post(server->port(), "/v1/completions",
                                    json{{"prompt", "prompt " + std::to_string(i)}, {"max_tokens", 100}}.dump())
                                   .body);
    const int n = j["usage"]["completion_tokens"];
    EXPECT_GE(n, 5);
    EXPECT_LE(n, 15);
    EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
    below += n < 10;
  }
  EXPECT_GT(below, 2);  // lengths vary across prompts
  const json ign = json::parse(
      Post(server->port(), "/v1/completions", R"({"prompt":"prompt 1","max_tokens":100,"ignore_eos":true})").body);
  EXPECT_EQ(ign["usage"]["completion_tokens"], 100);
  EXPECT_EQ(ign["choices"][0]["finish_reason"], "length");
  const json min = json::parse(
      Post(server->port(), "/v1/completions", R"({"prompt":"prompt 1","max_tokens":100,"min_tokens":40})").body);
  EXPECT_EQ(min["usage"]["completion_tokens"], 40);
  EXPECT_EQ(min["choices"][0]["finish_reason"], "stop");
}

TEST_F(ApiTest, KeepAliveAndPipelining) {
  auto c = ProbeConnection::Connect("127.0.0.1", port_);
  ASSERT_TRUE(c.ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c->SendRaw(FormatPost("/v1/completions", R"({"prompt":"a","max_tokens":2,"stream":true})")).ok());
    auto r = c->ReadReply(5 * kNanosPerSecond);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->complete);
    EXPECT_TRUE(EndsWithDone(*r));
  }
  // Three requests in one write: three responses, in order.
  std::string three = FormatGet("/health") + FormatPost("/v1/completions", R"({"prompt":"a","max_tokens":3})") +
                      FormatGet("/v1/models");
  ASSERT_TRUE(c->SendRaw(three).ok());
  auto a = c->ReadReply(5 * kNanosPerSecond);
  auto b = c->ReadReply(5 * kNanosPerSecond);
  auto m = c->ReadReply(5 * kNanosPerSecond);
  ASSERT_TRUE(a.ok() && b.ok() && m.ok());
  EXPECT_EQ(a->status, 200);
  EXPECT_EQ(json::parse(b->body)["usage"]["completion_tokens"], 3);
  EXPECT_EQ(json::parse(m->body)["data"][0]["id"], "test-model");
}

TEST_F(ApiTest, Http10StreamIsCloseDelimited) {
  const std::string body = R"({"prompt":"a","max_tokens":3,"stream":true})";
  const HttpReply r = Exchange(port_, "POST /v1/completions HTTP/1.0\r\nContent-Length: " +
                                          std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers.count("transfer-encoding"), 0u);
  EXPECT_TRUE(r.complete);
  EXPECT_TRUE(EndsWithDone(r));
  EXPECT_EQ(CountTextTokens(StreamText(r)), 3);
}

TEST_F(ApiTest, ExpectContinue) {
  auto c = ProbeConnection::Connect("127.0.0.1", port_);
  ASSERT_TRUE(c.ok());
  const std::string body = R"({"prompt":"a","max_tokens":2})";
  ASSERT_TRUE(c->SendRaw("POST /v1/completions HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\n\r\n")
                  .ok());
  char buf[64] = {};
  ASSERT_GT(recv(c->fd(), buf, sizeof(buf) - 1, 0), 0);
  EXPECT_EQ(std::string(buf), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(c->SendRaw(body).ok());
  auto r = c->ReadReply(5 * kNanosPerSecond);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200);
}

TEST_F(ApiTest, ModelsAndHealth) {
  const HttpReply m = Exchange(port_, FormatGet("/v1/models"));
  const json j = json::parse(m.body);
  EXPECT_EQ(j["object"], "list");
  EXPECT_EQ(j["data"][0]["max_model_len"], 4096);
  const HttpReply h = Exchange(port_, FormatGet("/health"));
  EXPECT_EQ(h.status, 200);
}

}  // namespace
}  // namespace frontier::serve::testing
