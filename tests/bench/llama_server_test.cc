// `frontier bench` against a real llama.cpp server (llama_server.h): the
// OpenAI completions and chat streams, token-id and text prompts, the
// vocabulary the server names, its Prometheus metrics, its error events,
// cancellation, runs ended by duration and multi-turn sessions.
//
// What is asserted is known truth: the tokens asked for (the server honours
// max_tokens with EOS ignored), the server's own usage, counters and per
// request `timings`, and causality between the server's timings and the
// client's stamps (a request's TTFT is at least the server's prompt time; its
// end-to-end latency at least prompt plus generation time), which holds on
// any machine however loaded. No wall-clock bound. Skipped, saying why, where
// the server or the model is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <thread>
#include <tuple>
#include <nlohmann/json.hpp>

#include "llama_server.h"
#include "tests/cli_test_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier {
namespace {

using nlohmann::json;
using testing_llama::LlamaServer;

LlamaServer::Options Opts(int ctx, int parallel, bool metrics = false, std::vector<std::string> extra = {}) {
  LlamaServer::Options o;
  o.ctx = ctx;
  o.parallel = parallel;
  o.metrics = metrics;
  o.extra = std::move(extra);
  return o;
}

// Starts `server` with Opts(...); skips the test, saying why, without a server to run.
#define START_LLAMA(server, ...)                    \
  LlamaServer server(Opts(__VA_ARGS__));            \
  if (!server.found()) GTEST_SKIP() << server.why(); \
  ASSERT_TRUE(server.ok()) << server.why()

struct BenchRun {
  int rc = -1;
  std::string output;
  json result;
  std::vector<json> records;  // by id
};

// Runs `frontier bench` against `server` with `args`; reads the result JSON
// and the records (sorted by id).
BenchRun Bench(const LlamaServer& server, const testing_util::ScratchDir& tmp, const std::string& args) {
  const std::string result = tmp.Path("result.json"), records = tmp.Path("records.jsonl");
  std::error_code ec;
  std::filesystem::remove(result, ec);
  std::filesystem::remove(records, ec);
  BenchRun run;
  std::tie(run.rc, run.output) =
      testing::RunCommand(testing_util::TestPath("FRONTIER_BIN") + " bench --base-url " + server.base_url() +
                          " --model tiny --no-progress --seed 7 --result-json " + result + " --requests-jsonl " +
                          records + " " + args);
  const std::string text = testing_util::Slurp(result);
  run.result = json::parse(text.empty() ? "{}" : text, nullptr, false);
  std::ifstream in(records);
  std::string line;
  while (std::getline(in, line)) run.records.push_back(json::parse(line));
  std::sort(run.records.begin(), run.records.end(),
            [](const json& a, const json& b) { return a["id"].get<int64_t>() < b["id"].get<int64_t>(); });
  return run;
}

double Ms(const json& r, const char* from, const char* to) {
  return static_cast<double>(r[to].get<int64_t>() - r[from].get<int64_t>()) / 1e6;
}

// The tokens a record's events carried.
int EventTokens(const json& r) {
  int n = 0;
  for (const auto& e : r["events"]) n += e[1].get<int>();
  return n;
}

// llama.cpp streams a chunk per token, except that it holds back a token
// that is part of a UTF-8 character and sends its text with the next: so
// at most one event per token, and nearly all tokens have their own.
void ExpectOneEventPerToken(const json& r, int tokens) {
  const int events = static_cast<int>(r["events"].size());
  EXPECT_LE(events, tokens) << r.dump();
  EXPECT_GE(events, tokens - tokens / 4) << r.dump();
}

double Median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Checks every ok record's server timings against the client's stamps
// (causality) and counts; prints the medians side by side.
void CompareWithServerTimings(const std::vector<json>& records, const std::string& what) {
  std::vector<double> ttft, tpot, e2e, s_prompt, s_tpot, s_total;
  for (const auto& r : records) {
    if (!r["ok"].get<bool>()) continue;
    ASSERT_TRUE(r.contains("server_timings")) << r.dump();
    const json& t = r["server_timings"];
    const double prompt_ms = t["prompt_ms"].get<double>(), predicted_ms = t["predicted_ms"].get<double>();
    const int n = r["output_tokens"].get<int>();
    EXPECT_EQ(t["predicted_n"].get<int>(), n) << r.dump();
    EXPECT_GE(t["prompt_n"].get<int>(), 1);
    EXPECT_LE(t["prompt_n"].get<int>(), r["prompt_tokens"].get<int>()) << "evaluated more than the prompt";
    // The server received the request after the client sent it, and wrote the
    // first token after its prompt was processed; the last byte came after
    // the last token was generated.
    const double client_ttft = Ms(r, "sent_ns", "first_token_ns"), client_e2e = Ms(r, "sent_ns", "end_ns");
    EXPECT_GE(client_ttft, prompt_ms) << r.dump();
    EXPECT_GE(client_e2e, prompt_ms + predicted_ms) << r.dump();
    ttft.push_back(client_ttft);
    e2e.push_back(client_e2e);
    s_prompt.push_back(prompt_ms);
    s_total.push_back(prompt_ms + predicted_ms);
    if (n > 1) {
      tpot.push_back((client_e2e - client_ttft) / (n - 1));
      s_tpot.push_back(predicted_ms / (n - 1));  // the first token is ready when predicted_ms starts
    }
  }
  ASSERT_FALSE(ttft.empty());
  std::printf("%s, %zu requests, medians: TTFT frontier %.3f ms vs server prompt_ms %.3f ms; "
              "TPOT frontier %.3f ms vs server predicted_ms/(n-1) %.3f ms; E2E frontier %.3f ms vs server "
              "prompt_ms+predicted_ms %.3f ms\n",
              what.c_str(), ttft.size(), Median(ttft), Median(s_prompt), Median(tpot), Median(s_tpot), Median(e2e),
              Median(s_total));
}

TEST(LlamaServerTest, CompletionsWithTokenIdsFromTheServersVocabulary) {
  START_LLAMA(server, 2048, 2);
  testing_util::ScratchDir tmp("llama_completions");
  // --vocab-size above the model's: ids past 32000 make the server refuse the
  // prompt, so every request succeeding shows the server's n_vocab was used.
  BenchRun run = Bench(server, tmp, "--num-prompts 8 --max-concurrency 2 --input-len 32 --output-len 24 "
                                    "--vocab-size 50000");
  ASSERT_EQ(run.rc, 0) << run.output;
  const json& eff = run.result["frontier"]["effective_settings"];
  EXPECT_EQ(eff["vocab_size"], "32000");
  EXPECT_EQ(eff["vocab_size_source"], "server /v1/models meta.n_vocab");
  EXPECT_EQ(run.result["completed"], 8) << run.output;
  EXPECT_EQ(run.result["failed"], 0);
  EXPECT_EQ(run.result["total_input_tokens"], 8 * 32);
  EXPECT_EQ(run.result["total_output_tokens"], 8 * 24);
  EXPECT_EQ(run.result["usage_from_server"], true);
  ASSERT_EQ(run.records.size(), 8u);
  for (const auto& r : run.records) {
    EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
    EXPECT_TRUE(r["usage_reported"].get<bool>());
    EXPECT_EQ(r["prompt_tokens"], 32);  // the server's usage: token ids are sent as they are
    EXPECT_EQ(r["output_tokens"], 24);
    ExpectOneEventPerToken(r, 24);
  }
  CompareWithServerTimings(run.records, "llama-server /v1/completions, token ids 32 in, 24 out, concurrency 2");
  EXPECT_TRUE(server.Healthy());
}

TEST(LlamaServerTest, NativeCompletionDialect) {
  START_LLAMA(server, 2048, 2);
  testing_util::ScratchDir tmp("llama_native");
  BenchRun run = Bench(server, tmp, "--backend llamacpp --num-prompts 6 --max-concurrency 2 --input-len 32 "
                                    "--output-len 24 --vocab-size 50000");
  ASSERT_EQ(run.rc, 0) << run.output;
  EXPECT_EQ(run.result["backend"], "llamacpp");
  EXPECT_EQ(run.result["frontier"]["endpoint"], "/completion");
  EXPECT_EQ(run.result["frontier"]["effective_settings"]["vocab_size"], "32000");
  EXPECT_EQ(run.result["completed"], 6) << run.output;
  EXPECT_EQ(run.result["total_output_tokens"], 6 * 24);
  EXPECT_EQ(run.result["total_input_tokens"], 6 * 32);
  ASSERT_EQ(run.records.size(), 6u);
  for (const auto& r : run.records) {
    EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
    EXPECT_TRUE(r["usage_reported"].get<bool>());  // tokens_predicted / tokens_evaluated
    EXPECT_EQ(r["prompt_tokens"], 32);
    EXPECT_EQ(r["output_tokens"], 24);
    // Every chunk gives the running count: the events' tokens add up exactly,
    // a token held back (part of a UTF-8 character) counted with the next.
    EXPECT_EQ(EventTokens(r), 24);
    ExpectOneEventPerToken(r, 24);
  }
  CompareWithServerTimings(run.records, "llama-server /completion (native), token ids 32 in, 24 out, concurrency 2");
  // Text prompts, and a client that leaves mid-stream.
  BenchRun text = Bench(server, tmp, "--backend llamacpp --prompt-format text --num-prompts 6 --max-concurrency 2 "
                                     "--input-len 32 --output-len 200 --cancel-fraction 0.5 --cancel-after-tokens 3");
  ASSERT_EQ(text.rc, 0) << text.output;
  ASSERT_EQ(text.records.size(), 6u) << text.output;
  int cancelled = 0;
  for (const auto& r : text.records) {
    if (r.value("cancelled", false)) {
      ++cancelled;
      EXPECT_GE(EventTokens(r), 3) << r.dump();  // the client left at its 3rd token
      EXPECT_LE(r["events"].size(), 3u) << r.dump();
    } else {
      EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
      EXPECT_EQ(r["output_tokens"], 200);
      EXPECT_NEAR(r["prompt_tokens"].get<int>(), 32 + 1, 4) << r.dump();
    }
  }
  EXPECT_EQ(text.result["cancelled"], cancelled);
  EXPECT_EQ(text.result["completed"], 6 - cancelled);
  EXPECT_TRUE(server.Healthy());
}

TEST(LlamaServerTest, ChatAndCompletionsWithTextPrompts) {
  START_LLAMA(server, 2048, 2);
  testing_util::ScratchDir tmp("llama_chat");
  // Chat: the server must stop at the tokens asked for (it reads max_tokens,
  // not max_completion_tokens), and count them in its usage.
  BenchRun chat = Bench(server, tmp, "--endpoint /v1/chat/completions --prompt-format text --num-prompts 4 "
                                     "--max-concurrency 2 --input-len 32 --output-len 12");
  ASSERT_EQ(chat.rc, 0) << chat.output;
  EXPECT_EQ(chat.result["completed"], 4) << chat.output;
  EXPECT_EQ(chat.result["total_output_tokens"], 4 * 12);
  ASSERT_EQ(chat.records.size(), 4u);
  for (const auto& r : chat.records) {
    EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
    EXPECT_TRUE(r["usage_reported"].get<bool>());
    EXPECT_EQ(r["output_tokens"], 12) << r.dump();
    ExpectOneEventPerToken(r, 12);
    EXPECT_GT(r["prompt_tokens"].get<int>(), 32);  // the message and the chat template around it
  }
  CompareWithServerTimings(chat.records, "llama-server /v1/chat/completions, text");
  // Completions with text: the server's count is the text's length in
  // tokens, the BOS it adds, give or take where the words split.
  BenchRun text = Bench(server, tmp, "--prompt-format text --num-prompts 4 --max-concurrency 2 "
                                     "--input-len 64 --output-len 8");
  ASSERT_EQ(text.rc, 0) << text.output;
  EXPECT_EQ(text.result["completed"], 4) << text.output;
  int64_t prompt_sum = 0;
  for (const auto& r : text.records) {
    EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
    EXPECT_EQ(r["output_tokens"], 8);
    EXPECT_NEAR(r["prompt_tokens"].get<int>(), 64 + 1, 8) << r.dump();
    prompt_sum += r["prompt_tokens"].get<int>();
  }
  EXPECT_EQ(text.result["total_input_tokens"], prompt_sum);
}

// --tokenizer with the served model's own vocabulary: text prompts that the
// server counts as exactly --prefix-len + --input-len tokens (its usage.prompt_tokens is that
// plus the BOS it adds), where the word-list text above is only near it.
TEST(LlamaServerTest, TokenizerPromptsArriveAtExactLength) {
  START_LLAMA(server, 4096, 2);
  testing_util::ScratchDir tmp("llama_tokenizer");
  BenchRun run = Bench(server, tmp, "--tokenizer " + server.model() + " --num-prompts 6 --max-concurrency 2 "
                                    "--input-len 150 --prefix-len 30 --output-len 2");
  ASSERT_EQ(run.rc, 0) << run.output;
  EXPECT_EQ(run.result["completed"], 6) << run.output;
  ASSERT_EQ(run.records.size(), 6u);
  for (const auto& r : run.records) {
    EXPECT_TRUE(r["usage_reported"].get<bool>()) << r.dump();
    EXPECT_EQ(r["prompt_tokens"], 30 + 150 + 1) << r.dump();  // prefix + drawn length (as vLLM) + BOS
  }
  const json& eff = run.result["frontier"]["effective_settings"];
  EXPECT_EQ(eff.value("tokenizer_exact_prompts", ""), "6/6 re-encode to input_len; max deviation 0 tokens") << eff.dump();
  EXPECT_EQ(eff.value("prompt_format", ""), "text");
  // A dataset whose prompts are not made to a count refuses the flag, naming it.
  BenchRun bad = Bench(server, tmp, "--tokenizer " + server.model() + " --dataset shared-prefix");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.output.find("--tokenizer needs --dataset random"), std::string::npos) << bad.output;
}

