// The engines' native dialects (SGLang /generate, TGI /generate_stream,
// TensorRT-LLM's Triton generate_stream) against the scripted server speaking
// each one's wire format (testing/native_wire.h): the client's stamps against
// the server's emission times, token counts from the dialect's own fields,
// error events in the server's words, cancellation; then `frontier bench
// --backend X` end to end.
//
// What is asserted holds on a loaded machine: exact counts and texts, and
// causality against the server's stamps (every content event stamped after
// the server wrote it, TTFT at least the script's first-token delay), never a
// wall-clock bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "client_test_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier {
namespace {

using nlohmann::json;

struct Backend {
  const char* name;
  const char* endpoint;
  bool one_token_per_event;  // TGI and Triton: the script's multi-token events are not theirs
  bool counts_reported;      // the dialect gives a count (SGLang, TGI), else counted from events
};

const Backend kSglang{"sglang", "/generate", false, true};
const Backend kTgi{"tgi", "/generate_stream", true, true};
const Backend kTrtllm{"trtllm", "/v2/models/ensemble/generate_stream", true, false};

Script KnownSchedule() {  // first token after 30 ms, then every 5 ms, every 5th event 3 tokens (SGLang)
  Script s;
  s.ttft = 30 * kMs;
  s.interval = 5 * kMs;
  s.events = 12;
  s.tokens_pattern = {1, 1, 1, 1, 3};
  return s;
}

ClientOptions Options(const ScriptedServer& server, const Backend& b) {
  ClientOptions o;
  o.base_url = server.base_url();
  o.backend = b.name;
  o.endpoint = b.endpoint;
  o.model = "ensemble";
  return o;
}

// Sends text prompts (TGI and Triton take no token ids).
std::vector<RequestRecord> RunText(const ClientOptions& o, int n, int32_t max_tokens, int32_t cancel_after = 0) {
  auto c = StreamClient::Create(o);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  if (!c.ok()) return {};
  std::vector<RequestRecord> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    client::StreamRequest r;
    r.id = i;
    r.prompt_text = "The capital of France is a city of many bridges and some rivers";
    r.max_tokens = max_tokens;
    r.cancel_after_tokens = cancel_after;
    (*c)->Start(r);
  }
  int done = 0;
  const Nanos give_up = SteadyClock::MonotonicNow() + 20 * kNanosPerSecond;
  while (done < n && SteadyClock::MonotonicNow() < give_up)
    (*c)->Poll(SteadyClock::MonotonicNow() + 100 * kMs, [&](RequestRecord&& r) {
      out[static_cast<size_t>(r.id)] = std::move(r);
      ++done;
    });
  EXPECT_EQ(done, n) << "requests did not finish in time";
  return out;
}

void CheckAgainstServer(const Backend& b) {
  SCOPED_TRACE(b.name);
  auto server = StartServer([](const testing::RequestInfo&) { return KnownSchedule(); });
  ASSERT_NE(server, nullptr);
  auto recs = RunText(Options(*server, b), 3, 64);
  const int expected_tokens = b.one_token_per_event ? 12 : 16;  // 12 events; SGLang's 5th and 10th carry 3
  for (const auto& r : recs) {
    ASSERT_TRUE(r.ok) << r.failure << ": " << r.failure_detail;
    testing::ServedRequest sr;
    ASSERT_TRUE(server->Find("frontier-" + std::to_string(r.id), &sr));
    EXPECT_EQ(sr.request.path, b.endpoint);
    ASSERT_EQ(r.events.size(), sr.emissions.size());
    ASSERT_EQ(r.events.size(), 12u);
    for (size_t i = 0; i < r.events.size(); ++i) {
      EXPECT_EQ(r.events[i].tokens, sr.emissions[i].tokens) << "event " << i;
      EXPECT_GT(r.events[i].t_ns, sr.emissions[i].t_ns) << "stamped before the server wrote it";
    }
    EXPECT_EQ(r.output_tokens, expected_tokens);
    EXPECT_EQ(r.usage_reported, b.counts_reported);
    // TTFT: at least the script's delay; the server's own first write is the reference.
    EXPECT_GE(r.first_token_ns - r.sent_ns, 30 * kMs);
    EXPECT_LE(r.sent_ns, sr.received_ns);
    // ITL against the server's gaps: the client cannot see a gap before the server made it end.
    EXPECT_GE(r.events.back().t_ns, sr.emissions.back().t_ns);
  }
}

