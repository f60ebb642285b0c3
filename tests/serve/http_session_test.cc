// The load core over HTTP against `frontier serve`: growing multi-turn
// sessions carry the answers the server really streamed, and cancelled
// requests end after exactly K tokens (or at T) with the connection closed,
// which the server notices and counts. The server's traces (record_traces)
// are the truth: the request bodies it received, the text it sent and when.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <thread>

#include "loadgen/http_target.h"
#include "loadgen/runner.h"
#include "loadgen/session_runner.h"
#include "metrics/summary.h"
#include "serve_test_util.h"
#include "workload/generators.h"

namespace frontier::serve::testing {
namespace {

constexpr Nanos kMs = kNanosPerMilli;

std::unique_ptr<loadgen::HttpTarget> Target(const Server& server) {
  client::ClientOptions o;
  o.base_url = server.address();
  o.model = "test-model";
  auto t = loadgen::HttpTarget::Create(o);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(*t) : nullptr;
}

// The server's traces once it has `n`, in admission order (the server adds a
// trace just after a response's last byte, or when it notices the client left).
std::vector<RequestTrace> WaitTraces(Server& server, size_t n) {
  std::vector<RequestTrace> all;
  const Nanos give_up = SteadyClock::MonotonicNow() + 30 * kNanosPerSecond;
  while (all.size() < n && SteadyClock::MonotonicNow() < give_up) {
    for (auto& t : server.TakeTraces()) all.push_back(std::move(t));
    if (all.size() < n) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(all.size(), n) << "the server did not trace every request";
  std::sort(all.begin(), all.end(), [](const RequestTrace& a, const RequestTrace& b) { return a.id < b.id; });
  return all;
}

workload::SessionWorkload TextSessions(int64_t sessions, int32_t turns, int32_t output_len) {
  workload::MultiTurnOptions m;
  m.num_sessions = sessions;
  m.turns = turns;
  m.system_prompt_len = 4;
  m.message_len = 6;
  m.output_len = output_len;
  m.format = workload::PromptFormat::kText;
  m.seed = 7;
  auto w = workload::MakeMultiTurn(m);
  EXPECT_TRUE(w.ok()) << w.status().message();
  for (auto& s : w->sessions)
    for (auto& t : s.turns) t.think_ns = 0;
  return *w;
}

TEST(HttpSessions, EachTurnCarriesThePreviousPromptAndTheAnswerTheServerStreamed) {
  auto server = StartFixed(/*ttft_ms=*/2, /*itl_ms=*/1);
  ASSERT_TRUE(server);
  auto target = Target(*server);
  ASSERT_TRUE(target);
  const workload::SessionWorkload w = TextSessions(/*sessions=*/2, /*turns=*/3, /*output_len=*/5);
  workload::LoadOptions load;
  load.num_prompts = 2;
  load.max_concurrency = 1;  // one session at a time: the server's admission order is the issue order
  auto run = loadgen::RunSessions(*target, w, load, loadgen::RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->requests.size(), 6u);
  for (const auto& r : run->requests) {
    EXPECT_TRUE(r.ok) << r.failure << ": " << r.failure_detail;
  }
  for (const auto& s : run->sessions) EXPECT_TRUE(s.ok) << s.end_reason;
  EXPECT_EQ(run->effective_settings.at("session_answers_missing"), "0");

  const std::vector<RequestTrace> traces = WaitTraces(*server, 6);
  ASSERT_EQ(traces.size(), 6u);
  for (size_t i = 0; i < traces.size(); ++i) {
    const RequestRecord& r = run->requests[i];
    const workload::Turn& turn = w.sessions[static_cast<size_t>(r.session_id)].turns[static_cast<size_t>(r.turn)];
    const std::string prompt = json::parse(traces[i].body)["prompt"].get<std::string>();
    // The server's own answer: 5 words, each " word".
    EXPECT_EQ(traces[i].completion_tokens, 5);
    EXPECT_EQ(std::count(traces[i].text.begin(), traces[i].text.end(), ' '), 5) << traces[i].text;
    if (r.turn == 0) {
      EXPECT_EQ(prompt, turn.request.prompt_text);
      continue;
    }
    const std::string before = json::parse(traces[i - 1].body)["prompt"].get<std::string>();
    EXPECT_EQ(prompt, before + traces[i - 1].text + "\n" + turn.request.prompt_text) << "request " << i;
    // The answer differs from turn to turn (it is seeded by the prompt), so the
    // check above could not pass with a stale or empty answer.
    EXPECT_NE(traces[i].text, traces[i - 1].text);
    // input_len: the earlier prompt, the answer's tokens and the new message.
    EXPECT_EQ(r.prompt_tokens, CountTextTokens(prompt)) << "the server's usage";
  }
}

TEST(HttpSessions, GrowingTokenIdSessionsAreRefusedOverHttp) {
  auto server = StartFixed(1, 1);
  ASSERT_TRUE(server);
  auto target = Target(*server);
  ASSERT_TRUE(target);
  workload::MultiTurnOptions m;
  m.num_sessions = 1;
  m.turns = 2;
  auto w = workload::MakeMultiTurn(m);  // token ids
  ASSERT_TRUE(w.ok());
  workload::LoadOptions load;
  load.num_prompts = 1;
  auto run = loadgen::RunSessions(*target, *w, load, loadgen::RunOptions{}, nullptr, nullptr);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(run.status().message().find("--prompt-format text"), std::string::npos) << run.status().message();
  EXPECT_TRUE(server->TakeTraces().empty()) << "nothing was sent";
}

TEST(HttpCancel, AfterKTokensTheClientHasExactlyKAndTheServerStops) {
  // 100 tokens 20 ms apart: a request left alone takes about 2 s, so a server
  // that did not stop would trace all 100 tokens.
  auto server = StartFixed(/*ttft_ms=*/5, /*itl_ms=*/20);
  ASSERT_TRUE(server);
  auto target = Target(*server);
  ASSERT_TRUE(target);
  std::vector<workload::RequestSpec> specs(6);
  for (size_t i = 0; i < specs.size(); ++i) {
    specs[i].id = static_cast<int64_t>(i);
    specs[i].prompt_token_ids = {101, 102, 103, 104};
    specs[i].input_len = 4;
    specs[i].output_len = 100;
  }
  specs[1].cancel_after_tokens = 3;
  specs[3].cancel_after_tokens = 3;
  specs[5].cancel_after_ns = 100 * kMs;  // at T: the load core's Cancel
  workload::LoadOptions load;
  load.num_prompts = 6;
  auto run = loadgen::RunLoad(*target, specs, load, loadgen::RunOptions{}, nullptr, nullptr);
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->requests.size(), 6u);

  for (size_t i : {size_t{1}, size_t{3}}) {
    const RequestRecord& r = run->requests[i];
    EXPECT_TRUE(r.cancelled) << i;
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.failure, failure::kCancelled);
    ASSERT_EQ(r.events.size(), 3u) << "exactly K token events, nothing read after the K-th";
    int32_t tokens = 0;
    for (const auto& e : r.events) tokens += e.tokens;
    EXPECT_EQ(tokens, 3);
    EXPECT_EQ(r.output_tokens, 3);
  }
  {
    const RequestRecord& r = run->requests[5];
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(r.failure, failure::kCancelled);
    EXPECT_GE(r.end_ns - r.sent_ns, 100 * kMs) << "not before T";
    EXPECT_LT(r.output_tokens, 100);
  }
  for (size_t i : {size_t{0}, size_t{2}, size_t{4}}) {
    EXPECT_TRUE(run->requests[i].ok) << run->requests[i].failure;
    EXPECT_EQ(run->requests[i].output_tokens, 100);
  }

  // Counted apart, as the simulator's: neither completed nor failed.
  metrics::SummaryOptions so;
  const metrics::Summary s = metrics::Summarize(*run, so);
  EXPECT_EQ(s.cancelled, 3);
  EXPECT_EQ(s.completed, 3);
  EXPECT_EQ(s.failed, 0);

  // The server saw each cancelled client leave and stopped its generation.
  const std::vector<RequestTrace> traces = WaitTraces(*server, 6);
  ASSERT_EQ(traces.size(), 6u);
  int aborted = 0;
  for (const RequestTrace& t : traces) {
    if (t.finish_reason != "abort") {
      EXPECT_EQ(t.completion_tokens, 100);
      continue;
    }
    ++aborted;
    EXPECT_LT(t.completion_tokens, 100) << "the server went on generating after the client left";
  }
  EXPECT_EQ(aborted, 3);
  // The snapshot is published at the end of the loop's pass that traced the abort.
  const Nanos give_up = SteadyClock::MonotonicNow() + 10 * kNanosPerSecond;
  while (server->Snapshot().client_disconnects < 3 && SteadyClock::MonotonicNow() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(server->Snapshot().client_disconnects, 3u);
}

}  // namespace
}  // namespace frontier::serve::testing
