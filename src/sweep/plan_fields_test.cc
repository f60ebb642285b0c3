// Plan parsing of the parts in plan_fields.cc: the search block, workloads'
// prompt formats and systems' backends.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sweep/plan.h"
#include "sweep/sessions.h"

namespace frontier::sweep {
namespace {

const char* kSearch = R"(name: s
systems:
  - {name: a, hardware: h200, gpus: 8, sim: {model: llama-2-70b, tp: 8}}
workloads:
  - {name: w, input_len: 128, output_len: 64}
scenario: {slo: [ttft_p99:450]}
)";

// The error of kSearch followed by `tail`.
std::string SearchErrorFor(const std::string& tail) {
  auto p = ParsePlan(std::string(kSearch) + tail, "s.yaml");
  EXPECT_FALSE(p.ok()) << "accepted: " << tail;
  return p.ok() ? "" : p.status().message();
}

TEST(PlanSearch, ParsesTheSearchBlockAndItsAxis) {
  auto p = ParsePlan(std::string(kSearch) +
                         "search: {start: 4, growth: 3, tolerance: 0.1, max_trials: 9, min_value: 2, max_value: 64,\n"
                         "         saturation_stop: false}\n"
                         "load: {num_prompts: 200, warmup: 5}\n",
                     "s.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_TRUE(p->search.has_value());
  const loadgen::SearchRequest& r = p->search->request;
  EXPECT_DOUBLE_EQ(r.start, 4);
  EXPECT_DOUBLE_EQ(r.growth, 3);
  EXPECT_DOUBLE_EQ(r.tolerance, 0.1);
  EXPECT_EQ(r.max_trials, 9);
  EXPECT_DOUBLE_EQ(*r.min_value, 2);
  EXPECT_DOUBLE_EQ(*r.max_value, 64);
  EXPECT_FALSE(r.saturation_stop);
  EXPECT_EQ(p->search->line, 7);
  EXPECT_EQ(p->load.kind, store::LoadKind::kConcurrency);  // an SLO's search goes over concurrency unless told
  EXPECT_TRUE(ExpandMatrix(*p).empty());
  const workload::LoadOptions base = SearchBaseLoad(*p, p->workloads[0]);
  EXPECT_EQ(base.num_prompts, 200);
  EXPECT_EQ(base.warmup, 5);
  // Without load.num_prompts each trial sends `frontier search`'s default.
  auto q = ParsePlan(std::string(kSearch) + "search: {over: rate, start: 0.5}\n", "s.yaml");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->load.kind, store::LoadKind::kRequestRate);
  EXPECT_EQ(SearchBaseLoad(*q, q->workloads[0]).num_prompts, kDefaultSearchPrompts);
  // A named scenario searches its rate.
  std::string server = kSearch;
  server.replace(server.find("{slo: [ttft_p99:450]}"), 21, "interactive");
  auto s = ParsePlan(server + "search: {}\n", "s.yaml");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->load.kind, store::LoadKind::kRequestRate);
}

