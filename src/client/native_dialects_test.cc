// The engines' native dialects: backends and endpoints, request bodies, one
// event of each as the engines' documents give it, and whole streams through
// ResponseStream (token counts, ends, errors, cancellation).
#include "client/native_dialects.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "client/backend.h"
#include "client/response_stream.h"
#include "client/sse.h"

namespace frontier::client {
namespace {

using nlohmann::json;

TEST(BackendTest, DefaultEndpoints) {
  EXPECT_EQ(*DefaultEndpoint("openai", "m"), "/v1/completions");
  EXPECT_EQ(*DefaultEndpoint("sglang", "m"), "/generate");
  EXPECT_EQ(*DefaultEndpoint("tgi", "m"), "/generate_stream");
  EXPECT_EQ(*DefaultEndpoint("trtllm", "ensemble"), "/v2/models/ensemble/generate_stream");
  EXPECT_EQ(*DefaultEndpoint("llamacpp", "m"), "/completion");
  EXPECT_NE(DefaultEndpoint("trtllm", "a/b").status().message().find("--backend trtllm"), std::string::npos);
  EXPECT_NE(DefaultEndpoint("vllm", "m").status().message().find("--backend must be openai, sglang"),
            std::string::npos);
}

TEST(BackendTest, EachBackendSpeaksItsEndpoints) {
  EXPECT_EQ(*ResolveDialect("openai", "/v1/completions"), Dialect::kCompletions);
  EXPECT_EQ(*ResolveDialect("openai", "/v1/chat/completions"), Dialect::kChat);
  EXPECT_EQ(*ResolveDialect("sglang", "/generate"), Dialect::kSglang);
  EXPECT_EQ(*ResolveDialect("tgi", "/generate_stream"), Dialect::kTgi);
  EXPECT_EQ(*ResolveDialect("trtllm", "/v2/models/ensemble/generate_stream"), Dialect::kTrtllm);
  EXPECT_EQ(*ResolveDialect("trtllm", "/v2/models/ensemble/versions/3/generate_stream"), Dialect::kTrtllm);
  EXPECT_EQ(*ResolveDialect("llamacpp", "/completion"), Dialect::kLlamaCpp);
}

TEST(BackendTest, WrongCombinationsSayTheFix) {
  auto msg = [](std::string_view b, std::string_view e) { return ResolveDialect(b, e).status().message(); };
  EXPECT_EQ(msg("openai", "/generate"),
            "--endpoint /generate is SGLang's native /generate API: add --backend sglang");
  EXPECT_EQ(msg("openai", "/generate_stream"),
            "--endpoint /generate_stream is TGI's /generate_stream API: add --backend tgi");
  EXPECT_NE(msg("openai", "/v2/models/m/generate_stream").find("add --backend trtllm"), std::string::npos);
  EXPECT_EQ(msg("openai", "/completion"),
            "--endpoint /completion is llama.cpp's native /completion API: add --backend llamacpp");
  EXPECT_EQ(msg("sglang", "/v1/completions"),
            "--backend sglang speaks SGLang's native /generate, not --endpoint /v1/completions (use --backend openai "
            "for it)");
  EXPECT_NE(msg("tgi", "/generate").find("use --backend sglang"), std::string::npos);
  // Triton's non-streaming /generate and malformed model paths are not endpoints frontier streams from.
  EXPECT_NE(msg("trtllm", "/v2/models/m/generate").find("/v2/models/{model}/generate_stream"), std::string::npos);
  EXPECT_NE(msg("trtllm", "/v2/models//generate_stream").find("--endpoint must be"), std::string::npos);
  EXPECT_NE(msg("trtllm", "/v2/models/m/versions/generate_stream").find("--endpoint must be"), std::string::npos);
  // Plans name their keys.
  BackendFieldNames plan{"backend", "endpoint"};
  EXPECT_EQ(ResolveDialect("tgi", "/completion", plan).status().message(),
            "backend tgi speaks TGI's /generate_stream, not endpoint /completion (use backend llamacpp for it)");
  for (const char* e : {"/generate", "/generate_stream", "/v2/models/m/generate_stream"})
    EXPECT_EQ(msg("openai", e).find('\n'), std::string::npos);
}

TEST(BackendTest, TextOnlyDialectsAndCountSources) {
  EXPECT_TRUE(NeedsTextPrompts(Dialect::kTgi));
  EXPECT_TRUE(NeedsTextPrompts(Dialect::kTrtllm));
  EXPECT_TRUE(NeedsTextPrompts(Dialect::kChat));
  EXPECT_FALSE(NeedsTextPrompts(Dialect::kSglang));
  EXPECT_FALSE(NeedsTextPrompts(Dialect::kLlamaCpp));
  EXPECT_STREQ(TokenCountSource(Dialect::kTrtllm), "one per non-empty text_output event (no count in the stream)");
}

json Body(Dialect d, std::vector<int32_t> ids, std::string text, std::string extra = "", bool ignore_eos = true) {
  BodyOptions o;
  o.dialect = d;
  o.model = "m";
  o.extra_body = std::move(extra);
  o.ignore_eos = ignore_eos;
  auto b = BuildBody(o, ids, text, 7);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? json::parse(*b) : json();
}

TEST(NativeBodyTest, Sglang) {
  EXPECT_EQ(Body(Dialect::kSglang, {5, 6}, ""),
            json::parse(R"({"input_ids": [5, 6], "stream": true,
                            "sampling_params": {"max_new_tokens": 7, "temperature": 0.0, "ignore_eos": true}})"));
  json t = Body(Dialect::kSglang, {}, "hello", R"({"sampling_params": {"top_p": 0.9}, "rid": "x"})");
  EXPECT_EQ(t["text"], "hello");
  EXPECT_FALSE(t.contains("input_ids"));
  EXPECT_EQ(t["sampling_params"]["max_new_tokens"], 7);  // the extra body adds to the params (merge patch)
  EXPECT_EQ(t["sampling_params"]["top_p"], 0.9);
  EXPECT_EQ(t["rid"], "x");
}

TEST(NativeBodyTest, Tgi) {
  EXPECT_EQ(Body(Dialect::kTgi, {}, "hi"),
            json::parse(R"({"inputs": "hi", "parameters": {"max_new_tokens": 7, "details": true, "do_sample": false}})"));
  BodyOptions o;
  o.dialect = Dialect::kTgi;
  const std::vector<int32_t> ids = {1};
  EXPECT_NE(BuildBody(o, ids, "", 4).status().message().find("add --prompt-format text"), std::string::npos);
}

TEST(NativeBodyTest, Trtllm) {
  EXPECT_EQ(Body(Dialect::kTrtllm, {}, "hi"),
            json::parse(R"({"text_input": "hi", "max_tokens": 7, "stream": true, "min_length": 7})"));
  EXPECT_FALSE(Body(Dialect::kTrtllm, {}, "hi", "", /*ignore_eos=*/false).contains("min_length"));
  EXPECT_EQ(Body(Dialect::kTrtllm, {}, "hi", R"({"min_length": null, "temperature": 0.5})"),
            json::parse(R"({"text_input": "hi", "max_tokens": 7, "stream": true, "temperature": 0.5})"));
  BodyOptions o;
  o.dialect = Dialect::kTrtllm;
  const std::vector<int32_t> ids = {1};
  EXPECT_NE(BuildBody(o, ids, "", 4).status().message().find("--backend trtllm takes text prompts"),
            std::string::npos);
}

Chunk Read(std::string s, Dialect d, std::string* text = nullptr) {
  ChunkReader r;
  Chunk c;
  std::string why;
  s.reserve(s.size() + kSsePadding);
  EXPECT_TRUE(r.Read(s, d, true, &c, &why, text)) << why;
  return c;
}

TEST(NativeChunkTest, SglangEvent) {
  std::string text = "old";
  Chunk c = Read(R"({"text": " a b", "output_ids": [3, 4], "meta_info": {"id": "r1", "finish_reason": null,
                     "prompt_tokens": 12, "completion_tokens": 2, "cached_tokens": 0, "e2e_latency": 0.1}})",
                 Dialect::kSglang, &text);
  EXPECT_TRUE(c.cumulative);
  EXPECT_TRUE(c.has_usage);
  EXPECT_EQ(c.completion_tokens, 2);
  EXPECT_EQ(c.prompt_tokens, 12);
  EXPECT_FALSE(c.finish);
  EXPECT_EQ(text, " a b");  // the running text replaces what was kept
  Chunk last = Read(R"({"text": " a b c", "meta_info": {"finish_reason": {"type": "length", "length": 3},
                        "prompt_tokens": 12, "completion_tokens": 3}})",
                    Dialect::kSglang);
  EXPECT_TRUE(last.finish);
  Chunk err = Read(R"({"error": {"message": "The input (9000 tokens) is longer than the model's context length"}})",
                   Dialect::kSglang);
  EXPECT_TRUE(err.error);
  EXPECT_EQ(err.error_message, "The input (9000 tokens) is longer than the model's context length");
}