// The sweep of that bench's --as-plan sends the same exact-length text
// prompts: the plan's workload names the tokenizer (made absolute), and the
// stored point counts the server's prompt tokens as bench's does.
TEST(LlamaServerTest, ASweepsTokenizerPromptsArriveAtExactLengthAsBenchs) {
  START_LLAMA(server, 4096, 2);
  testing_util::ScratchDir tmp("llama_tokenizer_plan");
  const std::string bin = testing_util::TestPath("FRONTIER_BIN"), plan = tmp.Path("plan.yaml");
  auto [rc, out] = testing::RunCommand(bin + " bench --base-url " + server.base_url() + " --model tiny --tokenizer " +
                                       server.model() + " --num-prompts 8 --max-concurrency 2 --input-len 150 "
                                       "--output-len 2 --as-plan > " + plan);
  ASSERT_EQ(rc, 0) << out;
  const std::string text = testing_util::Slurp(plan);
  EXPECT_NE(text.find("tokenizer: " + server.model()), std::string::npos) << text;
  std::tie(rc, out) = testing::RunCommand(bin + " sweep " + plan + " --db " + tmp.Path("s.db"));
  ASSERT_EQ(rc, 0) << out;
  std::tie(rc, out) = testing::RunCommand(bin + " db export --db " + tmp.Path("s.db"));
  ASSERT_EQ(rc, 0) << out;
  const json exported = json::parse(out, nullptr, false);
  ASSERT_TRUE(exported.is_object()) << out;
  const json& point = exported["runs"][0]["points"][0];
  EXPECT_EQ(point["completed"], 8) << point.dump();
  EXPECT_EQ(point["total_input_tokens"], 8 * (150 + 1)) << point.dump();  // the drawn length + BOS, by the server
  EXPECT_EQ(point["settings"].value("tokenizer_exact_prompts", ""), "8/8 re-encode to input_len; max deviation 0 tokens")
      << point["settings"].dump();
}