// The checks are `frontier search`'s (loadgen::ApplySearchRequest), said with
// the plan's field names and the line of the field at fault.
TEST(PlanSearch, BadSearchFieldsAreNamedWithFileLineAndField) {
  EXPECT_EQ(SearchErrorFor("search: {over: sideways}\n"),
            "s.yaml:7: search.over: must be rate or concurrency, got 'sideways'");
  EXPECT_EQ(SearchErrorFor("search: {start: 0}\n"),
            "s.yaml:7: search.start: 0 must lie in [1, 65536] (search.min_value, search.max_value)");
  EXPECT_EQ(SearchErrorFor("search: {start: 2.5}\n"),
            "s.yaml:7: search.start: must be a whole number of requests on the concurrency axis, got 2.5");
  EXPECT_EQ(SearchErrorFor("search:\n  growth: 1\n"), "s.yaml:8: search.growth: must be above 1, got 1");
  EXPECT_EQ(SearchErrorFor("search: {max_trials: 0}\n"), "s.yaml:7: search.max_trials: must be in [1, 10000], got 0");
  EXPECT_EQ(SearchErrorFor("search: {tolerance: 1.5}\n"), "s.yaml:7: search.tolerance: must be in (0, 1), got 1.5");
  EXPECT_EQ(SearchErrorFor("search: {min_value: 8, max_value: 4}\n"),
            "s.yaml:7: search.max_value: 4 must not be below search.min_value 8");
  EXPECT_EQ(SearchErrorFor("search: {start: fast}\n"), "s.yaml:7: search.start: must be a finite number, got 'fast'");
  EXPECT_EQ(SearchErrorFor("search: [1, 2]\n"), "s.yaml:7: search: must be a map of fields");
  EXPECT_EQ(SearchErrorFor("search: {tolerence: 0.1}\n"),
            "s.yaml:7: search.tolerence: unknown field; allowed: growth, max_trials, max_value, min_value, over, "
            "saturation_stop, start, tolerance");
  // The load grid is the search's to pick; what it varies cannot be fixed.
  EXPECT_EQ(SearchErrorFor("search: {over: rate}\nload: {request_rate: [1, 2]}\n"),
            "s.yaml:8: load.request_rate: is a load grid, and `search:` picks each trial's load itself: remove it "
            "(search.start, min_value and max_value bound the loads tried)");
  EXPECT_EQ(SearchErrorFor("search: {}\nload: {max_concurrency: 8}\n"),
            "s.yaml:8: load.max_concurrency: is what search.over concurrency varies: leave it out");
  EXPECT_EQ(SearchErrorFor("search: {}\nrepetitions: 2\n"),
            "s.yaml:8: repetitions: must be 1 with `search:` (a search runs its trials once; repeat the sweep under "
            "another seed to sample its spread)");
  EXPECT_EQ(SearchErrorFor("search: {}\nexecutor: slurm\n"),
            "s.yaml:8: executor: slurm runs load grids; a plan with `search:` runs with local");
  // What a trial must meet comes from the scenario.
  std::string none = kSearch;
  none.erase(none.find("scenario:"));
  auto p = ParsePlan(none + "search: {}\n", "s.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message().rfind("s.yaml:6: search: needs `scenario:` to say what a trial must meet", 0), 0u)
      << p.status().message();
  for (const auto& [scenario, error] :
       {std::pair{"interactive", "s.yaml:7: search.over: must be rate under a scenario (it searches the Poisson "
                                 "rate), got 'concurrency'"},
        {"offline", "s.yaml:6: scenario: offline queues everything at once: there is no load to search"}}) {
    std::string named = kSearch;
    named.replace(named.find("{slo: [ttft_p99:450]}"), 21, scenario);
    auto bad = ParsePlan(named + "search: {over: concurrency}\n", "s.yaml");
    ASSERT_FALSE(bad.ok()) << scenario;
    EXPECT_EQ(bad.status().message(), error);
  }
}

TEST(PlanSim, GpuMemoryUtilizationIsTheEnginesFractionAndIsRecorded) {
  const std::string head = "name: m\nsystems:\n  - {name: a, hardware: h200, gpus: 8, sim: {model: llama-2-70b, tp: 8";
  const std::string tail = "}}\nworkloads:\n  - {name: w, input_len: 128, output_len: 64}\nload: {concurrency: [1]}\n";
  auto p = ParsePlan(head + ", gpu_memory_utilization: 0.85" + tail, "m.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_TRUE(p->systems[0].sim->gpu_memory_utilization.has_value());
  EXPECT_DOUBLE_EQ(*p->systems[0].sim->gpu_memory_utilization, 0.85);
  EXPECT_EQ(p->systems[0].Config().at("gpu_memory_utilization"), "0.85");
  auto none = ParsePlan(head + tail, "m.yaml");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->systems[0].sim->gpu_memory_utilization.has_value());
  EXPECT_EQ(none->systems[0].Config().count("gpu_memory_utilization"), 0u);
  for (const char* bad : {"0", "1.5", "-0.2"}) {
    auto b = ParsePlan(head + ", gpu_memory_utilization: " + bad + tail, "m.yaml");
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_NE(b.status().message().find("gpu_memory_utilization"), std::string::npos) << b.status().message();
  }
}

TEST(PlanPromptFormat, RoundTripsIntoThePointsRequests) {
  const std::string plan = R"(name: f
systems:
  - {name: a, hardware: h200, gpus: 1, sim: {model: llama-3.1-8b}}
workloads:
  - {name: text, input_len: 16, output_len: 4, prompt_format: text}
  - {name: ids, input_len: 16, output_len: 4}
  - {name: chat, dataset: multi-turn, mt_turns: 2, mt_message_len: 8, output_len: 4}
load: {concurrency: [1]}
)";
  auto p = ParsePlan(plan, "f.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->workloads[0].prompt_format, "text");
  EXPECT_EQ(p->workloads[1].prompt_format, "");  // unset: the default for where the prompts go
  const std::vector<PointSpec> points = ExpandMatrix(*p);
  ASSERT_EQ(points.size(), 3u);
  auto load = PointLoad(*p, points[0]);
  ASSERT_TRUE(load.ok());
  auto text = PointRequests(*p, points[0], *load);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  ASSERT_FALSE(text->specs.empty());
  EXPECT_FALSE(text->specs[0].prompt_text.empty());
  EXPECT_TRUE(text->specs[0].prompt_token_ids.empty());
  auto ids = PointRequests(*p, points[1], *load);
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids->specs[0].prompt_token_ids.size(), 16u);
  EXPECT_TRUE(ids->specs[0].prompt_text.empty());
  // Multi-turn: token ids on the simulator; text when sent over HTTP (the
  // turns carry the server's answers, which come back as text).
  for (const bool live : {false, true}) {
    auto chat = PointRequests(*p, points[2], *load, nullptr, live);
    ASSERT_TRUE(chat.ok()) << chat.status().ToString();
    ASSERT_TRUE(chat->sessions.has_value());
    const workload::RequestSpec& first = chat->sessions->sessions.at(0).turns.at(0).request;
    EXPECT_EQ(first.prompt_text.empty(), !live) << live;
    EXPECT_EQ(first.prompt_token_ids.empty(), live) << live;
  }
}