TEST(NativeChunkTest, TgiEvents) {
  std::string text;
  Chunk c = Read(R"({"index": 0, "token": {"id": 29871, "text": " Ray", "logprob": -0.5, "special": false},
                     "generated_text": null, "details": null})",
                 Dialect::kTgi, &text);
  EXPECT_TRUE(c.content);
  EXPECT_FALSE(c.finish);
  EXPECT_FALSE(c.has_usage);
  EXPECT_EQ(text, " Ray");
  Chunk last = Read(R"({"index": 1, "token": {"id": 2, "text": "</s>", "logprob": -0.1, "special": true},
                        "generated_text": " Ray", "details": {"finish_reason": "eos_token", "generated_tokens": 2,
                        "seed": null}})",
                    Dialect::kTgi, &text);
  EXPECT_TRUE(last.content);  // EOS is a generated token, not text
  EXPECT_TRUE(last.finish);
  EXPECT_TRUE(last.usage_is_total);
  EXPECT_EQ(last.completion_tokens, 2);
  EXPECT_EQ(text, " Ray");
  Chunk err = Read(R"({"error": "Request failed during generation: Server error: CUDA out of memory",
                       "error_type": "generation"})",
                   Dialect::kTgi);
  EXPECT_TRUE(err.error);
  EXPECT_EQ(err.error_message, "Request failed during generation: Server error: CUDA out of memory");
  EXPECT_EQ(err.error_type, "generation");
}