TEST(LlamaServerTest, ScrapedMetricsCountWhatWasSent) {
  START_LLAMA(server, 2048, 2, true);
  testing_util::ScratchDir tmp("llama_metrics");
  // cache_prompt off: every prompt token is evaluated, and counted, once.
  BenchRun run = Bench(server, tmp, "--num-prompts 6 --max-concurrency 2 --input-len 24 --output-len 10 "
                                    "--scrape-metrics --scrape-interval 0.2 --extra-body '{\"cache_prompt\":false}'");
  ASSERT_EQ(run.rc, 0) << run.output;
  EXPECT_EQ(run.result["completed"], 6) << run.output;
  const json& sm = run.result["server_metrics"];
  EXPECT_EQ(sm["kind"], "llama.cpp");
  EXPECT_EQ(sm["source"], server.base_url() + "/metrics");
  EXPECT_GE(sm["scrapes"].get<int>(), 2);
  EXPECT_EQ(sm["scrape_failures"], 0);
  const json& samples = sm["samples"];
  auto delta = [&](const char* name) {
    const json& v = samples.at(name);
    return v.back().get<double>() - v.front().get<double>();
  };
  // The first sample is taken before the first request, the last after the last.
  EXPECT_DOUBLE_EQ(delta("llamacpp:prompt_tokens_total"), 6 * 24);
  EXPECT_DOUBLE_EQ(delta("llamacpp:tokens_predicted_total"), 6 * 10);
  EXPECT_DOUBLE_EQ(samples.at("llamacpp:requests_processing").back().get<double>(), 0);
}