TEST(PlanPromptFormat, TokenIdsForMultiTurnOverHttpAndBadValuesAreErrors) {
  const std::string plan = R"(name: f
systems:
  - {name: sim, hardware: h200, gpus: 1, sim: {model: llama-3.1-8b}}
workloads:
  - {name: chat, dataset: multi-turn, mt_turns: 2, prompt_format: token-ids}
load: {concurrency: [1]}
)";
  // On the simulator in virtual time, token ids are what it reads.
  ASSERT_TRUE(ParsePlan(plan, "f.yaml").ok());
  for (const std::string server : {"  - {name: live, hardware: h200, gpus: 1, live: true, sim: {model: llama-3.1-8b}}\n",
                                   "  - {name: live, hardware: h100, base_url: \"http://127.0.0.1:9\", model: m}\n"}) {
    std::string text = plan;
    text.insert(text.find("workloads:"), server);
    auto p = ParsePlan(text, "f.yaml");
    ASSERT_FALSE(p.ok()) << server;
    EXPECT_EQ(p.status().message(),
              "f.yaml:6: workloads[0].prompt_format: token-ids cannot carry a multi-turn session to a server: each "
              "turn resends the server's streamed answer, which arrives as text and cannot be turned back into token "
              "ids without the server's tokenizer; use text (the default there) (system live is measured over HTTP)");
  }
  std::string words = plan;
  words.replace(words.find("token-ids"), 9, "words");
  EXPECT_EQ(ParsePlan(words, "f.yaml").status().message(),
            "f.yaml:5: workloads[0].prompt_format: must be token-ids or text, got 'words'");
  const std::string sharegpt =
      "name: f\nsystems:\n  - {name: a, hardware: h200, gpus: 1, sim: {model: m}}\nworkloads:\n"
      "  - {name: g, dataset: sharegpt, path: x.json, prompt_format: text}\nload: {concurrency: [1]}\n";
  EXPECT_EQ(ParsePlan(sharegpt, "f.yaml").status().message(),
            "f.yaml:5: workloads[0].prompt_format: is not read by dataset sharegpt (docs/workloads.md lists each "
            "dataset's fields)");
}

}  // namespace
}  // namespace frontier::sweep