TEST(NativeChunkTest, TritonEvents) {
  std::string text;
  Chunk c = Read(R"({"model_name": "ensemble", "model_version": "1", "text_output": " Hello",
                     "cum_log_probs": 0.0, "output_log_probs": [0.0]})",
                 Dialect::kTrtllm, &text);
  EXPECT_TRUE(c.content);
  EXPECT_FALSE(c.has_usage);
  EXPECT_EQ(c.model, "ensemble");
  EXPECT_EQ(text, " Hello");
  EXPECT_FALSE(Read(R"({"model_name": "ensemble", "model_version": "1", "text_output": ""})", Dialect::kTrtllm).content);
  Chunk err = Read(R"({"error": "in ensemble 'ensemble', Encountered error for requestId 7: prompt too long"})",
                   Dialect::kTrtllm);
  EXPECT_TRUE(err.error);
  EXPECT_NE(err.error_message.find("prompt too long"), std::string::npos);
}

// A whole response through ResponseStream, fed in one read per string.
struct Fed {
  RequestRecord rec;
  bool kept_going = true;
};

Fed Feed(Dialect d, const std::vector<std::string>& reads, bool whole = true, int32_t cancel_after = 0,
         int32_t max_tokens = 16) {
  StreamContext ctx;
  ctx.dialect = d;
  ResponseStream rs;
  StreamSpec spec;
  spec.max_tokens = max_tokens;
  spec.cancel_after_tokens = cancel_after;
  spec.body_end_finishes = d == Dialect::kTrtllm;
  rs.Begin(spec, 1000);
  rs.OnStatus(200);
  Fed f;
  Nanos t = 2000;
  for (const auto& r : reads) {
    std::string padded = r + std::string(kSsePadding, ' ');
    f.kept_going = rs.OnBody(std::string_view(padded).substr(0, r.size()), t, ctx);
    t += 1000;
    if (!f.kept_going) break;
  }
  f.rec = rs.Finish(t, nullptr, whole ? nullptr : failure::kClosedMidStream, whole ? "" : "connection closed");
  return f;
}

std::string SglangEvent(int64_t done, bool last, bool meta = true) {
  std::string text;
  for (int64_t i = 0; i < done; ++i) text += " w";
  json j = {{"text", text}};
  if (meta)
    j["meta_info"] = {{"finish_reason", last ? json{{"type", "length"}} : json(nullptr)},
                      {"prompt_tokens", 9},
                      {"completion_tokens", done}};
  return "data: " + j.dump() + "\n\n";
}