TEST(LlamaServerTest, ErrorEventsKeepTheServersWords) {
  // A 64-token context that may not shift: a longer prompt is refused, and a
  // generation that fills the context is stopped mid-stream.
  START_LLAMA(server, 64, 1, false, {"--no-context-shift"});
  testing_util::ScratchDir tmp("llama_errors");
  BenchRun refused = Bench(server, tmp, "--num-prompts 3 --max-concurrency 1 --input-len 100 --output-len 4");
  EXPECT_EQ(refused.result["completed"], 0) << refused.output;
  EXPECT_EQ(refused.result["failed"], 3);
  ASSERT_EQ(refused.records.size(), 3u) << refused.output;
  for (const auto& r : refused.records) {
    EXPECT_FALSE(r["ok"].get<bool>());
    EXPECT_EQ(r["failure"], "http_status");
    EXPECT_EQ(r["http_status"], 200);  // the error comes as an event in a 200 stream
    EXPECT_NE(r["failure_detail"].get<std::string>().find("exceeds the available context size"), std::string::npos)
        << r.dump();
    EXPECT_EQ(r["events"].size(), 0u);
  }
  // The native dialect streams the same error.
  BenchRun native = Bench(server, tmp, "--backend llamacpp --num-prompts 1 --input-len 100 --output-len 4");
  ASSERT_EQ(native.records.size(), 1u) << native.output;
  EXPECT_EQ(native.records[0]["failure"], "http_status");
  EXPECT_NE(native.records[0]["failure_detail"].get<std::string>().find("exceeds the available context size"),
            std::string::npos)
      << native.records[0].dump();
  BenchRun cut = Bench(server, tmp, "--num-prompts 2 --max-concurrency 1 --input-len 8 --output-len 100");
  EXPECT_EQ(cut.result["failed"], 2) << cut.output;
  ASSERT_EQ(cut.records.size(), 2u) << cut.output;
  for (const auto& r : cut.records) {
    EXPECT_EQ(r["failure"], "http_status");
    EXPECT_NE(r["failure_detail"].get<std::string>().find("context shift is disabled"), std::string::npos) << r.dump();
    // The tokens streamed before the error are kept: the context's 64 less
    // the prompt's 8 (no usage comes: counted from the events).
    ExpectOneEventPerToken(r, 64 - 8);
    EXPECT_EQ(r["output_tokens"].get<int>(), static_cast<int>(r["events"].size()));
  }
  EXPECT_TRUE(server.Healthy());
}