TEST(NativeBackendsTest, SglangStampsAndCountsMatchTheServer) { CheckAgainstServer(kSglang); }
TEST(NativeBackendsTest, TgiStampsAndCountsMatchTheServer) { CheckAgainstServer(kTgi); }
TEST(NativeBackendsTest, TrtllmStampsAndCountsMatchTheServer) { CheckAgainstServer(kTrtllm); }

TEST(NativeBackendsTest, RequestBodiesAreTheDialects) {
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s = KnownSchedule();
    s.ttft = s.interval = kMs;
    s.events = 2;
    return s;
  });
  for (const Backend& b : {kSglang, kTgi, kTrtllm}) RunText(Options(*server, b), 1, 5);
  auto served = server->Served();
  ASSERT_EQ(served.size(), 3u);
  std::map<std::string, json> body;
  for (const auto& s : served) body[s.request.path] = json::parse(s.request.body);
  EXPECT_EQ(body["/generate"]["sampling_params"]["max_new_tokens"], 5);
  EXPECT_EQ(body["/generate"]["stream"], true);
  EXPECT_EQ(body["/generate_stream"]["parameters"]["max_new_tokens"], 5);
  EXPECT_EQ(body["/generate_stream"]["parameters"]["details"], true);
  EXPECT_EQ(body["/v2/models/ensemble/generate_stream"]["max_tokens"], 5);
  EXPECT_EQ(body["/v2/models/ensemble/generate_stream"]["text_input"].get<std::string>().rfind("The capital", 0), 0u);
  // SGLang takes token ids as they are.
  ClientOptions o = Options(*server, kSglang);
  auto recs = RunRequests(o, 1, 1, 4);
  EXPECT_TRUE(recs[0].ok) << recs[0].failure_detail;
  EXPECT_EQ(recs[0].prompt_tokens, 8);  // meta_info.prompt_tokens: the 8 ids sent
}

TEST(NativeBackendsTest, FallbackCountsEventsAndSaysSo) {
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s = KnownSchedule();
    s.ttft = s.interval = kMs;
    s.usage_continuous = false;  // SGLang without meta_info
    s.usage_final = false;       // TGI without details.generated_tokens
    return s;
  });
  for (const Backend& b : {kSglang, kTgi}) {
    auto recs = RunText(Options(*server, b), 1, 64);
    EXPECT_TRUE(recs[0].ok) << b.name << ": " << recs[0].failure_detail;
    EXPECT_FALSE(recs[0].usage_reported) << b.name;
    EXPECT_EQ(recs[0].output_tokens, 12) << b.name;  // one per event: SGLang's 3-token events undercount
  }
}

TEST(NativeBackendsTest, ErrorEventsKeepTheServersWords) {
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s = KnownSchedule();
    s.ttft = s.interval = kMs;
    s.fault = Fault::kErrorEvent;
    s.fault_after = 2;
    return s;
  });
  const std::map<std::string, std::string> want = {
      {"sglang", "error event in the stream: engine died"},
      {"tgi", "error event in the stream: Request failed during generation: Server error: engine died (generation)"},
      {"trtllm", "error event in the stream: engine died"}};
  for (const Backend& b : {kSglang, kTgi, kTrtllm}) {
    auto recs = RunText(Options(*server, b), 1, 64);
    EXPECT_FALSE(recs[0].ok) << b.name;
    EXPECT_EQ(recs[0].failure, "http_status") << b.name;
    EXPECT_EQ(recs[0].failure_detail, want.at(b.name));
    EXPECT_EQ(recs[0].events.size(), 2u) << b.name;
  }
}