TEST(NativeStreamTest, SglangCountsTheGrowthOfItsRunningCount) {
  // 1 token, then 3 at once, then an event that repeats the count (no token), then 1 more and [DONE].
  Fed f = Feed(Dialect::kSglang, {SglangEvent(1, false), SglangEvent(4, false), SglangEvent(4, false),
                                  SglangEvent(5, true) + "data: [DONE]\n\n"});
  EXPECT_TRUE(f.rec.ok) << f.rec.failure_detail;
  EXPECT_TRUE(f.rec.usage_reported);
  EXPECT_EQ(f.rec.output_tokens, 5);
  EXPECT_EQ(f.rec.prompt_tokens, 9);
  ASSERT_EQ(f.rec.events.size(), 3u);
  EXPECT_EQ(f.rec.events[0].tokens, 1);
  EXPECT_EQ(f.rec.events[1].tokens, 3);
  EXPECT_EQ(f.rec.events[2].tokens, 1);
  EXPECT_EQ(f.rec.events[2].t_ns, 5000);  // the fourth read: the repeat was not a token
  EXPECT_EQ(f.rec.first_token_ns, 2000);
}

TEST(NativeStreamTest, AUsageNoRequestCouldReachIsNotTrusted) {
  // INT64_MAX completion tokens for a request of max_tokens 16: counted by its events instead.
  const std::string huge = "data: " +
                           json{{"text", " w w"},
                                {"meta_info",
                                 {{"finish_reason", json{{"type", "length"}}},
                                  {"prompt_tokens", 9},
                                  {"completion_tokens", INT64_MAX}}}}
                               .dump() +
                           "\n\n";
  Fed f = Feed(Dialect::kSglang, {SglangEvent(1, false), huge + "data: [DONE]\n\n"});
  EXPECT_TRUE(f.rec.ok) << f.rec.failure_detail;
  EXPECT_FALSE(f.rec.usage_reported);
  EXPECT_EQ(f.rec.output_tokens, 2);
  EXPECT_EQ(f.rec.usage_conflict.find("usage.completion_tokens"), 0u) << f.rec.usage_conflict;
  // 131 over two content events: more than 65 tokens an event can carry.
  Fed above = Feed(Dialect::kSglang, {SglangEvent(1, false), SglangEvent(131, true) + "data: [DONE]\n\n"});
  EXPECT_FALSE(above.rec.usage_reported);
  EXPECT_NE(above.rec.usage_conflict.find("is outside [0, 130]"), std::string::npos) << above.rec.usage_conflict;
  EXPECT_EQ(above.rec.output_tokens, 2);
  // 130 is within it: a server that ignored max_tokens 16 still generated them.
  Fed most = Feed(Dialect::kSglang, {SglangEvent(1, false), SglangEvent(130, true) + "data: [DONE]\n\n"});
  EXPECT_TRUE(most.rec.usage_reported) << most.rec.usage_conflict;
  EXPECT_EQ(most.rec.output_tokens, 130);
}

TEST(NativeStreamTest, SglangWithoutMetaInfoCountsTextGrowth) {
  Fed f = Feed(Dialect::kSglang, {SglangEvent(1, false, false), SglangEvent(1, false, false),
                                  SglangEvent(2, false, false) + "data: [DONE]\n\n"});
  EXPECT_TRUE(f.rec.ok) << f.rec.failure_detail;
  EXPECT_FALSE(f.rec.usage_reported);  // counted from events: the record says so
  EXPECT_EQ(f.rec.output_tokens, 2);
  EXPECT_EQ(f.rec.events.size(), 2u);
}