TEST(LlamaServerTest, CancelledAndDurationEndedRequestsAreCountedAndTheServerRecovers) {
  START_LLAMA(server, 4096, 2, true);
  testing_util::ScratchDir tmp("llama_cancel");
  BenchRun run = Bench(server, tmp, "--num-prompts 8 --max-concurrency 2 --input-len 16 --output-len 400 "
                                    "--cancel-fraction 0.5 --cancel-after-tokens 4");
  ASSERT_EQ(run.rc, 0) << run.output;
  ASSERT_EQ(run.records.size(), 8u) << run.output;
  int cancelled = 0;
  for (const auto& r : run.records) {
    if (r.value("cancelled", false)) {
      ++cancelled;
      EXPECT_EQ(r["failure"], "cancelled");
      EXPECT_EQ(r["events"].size(), 4u) << r.dump();  // the client left after its 4th token
    } else {
      EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
      EXPECT_EQ(r["output_tokens"], 400);
    }
  }
  EXPECT_GT(cancelled, 0);
  EXPECT_LT(cancelled, 8);
  EXPECT_EQ(run.result["cancelled"], cancelled);
  EXPECT_EQ(run.result["completed"], 8 - cancelled);
  EXPECT_EQ(run.result["failed"], 0);
  // The server noticed the clients leave: its slots free up and it serves on.
  bool idle = false;
  for (int i = 0; i < 600 && !idle; ++i) {
    auto m = server.Get("/metrics");
    idle = m.ok() && m->find("llamacpp:requests_processing 0") != std::string::npos;
    if (!idle) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(idle) << "llama-server still processing after the run";
  EXPECT_TRUE(server.Healthy());
  // A run ended by --duration: no request is issued after it, those in flight
  // (one per slot of the closed loop) finish and are counted. The send stamp
  // itself may fall past the duration on a busy machine (the decision and the
  // write are two moments), so the check is causal: in a closed loop of 2 the
  // k-th request (k >= 2) waits for the (k-1)-th completion, and that
  // completion must have been seen before the duration ran out.
  BenchRun timed = Bench(server, tmp, "--num-prompts 1000 --duration 0.2 --max-concurrency 2 --input-len 16 "
                                      "--output-len 300");
  ASSERT_EQ(timed.rc, 0) << timed.output;
  int64_t completed = timed.result["completed"].get<int64_t>();
  EXPECT_GE(completed, 2);
  EXPECT_EQ(static_cast<int64_t>(timed.records.size()), completed);
  std::vector<int64_t> sent, ends;
  for (const auto& r : timed.records) {
    EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
    EXPECT_EQ(r["output_tokens"], 300);
    sent.push_back(r["sent_ns"].get<int64_t>());
    ends.push_back(r["end_ns"].get<int64_t>());
  }
  std::sort(sent.begin(), sent.end());
  std::sort(ends.begin(), ends.end());
  for (size_t k = 2; k < sent.size(); ++k) {
    EXPECT_GE(sent[k], ends[k - 2]) << "request " << k << " sent before a slot was free";
    EXPECT_LT(ends[k - 2], int64_t{200'000'000}) << "request " << k << " was issued after --duration ended";
  }
  EXPECT_TRUE(server.Healthy());
}

TEST(LlamaServerTest, MultiTurnSessionsCarryTheAnswersOverText) {
  START_LLAMA(server, 4096, 2);
  testing_util::ScratchDir tmp("llama_sessions");
  BenchRun run = Bench(server, tmp, "--dataset multi-turn --mt-turns 3 --mt-message-len 16 --output-len 16 "
                                    "--prompt-format text --num-prompts 2 --max-concurrency 2");
  ASSERT_EQ(run.rc, 0) << run.output;
  EXPECT_EQ(run.result["completed"], 6) << run.output;
  EXPECT_EQ(run.result["sessions_completed"], 2);
  EXPECT_EQ(run.result["frontier"]["effective_settings"]["session_answers_missing"], "0");
  std::map<std::pair<int64_t, int>, json> turns;
  for (const auto& r : run.records) {
    EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
    EXPECT_EQ(r["output_tokens"], 16);
    turns[{r["session_id"].get<int64_t>(), r["turn"].get<int>()}] = r;
  }
  ASSERT_EQ(turns.size(), 6u);
  for (int64_t s = 0; s < 2; ++s) {
    for (int k = 1; k < 3; ++k) {
      const json& prev = turns[{s, k - 1}];
      const json& cur = turns[{s, k}];
      // Turn k is turn k-1's prompt, its answer, "\n" and a new message of
      // 16 tokens: by the server's count it grows by the message and the
      // answer's 16 tokens re-tokenized as text (which may join some), give
      // or take a few where words meet. Without the answer it would grow by 17.
      const int grew = cur["prompt_tokens"].get<int>() - prev["prompt_tokens"].get<int>();
      EXPECT_GE(grew, 16 + 1 + 4) << "session " << s << " turn " << k;
      EXPECT_LE(grew, 16 + 1 + 16 + 4) << "session " << s << " turn " << k;
      EXPECT_GE(cur["sent_ns"].get<int64_t>(), prev["end_ns"].get<int64_t>());
    }
  }
}

}  // namespace
}  // namespace frontier