TEST(NativeBackendsTest, CancelledMidStreamTheServerSeesTheClientLeave) {
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s = KnownSchedule();
    s.ttft = s.interval = 2 * kMs;
    s.events = 50;
    return s;
  });
  for (const Backend& b : {kSglang, kTgi, kTrtllm}) {
    auto recs = RunText(Options(*server, b), 2, 64, /*cancel_after=*/3);
    for (const auto& r : recs) {
      EXPECT_TRUE(r.cancelled) << b.name << ": " << r.failure << " " << r.failure_detail;
      EXPECT_EQ(r.failure, failure::kCancelled);
      EXPECT_EQ(r.events.size(), 3u) << b.name;
      EXPECT_EQ(r.output_tokens, 3) << b.name;
    }
  }
  for (const auto& s : server->Served()) EXPECT_FALSE(s.completed) << s.request.path;
}

TEST(NativeBackendsTest, KeptTextIsTheAnswerAMultiTurnSessionCarries) {
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s = KnownSchedule();
    s.ttft = s.interval = kMs;
    s.events = 5;
    return s;
  });
  for (const Backend& b : {kSglang, kTgi, kTrtllm}) {
    auto c = StreamClient::Create(Options(*server, b));
    ASSERT_TRUE(c.ok());
    client::StreamRequest r;
    r.id = 1;
    r.prompt_text = "hello";
    r.max_tokens = 64;
    r.keep_text = true;
    (*c)->Start(r);
    RequestRecord rec;
    const Nanos give_up = SteadyClock::MonotonicNow() + 20 * kNanosPerSecond;
    while ((*c)->InFlight() > 0 && SteadyClock::MonotonicNow() < give_up)
      (*c)->Poll(SteadyClock::MonotonicNow() + 100 * kMs, [&](RequestRecord&& done) { rec = std::move(done); });
    EXPECT_TRUE(rec.ok) << b.name << ": " << rec.failure_detail;
    // SGLang's running text replaces what was kept (5 events, the 5th of 3 tokens: 7 words);
    // TGI's token texts and Triton's text_output are appended.
    std::string want;
    for (int i = 0; i < (b.one_token_per_event ? 5 : 7); ++i) want += " tok";
    EXPECT_EQ((*c)->TakeText(1), want) << b.name;
  }
}

// `frontier bench --backend X` end to end.
struct BenchRun {
  int rc = -1;
  std::string output;
  json result, first_record;
};

BenchRun Bench(const ScriptedServer& server, const testing_util::ScratchDir& tmp, const std::string& args,
               int output_len = 12) {
  const std::string result = tmp.Path("result.json"), records = tmp.Path("records.jsonl");
  std::error_code ec;
  std::filesystem::remove(result, ec);
  std::filesystem::remove(records, ec);
  BenchRun run;
  std::tie(run.rc, run.output) = testing::RunCommand(
      testing_util::TestPath("FRONTIER_BIN") + " bench --base-url " + server.base_url() +
      " --model ensemble --no-progress --seed 5 --num-prompts 6 --max-concurrency 2 --input-len 24 --output-len " +
      std::to_string(output_len) + " --result-json " + result + " --requests-jsonl " + records + " " + args);
  const std::string text = testing_util::Slurp(result);
  run.result = json::parse(text.empty() ? "{}" : text, nullptr, false);
  std::ifstream in(records);
  std::string line;
  if (std::getline(in, line)) run.first_record = json::parse(line, nullptr, false);
  return run;
}