TEST(NativeStreamTest, SglangErrorKeepsTheServersWordsAndCancelLeaves) {
  Fed err = Feed(Dialect::kSglang, {SglangEvent(1, false) + "data: {\"error\": {\"message\": \"engine died\"}}\n\n"
                                                            "data: [DONE]\n\n"});
  EXPECT_FALSE(err.rec.ok);
  EXPECT_EQ(err.rec.failure, failure::kHttpStatus);
  EXPECT_EQ(err.rec.failure_detail, "error event in the stream: engine died");
  Fed cancel = Feed(Dialect::kSglang, {SglangEvent(1, false), SglangEvent(3, false), SglangEvent(5, false)},
                    /*whole=*/false, /*cancel_after=*/2);
  EXPECT_TRUE(cancel.rec.cancelled);
  EXPECT_FALSE(cancel.kept_going);
  EXPECT_EQ(cancel.rec.output_tokens, 3);  // the events received: 1 + 2
  EXPECT_EQ(cancel.rec.events.size(), 2u);
}

std::string TgiEvent(int index, bool last, int64_t generated = -1) {
  json j = {{"index", index},
            {"token", {{"id", 7}, {"text", " w"}, {"logprob", -1.0}, {"special", false}}},
            {"generated_text", nullptr},
            {"details", nullptr}};
  if (last) {
    j["generated_text"] = "w";
    j["details"] = {{"finish_reason", "length"}, {"seed", nullptr}};
    if (generated >= 0) j["details"]["generated_tokens"] = generated;
  }
  return "data:" + j.dump() + "\n\n";
}

TEST(NativeStreamTest, TgiOneTokenPerEventAndTheTotalFromDetails) {
  Fed f = Feed(Dialect::kTgi, {TgiEvent(0, false), TgiEvent(1, false) + TgiEvent(2, true, 3)});
  EXPECT_TRUE(f.rec.ok) << f.rec.failure_detail;
  EXPECT_TRUE(f.rec.usage_reported);
  EXPECT_EQ(f.rec.output_tokens, 3);
  ASSERT_EQ(f.rec.events.size(), 3u);
  for (const auto& e : f.rec.events) EXPECT_EQ(e.tokens, 1);
  EXPECT_EQ(f.rec.events[2].t_ns, 3000);  // two events in the second read share its stamp
  // A total below the events received is not trusted.
  Fed low = Feed(Dialect::kTgi, {TgiEvent(0, false) + TgiEvent(1, true, 1)});
  EXPECT_FALSE(low.rec.usage_reported);
  EXPECT_EQ(low.rec.output_tokens, 2);
  EXPECT_FALSE(low.rec.usage_conflict.empty());
  // Cut before its details: closed mid-stream.
  Fed cut = Feed(Dialect::kTgi, {TgiEvent(0, false)}, /*whole=*/true);
  EXPECT_EQ(cut.rec.failure, failure::kClosedMidStream);
}

TEST(NativeStreamTest, TgiErrorNamesItsType) {
  Fed f = Feed(Dialect::kTgi, {TgiEvent(0, false) +
                               "data:{\"error\":\"Input validation error: `inputs` must have less than 4096 tokens\","
                               "\"error_type\":\"validation\"}\n\n"});
  EXPECT_EQ(f.rec.failure, failure::kHttpStatus);
  EXPECT_EQ(f.rec.failure_detail,
            "error event in the stream: Input validation error: `inputs` must have less than 4096 tokens (validation)");
}

std::string TritonEvent(const std::string& text) {
  return "data: " + json{{"model_name", "ensemble"}, {"model_version", "1"}, {"text_output", text}}.dump() + "\n\n";
}

TEST(NativeStreamTest, TritonCountsNonEmptyEventsAndEndsWithTheBody) {
  Fed f = Feed(Dialect::kTrtllm, {TritonEvent(" a"), TritonEvent(""), TritonEvent(" b") + TritonEvent(" c")});
  EXPECT_TRUE(f.rec.ok) << f.rec.failure_detail;
  EXPECT_FALSE(f.rec.usage_reported);
  EXPECT_EQ(f.rec.output_tokens, 3);
  EXPECT_EQ(f.rec.events.size(), 3u);
  // The same events on a connection that broke: not a whole body, so not finished.
  Fed cut = Feed(Dialect::kTrtllm, {TritonEvent(" a")}, /*whole=*/false);
  EXPECT_EQ(cut.rec.failure, failure::kClosedMidStream);
  Fed err = Feed(Dialect::kTrtllm, {TritonEvent(" a") + "data: {\"error\": \"Encountered error: too long\"}\n\n"});
  EXPECT_EQ(err.rec.failure_detail, "error event in the stream: Encountered error: too long");
}

}  // namespace
}  // namespace frontier::client