namespace frontier::sweep {
namespace {

TEST(PlanBackend, ABackendSetsTheEndpointAndTextPrompts) {
  const std::string plan = R"(name: b
systems:
  - {name: sgl, base_url: "http://127.0.0.1:30000", model: m, backend: sglang}
  - {name: trt, base_url: "http://127.0.0.1:8000", model: ensemble, backend: trtllm}
  - {name: tgi, base_url: "http://127.0.0.1:8080", model: m, backend: tgi, endpoint: /generate_stream}
  - {name: old, base_url: "http://127.0.0.1:8081", model: m, endpoint: /completion}
workloads:
  - {name: ids, input_len: 16, output_len: 4}
load: {concurrency: [1]}
)";
  auto p = ParsePlan(plan, "b.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->systems[0].endpoint, "/generate");
  EXPECT_EQ(p->systems[1].endpoint, "/v2/models/ensemble/generate_stream");
  EXPECT_EQ(p->systems[0].Config().at("backend"), "sglang");
  EXPECT_EQ(p->systems[3].backend, "");  // inferred from the endpoint, as before
  EXPECT_FALSE(p->systems[0].NeedsTextPrompts());
  EXPECT_TRUE(p->systems[1].NeedsTextPrompts());
  EXPECT_TRUE(p->systems[2].NeedsTextPrompts());
  // Over HTTP the text-only servers get text; SGLang keeps token ids.
  const std::vector<PointSpec> points = ExpandMatrix(*p);
  ASSERT_EQ(points.size(), 4u);
  auto load = PointLoad(*p, points[0]);
  ASSERT_TRUE(load.ok());
  auto sgl = PointRequests(*p, points[0], *load, nullptr, /*live=*/true);
  auto trt = PointRequests(*p, points[1], *load, nullptr, /*live=*/true);
  ASSERT_TRUE(sgl.ok() && trt.ok());
  EXPECT_EQ(sgl->specs[0].prompt_token_ids.size(), 16u);
  EXPECT_TRUE(trt->specs[0].prompt_token_ids.empty());
  EXPECT_FALSE(trt->specs[0].prompt_text.empty());
}

TEST(PlanBackend, WrongBackendsAreNamedWithTheirKeys) {
  auto error = [](const std::string& system, const std::string& workload = "{name: w, input_len: 8, output_len: 2}") {
    auto p = ParsePlan("name: b\nsystems:\n  - " + system + "\nworkloads:\n  - " + workload +
                           "\nload: {concurrency: [1]}\n",
                       "b.yaml");
    EXPECT_FALSE(p.ok()) << system;
    return p.ok() ? std::string() : p.status().message();
  };
  EXPECT_NE(error("{name: s, base_url: \"http://h:1\", model: m, backend: vllm}")
                .find("systems[0].backend: backend must be openai, sglang, tgi, trtllm or llamacpp, got 'vllm'"),
            std::string::npos);
  EXPECT_NE(error("{name: s, base_url: \"http://h:1\", model: m, backend: tgi, endpoint: /generate}")
                .find("backend tgi speaks TGI's /generate_stream, not endpoint /generate (use backend sglang for it)"),
            std::string::npos);
  EXPECT_NE(error("{name: s, base_url: \"http://h:1\", model: m, backend: tgi}",
                  "{name: w, input_len: 8, output_len: 2, prompt_format: token-ids}")
                .find("workloads[0].prompt_format: token-ids cannot go to system s, whose backend tgi takes text"),
            std::string::npos);
}


// bench's --grace, --duration, --percentiles and --timeslice as plan keys:
// each read with its flag's bounds, each error naming FILE:LINE and the key.
const char* kServerPlan = R"(name: k
systems:
  - {name: s, base_url: "http://127.0.0.1:8000", model: m, grace_s: 0.5}
workloads:
  - {name: w, input_len: 8, output_len: 2}
load:
  concurrency: [2, 4]
  num_prompts: 40
  duration_s: 12.5
percentiles: [50, 75, 99.9]
timeslice_s: 2
)";

// `text` with its first `from` replaced by `to`.
std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// The message of kServerPlan with `from` replaced by `to`.
std::string ServerPlanError(const std::string& from, const std::string& to) {
  auto p = ParsePlan(Replaced(kServerPlan, from, to), "k.yaml");
  EXPECT_FALSE(p.ok()) << "accepted: " << to;
  return p.ok() ? "" : p.status().message();
}

TEST(PlanCommandKeys, GraceDurationPercentilesAndTimesliceAreRead) {
  auto p = ParsePlan(kServerPlan, "k.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->systems[0].target.grace_s, 0.5);
  EXPECT_EQ(p->systems[0].Config().at("grace_s"), "0.5");
  EXPECT_EQ(p->load.duration_s, 12.5);
  EXPECT_EQ(p->percentiles, (std::vector<double>{50, 75, 99.9}));
  EXPECT_EQ(p->timeslice_s, 2);
  // Every point stops at its count or its duration.
  const std::vector<PointSpec> points = ExpandMatrix(*p);
  ASSERT_EQ(points.size(), 2u);
  for (const PointSpec& point : points) {
    auto load = PointLoad(*p, point);
    ASSERT_TRUE(load.ok());
    EXPECT_EQ(load->duration_s, 12.5);
    EXPECT_EQ(load->num_prompts, 40);
  }
  // bench's comma text is a list too.
  p = ParsePlan(Replaced(kServerPlan, "[50, 75, 99.9]", "\"90,99\""), "k.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->percentiles, (std::vector<double>{90, 99}));
  // Not given: the summary's defaults (bench's), no duration, the default grace.
  p = ParsePlan("name: k\nsystems:\n  - {name: s, base_url: \"http://127.0.0.1:8000\", model: m}\n"
                "workloads:\n  - {name: w}\nload: {concurrency: [1]}\n",
                "k.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->percentiles, metrics::SummaryOptions().percentiles);
  EXPECT_EQ(p->timeslice_s, 0);
  EXPECT_FALSE(p->load.duration_s.has_value());
  EXPECT_EQ(p->systems[0].target.grace_s, 5);
  EXPECT_EQ(p->systems[0].Config().count("grace_s"), 0u);
}

TEST(PlanCommandKeys, OutOfBoundsValuesAreNamedWithFileLineAndKey) {
  EXPECT_EQ(ServerPlanError("grace_s: 0.5", "grace_s: -1"),
            "k.yaml:3: systems[0].grace_s: must be a number in [0, 1000000], got -1");
  EXPECT_EQ(ServerPlanError("duration_s: 12.5", "duration_s: 0"),
            "k.yaml:9: load.duration_s: must be a number of seconds in (0, 1e9], got 0");
  EXPECT_EQ(ServerPlanError("duration_s: 12.5", "duration_s: 2e9"),
            "k.yaml:9: load.duration_s: must be a number of seconds in (0, 1e9], got 2000000000");
  EXPECT_EQ(ServerPlanError("duration_s: 12.5", "duration_s: soon"),
            "k.yaml:9: load.duration_s: must be a finite number, got 'soon'");
  EXPECT_EQ(ServerPlanError("[50, 75, 99.9]", "[50, 120]"),
            "k.yaml:10: percentiles: must be at most 100 comma-separated numbers in [0, 100], got '50,120'");
  EXPECT_EQ(ServerPlanError("[50, 75, 99.9]", "[]"), "k.yaml:10: percentiles: must list at least one value");
  EXPECT_EQ(ServerPlanError("[50, 75, 99.9]", "{p: 50}"),
            "k.yaml:10: percentiles: must be at most 100 comma-separated numbers in [0, 100], got 'a map'");
  EXPECT_EQ(ServerPlanError("timeslice_s: 2", "timeslice_s: 90000"),
            "k.yaml:11: timeslice_s: must be 0 (automatic) or a window of 0.001 to 86400 seconds, got 90000");
  EXPECT_EQ(ServerPlanError("timeslice_s: 2", "timeslice_s: 0.0001"),
            "k.yaml:11: timeslice_s: must be 0 (automatic) or a window of 0.001 to 86400 seconds, got 0.0001");
  // grace_s is a client's: not a virtual-time simulated system's.
  EXPECT_NE(ServerPlanError("base_url: \"http://127.0.0.1:8000\", model: m",
                            "hardware: h200, sim: {model: llama-3.1-8b}")
                .find("k.yaml:3: systems[0].grace_s: applies to a system measured over HTTP"),
            std::string::npos);
}

TEST(PlanCommandKeys, ADurationWithASearchOrANamedScenarioIsRefusedNamingTheKey) {
  // A named scenario sets the run length, as bench refuses --duration with --scenario.
  auto p = ParsePlan(Replaced(kServerPlan, "  concurrency: [2, 4]\n  num_prompts: 40\n", "  request_rate: [2, 4]\n") +
                         "scenario: server\n",
                     "k.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "k.yaml:8: load.duration_s: cannot be given with a named scenario, which sets the run length "
            "(scenario.min_duration_s, min_query_count): remove it");
  // So does `frontier sweep --scenario` on a rate grid with a duration.
  auto grid = ParsePlan(Replaced(kServerPlan, "concurrency: [2, 4]", "request_rate: [2, 4]"), "k.yaml");
  ASSERT_TRUE(grid.ok()) << grid.status().ToString();
  Result<Plan> judged = WithScenario(*grid, "server");
  ASSERT_FALSE(judged.ok());
  EXPECT_EQ(judged.status().message(),
            "--scenario server cannot run plan k.yaml: a scenario sets the run length (min_duration_s, "
            "min_query_count): remove load.duration_s");
  // A search's trials set their own length.
  EXPECT_EQ(SearchErrorFor("search: {start: 4}\nload: {num_prompts: 200, duration_s: 30}\n"),
            "s.yaml:8: load.duration_s: cannot be given with `search:`, whose trials set their own length: remove it");
}

}  // namespace
}  // namespace frontier::sweep