TEST(NativeBackendsCliTest, BenchRunsEachBackend) {
  testing_util::ScratchDir tmp("native_backends");
  auto server = StartServer([](const testing::RequestInfo&) {
    Script s = KnownSchedule();
    s.ttft = 10 * kMs;
    s.interval = kMs;
    return s;
  });
  for (const Backend& b : {kSglang, kTgi, kTrtllm}) {
    SCOPED_TRACE(b.name);
    BenchRun run = Bench(*server, tmp, std::string("--backend ") + b.name + " --prompt-format text");
    ASSERT_EQ(run.rc, 0) << run.output;
    EXPECT_EQ(run.result["completed"], 6);
    EXPECT_EQ(run.result["failed"], 0);
    EXPECT_EQ(run.result["backend"], b.name);
    EXPECT_EQ(run.result["total_output_tokens"], 6 * (b.one_token_per_event ? 12 : 16));
    EXPECT_GE(run.result["mean_ttft_ms"].get<double>(), 10.0);
    EXPECT_EQ(run.result["frontier"]["effective_settings"]["endpoint"], b.endpoint);
    EXPECT_FALSE(run.result["frontier"]["effective_settings"]["token_counts"].get<std::string>().empty());
    EXPECT_EQ(run.first_record["usage_reported"], b.counts_reported);
    // The script's truth: first token 10 ms after the request, then an event every 1 ms.
    std::printf("%-7s mean TTFT %.2f ms (script 10), mean ICL %.3f ms (script 1), mean ITL %.3f ms, "
                "mean TPOT %.3f ms\n",
                b.name, run.result["mean_ttft_ms"].get<double>(), run.result.value("mean_icl_ms", -1.0),
                run.result["mean_itl_ms"].get<double>(), run.result["mean_tpot_ms"].get<double>());
  }
  // SGLang with token ids (the default random prompts).
  BenchRun ids = Bench(*server, tmp, "--backend sglang");
  ASSERT_EQ(ids.rc, 0) << ids.output;
  EXPECT_EQ(ids.result["total_input_tokens"], 6 * 24);
  const auto served = server->Served();
  EXPECT_EQ(json::parse(served.back().request.body)["input_ids"].size(), 24u);
}

TEST(NativeBackendsCliTest, ErrorsAndCancelsAreCounted) {
  testing_util::ScratchDir tmp("native_backends");
  auto server = StartServer([](const testing::RequestInfo& info) {
    Script s = KnownSchedule();
    s.ttft = s.interval = kMs;
    s.events = 40;
    if (info.path == "/generate_stream") {
      s.fault = Fault::kErrorEvent;
      s.fault_after = 1;
    }
    return s;
  });
  BenchRun err = Bench(*server, tmp, "--backend tgi --prompt-format text");
  EXPECT_EQ(err.result["failed"], 6) << err.output;
  EXPECT_EQ(err.first_record["failure_detail"],
            "error event in the stream: Request failed during generation: Server error: engine died (generation)");
  BenchRun cancel = Bench(*server, tmp, "--backend trtllm --prompt-format text --cancel-fraction 1 "
                                        "--cancel-after-tokens 4", /*output_len=*/40);
  EXPECT_EQ(cancel.result["cancelled"], 6) << cancel.output;  // (exit status 1: none completed)
  EXPECT_EQ(cancel.result["failed"], 0);
  EXPECT_EQ(cancel.first_record["output_tokens"], 4);
}

TEST(NativeBackendsCliTest, WrongCombinationsAreOneLineUsageErrors) {
  for (const char* args : {"--backend tgi", "--backend trtllm", "--backend sglang --endpoint /generate_stream",
                           "--endpoint /generate", "--backend tgi --endpoint /v1/completions",
                           "--backend trtllm --endpoint /v2/models/m/generate"}) {
    auto [rc, out] = testing::RunCommand(testing_util::TestPath("FRONTIER_BIN") + " bench --model m " + args);
    EXPECT_EQ(rc, 2) << args;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << ": " << out;
    EXPECT_EQ(out.rfind("frontier bench: ", 0), 0u) << out;
  }
  auto [rc, out] = testing::RunCommand(testing_util::TestPath("FRONTIER_BIN") + " bench --model m --backend tgi");
  EXPECT_NE(out.find("--backend tgi takes text prompts"), std::string::npos) << out;
  EXPECT_NE(out.find("--prompt-format text"), std::string::npos) << out;
}

}  // namespace
}  // namespace frontier
