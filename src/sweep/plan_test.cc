#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/data_dir.h"
#include "sweep/plan.h"
#include "sweep/sessions.h"

namespace frontier::sweep {
namespace {

const char* kGood = R"(name: t
systems:
  - name: h200-sim
    hardware: h200
    gpus: 8
    sim: {model: llama-3.1-70b, tp: 8, precision: fp8}
  - name: my-vllm
    hardware: h100
    gpus: 1
    engine: {name: vllm, version: "0.11.0"}
    model: meta-llama/Llama-3.1-8B-Instruct
    base_url: http://127.0.0.1:8000
    launch: {command: "vllm serve x --port 8000", env: {A: "1"}, cwd: ".", health: "http://127.0.0.1:8000/health", timeout_s: 900}
workloads:
  - {name: 1k1k, dataset: random, input_len: 1024, output_len: 1024, range_ratio: 0.8}
load:
  concurrency: [1, 2, 4]
  prompts_per_concurrency: 10
repetitions: 3
slo: {ttft_ms: 450, tpot_ms: 40}
)";

// The error for `text` with `from` replaced by `to`.
// The good plan with each `from` replaced by its `to`, parsed.
Result<Plan> ParseEdited(const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = kGood;
  for (const auto& [from, to] : edits) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  return ParsePlan(text, "plans/t.yaml");
}

// The message for a load whose largest point sends `requests` requests, past the bound of 10,000,000.
std::string LargestPointSends(int64_t requests) {
  return "plans/t.yaml:17: load: the largest point sends " + std::to_string(requests) +
         " requests (num_prompts or prompts_per_concurrency x concurrency, at least 4 x concurrency, plus warmup); "
         "at most 10000000 per point";
}

std::string ErrorFor(const std::string& from, const std::string& to) {
  auto p = ParseEdited({{from, to}});
  EXPECT_FALSE(p.ok()) << "accepted: " << to;
  return p.ok() ? "" : p.status().message();
}

TEST(Plan, ParsesTheIssueExample) {
  auto p = ParsePlan(kGood, "plans/t.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->name, "t");
  EXPECT_EQ(p->dir, "plans");
  ASSERT_EQ(p->systems.size(), 2u);
  EXPECT_TRUE(p->systems[0].simulated());
  EXPECT_EQ(p->systems[0].sim->tp, 8);
  EXPECT_EQ(*p->systems[0].sim->precision, "fp8");
  EXPECT_EQ(p->systems[0].line, 3);
  EXPECT_EQ(p->systems[1].launch->env.at("A"), "1");
  EXPECT_DOUBLE_EQ(p->systems[1].launch->timeout_s, 900);
  EXPECT_EQ(p->systems[1].engine_version, "0.11.0");
  EXPECT_EQ(p->workloads[0].input_len, 1024);
  EXPECT_DOUBLE_EQ(p->workloads[0].range_ratio, 0.8);
  EXPECT_EQ(p->load.values, (std::vector<double>{1, 2, 4}));
  EXPECT_EQ(p->repetitions, 3);
  EXPECT_DOUBLE_EQ(*p->slo.tpot_ms, 40);
  EXPECT_EQ(p->hash.size(), 16u);

  auto m = ExpandMatrix(*p);
  ASSERT_EQ(m.size(), 2u * 1 * 3 * 3);
  EXPECT_EQ(m[0].key, "1k1k|concurrency=1|rep=0");
  EXPECT_EQ(m[4].key, "1k1k|concurrency=2|rep=1");
  EXPECT_EQ(m[4].num_prompts, 20);
  EXPECT_NE(m[0].seed, m[1].seed);  // repetitions draw different prompts
}

TEST(Plan, ErrorsNameFileLineAndField) {
  EXPECT_EQ(ErrorFor("    gpus: 1\n", "    gpus: one\n"),
            "plans/t.yaml:9: systems[1].gpus: must be an integer in [1, 100000], got 'one'");
  EXPECT_EQ(ErrorFor("tp: 8,", "tp: 0,"),
            "plans/t.yaml:6: systems[0].sim.tp: must be an integer in [1, 1024], got 0");
  EXPECT_EQ(ErrorFor("timeout_s: 900", "timeout: 900"),
            "plans/t.yaml:13: systems[1].launch.timeout: unknown field; allowed: check_owner, command, "
            "cwd, env, health, log, stop_timeout_s, timeout_s");
  EXPECT_EQ(ErrorFor("dataset: random", "dataset: randm"),
            "plans/t.yaml:15: workloads[0].dataset: must be random, sharegpt, jsonl, shared-prefix, trace, multi-turn or mlperf:BENCHMARK (llama2-70b, mixtral-8x7b), got 'randm'");
  EXPECT_EQ(ErrorFor("[1, 2, 4]", "[1, 2, -4]"),
            "plans/t.yaml:17: load.concurrency[2]: must be an integer in [1, 10000000], got -4");
  EXPECT_EQ(ErrorFor("repetitions: 3", "repetitions: 0"),
            "plans/t.yaml:19: repetitions: must be an integer in [1, 1000], got 0");
  EXPECT_EQ(ErrorFor("  - name: my-vllm", "  - name: h200-sim"),
            "plans/t.yaml:7: systems[1].name: 'h200-sim' is used twice");
  EXPECT_EQ(ErrorFor("{name: 1k1k,", "{name: \"1k|concurrency=1\","),
            "plans/t.yaml:15: workloads[0].name: must not contain '|' (it separates the parts of a point's key, "
            "NAME|concurrency=8|rep=0), got '1k|concurrency=1'");
  EXPECT_EQ(ErrorFor("    base_url: http://127.0.0.1:8000\n", ""),
            "plans/t.yaml:7: systems[1]: needs `sim: {model: ...}` (simulated) or `base_url` (a "
            "server)");
  EXPECT_EQ(ErrorFor("  concurrency: [1, 2, 4]\n", "  concurrency: [1, 2, 4]\n  request_rate: [1]\n"),
            "plans/t.yaml:17: load: give exactly one of `concurrency: [...]` and `request_rate: "
            "[...]`");
  EXPECT_EQ(ErrorFor("slo: {ttft_ms: 450", "slo: {ttft: 450"),
            "plans/t.yaml:20: slo.ttft: unknown field; allowed: e2el_ms, tpot_ms, ttft_ms");
  EXPECT_EQ(ErrorFor("name: t\n", ""), "plans/t.yaml:1: name: is required");
  EXPECT_EQ(ErrorFor("health: \"http", "health: \"ftp"),
            "plans/t.yaml:13: systems[1].launch.health: must be an http:// URL, got "
            "'ftp://127.0.0.1:8000/health'");
  // Broken YAML names the line too.
  auto bad = ParsePlan("name: x\nsystems: [\n", "p.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("p.yaml:", 0), 0u);
  EXPECT_NE(bad.status().message().find("not valid YAML"), std::string::npos);
}

TEST(Plan, NonsenseAndContradictionsAreNamedWithTheirRange) {
  EXPECT_EQ(ErrorFor("gpus: 8", "gpus: 12"), "plans/t.yaml:5: systems[0].gpus: 12 is not a multiple of sim.tp 8");
  EXPECT_EQ(ErrorFor("tp: 8,", "tp: 4, dp: 4,"),
            "plans/t.yaml:5: systems[0].gpus: 8 must equal sim.tp x sim.dp = 16");
  EXPECT_EQ(ErrorFor("input_len: 1024", "input_len: 99999999999"),
            "plans/t.yaml:15: workloads[0].input_len: must be an integer in [1, 10000000], got 99999999999");
  // Integers are decimal, as flags are: yaml-cpp read 0x10 as 16 and 010 as 8 (octal).
  EXPECT_EQ(ErrorFor("  concurrency: [1, 2, 4]\n", "  concurrency: [1, 0x10]\n"),
            "plans/t.yaml:17: load.concurrency[1]: must be an integer in [1, 10000000], got '0x10'");
  // A plan's concurrency has the bound of --max-concurrency and of a stored point (core/limits.h).
  EXPECT_EQ(ErrorFor("  concurrency: [1, 2, 4]\n", "  concurrency: [1, 10000001]\n"),
            "plans/t.yaml:17: load.concurrency[1]: must be an integer in [1, 10000000], got 10000001");
  EXPECT_EQ(ErrorFor("input_len: 1024", "input_len: 4294967297"),
            "plans/t.yaml:15: workloads[0].input_len: must be an integer in [1, 10000000], got 4294967297");
  {
    auto p = ParseEdited({{"concurrency: [1, 2, 4]", "concurrency: [1, 010]"}});
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->load.values, (std::vector<double>{1, 10}));
  }
  EXPECT_EQ(ErrorFor("range_ratio: 0.8", "range_ratio: .nan"),
            "plans/t.yaml:15: workloads[0].range_ratio: must be a finite number, got '.nan'");
  // The workload's ranges are the workload spec's (workload/spec.h), the flags' too: range_ratio is in [0, 1).
  EXPECT_EQ(ErrorFor("range_ratio: 0.8", "range_ratio: 1"),
            "plans/t.yaml:15: workloads[0].range_ratio: must be in [0, 1), got 1");
  EXPECT_EQ(ErrorFor("timeout_s: 900", "timeout_s: -1"),
            "plans/t.yaml:13: systems[1].launch.timeout_s: must be a number in [0.1, 86400], got -1");
  EXPECT_EQ(ErrorFor("  concurrency: [1, 2, 4]\n", "  concurrency: [1, 2, 1000000]\n  warmup: 1\n"),
            LargestPointSends(10000001));
  EXPECT_EQ(ErrorFor("prompts_per_concurrency: 10", "prompts_per_concurrency: 10000000"),
            LargestPointSends(40000000));
  // A concurrency point sends at least 4 x its concurrency, num_prompts or not: the plan used to pass
  // this check with num_prompts 10, then draw 10 million prompts for each of the point's two attempts.
  EXPECT_EQ(ErrorFor("  concurrency: [1, 2, 4]\n", "  concurrency: [1, 2500001]\n  num_prompts: 10\n"),
            LargestPointSends(10000004));
  EXPECT_EQ(ErrorFor("  concurrency: [1, 2, 4]\n", "  concurrency: [1, 300000]\n  num_prompts: 10\n"),
            // 4 x 300,000 requests x ceil(1024 x 1.8) = 1,844 tokens each
            "plans/t.yaml:15: workloads[0]: the largest point's prompts hold 2212800000 tokens (requests x "
            "(input_len x (1 + range_ratio) + prefix_len)); at most 1000000000 per point");
  // A multi-turn point counts sessions, each mt_turns requests: this plan used to parse, then break its
  // point twice with "--num-prompts x --mt-turns must be at most 10000000", flags a plan does not have.
  EXPECT_EQ(ParseEdited({{"  concurrency: [1, 2, 4]\n", "  concurrency: [1, 2000000]\n  num_prompts: 10\n"},
                         {"{name: 1k1k, dataset: random, input_len: 1024, output_len: 1024, range_ratio: 0.8}",
                          "{name: chat, dataset: multi-turn, mt_turns: 8}"}})
                .status()
                .message(),
            "plans/t.yaml:15: workloads[0]: the largest point runs 8000000 sessions of 8 turns (mt_turns): "
            "64000000 requests; at most 10000000 per point");
  // A shared-prefix workload's prompts are bounded as the flags' are (workload::CheckSharedPrefix), when the
  // plan is read: it used to parse, then break every point twice naming the --gsp-* flags.
  EXPECT_EQ(ParseEdited({{"{name: 1k1k, dataset: random, input_len: 1024, output_len: 1024, range_ratio: 0.8}",
                          "{name: gsp, dataset: shared-prefix, gsp_num_groups: 10000, gsp_prompts_per_group: 1000, "
                          "gsp_system_prompt_len: 100000}"}})
                .status()
                .message(),
            // 10,000 x 1,000 prompts x (100,000 + the default question of 128 tokens)
            "plans/t.yaml:15: workloads[0]: the shared-prefix prompts would hold 1001280000000 tokens "
            "(workloads[].gsp_num_groups x workloads[].gsp_prompts_per_group x (workloads[].gsp_system_prompt_len + "
            "workloads[].gsp_question_len)); at most 1000000000");
  // A warm-up is bounded as --warmup is, by the point's requests: 2,000,000 beside 40 prompts fits (a plan
  // used to stop warmup at 1,000,000 on its own), 10,000,000 does not, and a rate is held to a stored rate's bound.
  {
    auto p = ParseEdited({{"  concurrency: [1, 2, 4]\n", "  concurrency: [1, 2, 4]\n  warmup: 2000000\n"},
                          {"input_len: 1024", "input_len: 100"}});  // the prompts' tokens within their bound
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->load.warmup, 2000000);
  }
  EXPECT_EQ(ErrorFor("  concurrency: [1, 2, 4]\n", "  concurrency: [1, 2, 4]\n  warmup: 10000001\n"),
            "plans/t.yaml:18: load.warmup: must be an integer in [0, 10000000], got 10000001");
  EXPECT_EQ(ErrorFor("  concurrency: [1, 2, 4]\n", "  request_rate: [1, 1000000001]\n  num_prompts: 10\n"),
            "plans/t.yaml:17: load.request_rate[1]: must be a number in [1e-06, 1000000000], got 1000000001");
  // burstiness has --burstiness's bound, (0, 1e6]: a plan stopped at 1e3, so `--burstiness 5000 --as-plan`
  // printed a plan that did not parse.
  {
    auto p = ParseEdited({{"  concurrency: [1, 2, 4]\n", "  concurrency: [1, 2, 4]\n  burstiness: 5000\n"}});
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->load.burstiness, 5000);
  }
  EXPECT_EQ(ErrorFor("  concurrency: [1, 2, 4]\n", "  concurrency: [1, 2, 4]\n  burstiness: 0\n"),
            "plans/t.yaml:18: load.burstiness: must be a number in (0, 1000000] (1 = Poisson), got 0");
  EXPECT_EQ(ErrorFor("  concurrency: [1, 2, 4]\n", "  concurrency: [1, 2, 4]\n  burstiness: 2000000\n"),
            "plans/t.yaml:18: load.burstiness: must be a number in (0, 1000000] (1 = Poisson), got 2000000");
  // Each count alone is bounded by the requests of one point (core/limits.h's kMaxRunRequests).
  EXPECT_EQ(ErrorFor("prompts_per_concurrency: 10", "prompts_per_concurrency: 10000001"),
            "plans/t.yaml:18: load.prompts_per_concurrency: must be an integer in [1, 10000000], got 10000001");
  EXPECT_EQ(ErrorFor("prompts_per_concurrency: 10", "num_prompts: 10000001"),
            "plans/t.yaml:18: load.num_prompts: must be an integer in [1, 10000000], got 10000001");
  std::string big = kGood;
  big.replace(big.find("input_len: 1024"), 15, "input_len: 1000000");
  big.replace(big.find("prompts_per_concurrency: 10"), 27, "prompts_per_concurrency: 1000");
  EXPECT_EQ(ParsePlan(big, "plans/t.yaml").status().message(),
            "plans/t.yaml:15: workloads[0]: the largest point's prompts hold 7200000000 tokens (requests x "
            "(input_len x (1 + range_ratio) + prefix_len)); at most 1000000000 per point");
  EXPECT_EQ(ErrorFor("repetitions: 3", "repetitions: 1000\nx: [" + std::string("1, ") + "2]"),
            "plans/t.yaml:20: x: unknown field; allowed: executor, load, name, percentiles, repetitions, scenario, search, seed, "
            "slo, slurm, systems, timeslice_s, workloads");
  EXPECT_EQ(ErrorFor("base_url: http://127.0.0.1:8000", "base_url: http://127.0.0.1:99999"),
            "plans/t.yaml:12: systems[1].base_url: the port of http://127.0.0.1:99999 must be an integer in "
            "[1, 65535], got '99999'");
  EXPECT_EQ(ErrorFor("    gpus: 1\n", "    gpus: [1]\n"),
            "plans/t.yaml:9: systems[1].gpus: must be an integer in [1, 100000], got a list or map");
}

TEST(Plan, HostileTextEndsInAnErrorNotACrash) {
  for (const std::string& text :
       {std::string(200000, '['), std::string(100000, '{'), std::string("name: [") + std::string(5000, '['),
        std::string("*a"), std::string("name: &a [*a]"), std::string("systems: {? [a]: 1}"),
        std::string("\xff\xfe\x00junk"), std::string("name: x\nsystems: 3\nworkloads: {}\nload: []"),
        std::string("name: x\nsystems: [[1]]"), std::string("- - - -")}) {
    auto p = ParsePlan(text, "h.yaml");
    EXPECT_FALSE(p.ok());
    EXPECT_EQ(p.status().message().rfind("h.yaml", 0), 0u) << p.status().message();
  }
}

TEST(Plan, AnEndlessFileEndsPromptlyWithTheBound) {
  auto p = LoadPlan("/dev/zero");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "/dev/zero: larger than 16 MiB, the bound on plan files (docs/limits.md); set FRONTIER_MAX_INPUT_MB to "
            "raise it");
}

// The simulated deployments of headline results: attention DP + EP, MTP
// acceptance, automatic sequence limits and disaggregated pools; each stored
// in the run's configuration. Concurrency points never measure fewer than
// 4 x c requests, whatever num_prompts says.
TEST(Plan, SimDeploymentFieldsAndTheFourRoundsRule) {
  const char* text = R"(name: d
systems:
  - name: dep
    hardware: h200
    gpus: 16
    sim: {model: deepseek-r1, attention_dp: true, tp: 1, dp: 16, ep: 16, spec_tokens: 1, acceptance_rate: 0.8,
          max_num_seqs: auto}
  - name: pd
    hardware: h200
    gpus: 24
    sim: {model: deepseek-r1, prefix_caching: off, prefill: {workers: 1, tp: 8}, decode: {workers: 2, tp: 1, dp: 8, ep: 8}}
workloads:
  - {name: w, input_len: 1024, output_len: 128}
load:
  concurrency: [8, 64]
  num_prompts: 100
)";
  auto p = ParsePlan(text, "d.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const sim::SimSpec& a = *p->systems[0].sim;
  EXPECT_TRUE(a.attention_dp);
  EXPECT_TRUE(a.max_num_seqs_auto);
  EXPECT_DOUBLE_EQ(*a.acceptance_rate, 0.8);
  EXPECT_EQ(p->systems[0].Config().at("attention_dp"), "true");
  EXPECT_EQ(p->systems[0].Config().at("max_num_seqs"), "auto");
  EXPECT_TRUE(a.prefix_caching);  // on unless a plan says off
  EXPECT_EQ(p->systems[0].Config().count("prefix_caching"), 0u);
  const sim::SimSpec& d = *p->systems[1].sim;
  EXPECT_EQ(d.prefill_workers, 1);
  EXPECT_EQ(d.prefill_tp, 8);
  EXPECT_EQ(d.decode_workers, 2);
  EXPECT_EQ(d.decode_dp, 8);
  EXPECT_EQ(d.decode_ep, 8);
  // The simulator builds the system's hardware and GPUs, the pools' parallelism.
  EXPECT_EQ(d.hardware, p->systems[1].hardware);
  EXPECT_EQ(d.gpus, p->systems[1].gpus);
  EXPECT_EQ(d.tp, 1);
  EXPECT_EQ(d.dp, 0);
  EXPECT_FALSE(d.prefix_caching);
  EXPECT_EQ(p->systems[1].Config().at("prefix_caching"), "off");
  const auto m = ExpandMatrix(*p);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].num_prompts, 100);  // 100 >= 4 x 8
  EXPECT_EQ(m[1].num_prompts, 256);  // raised to 4 x 64

  std::string one_pool = text;
  one_pool.replace(one_pool.find(", decode: {workers: 2, tp: 1, dp: 8, ep: 8}"),
                   std::string(", decode: {workers: 2, tp: 1, dp: 8, ep: 8}").size(), "");
  auto bad = ParsePlan(one_pool, "d.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("needs both prefill and decode"), std::string::npos)
      << bad.status().message();
  std::string bad_rate = text;
  bad_rate.replace(bad_rate.find("acceptance_rate: 0.8"), 20, "acceptance_rate: 1.5");
  bad = ParsePlan(bad_rate, "d.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("systems[0].sim.acceptance_rate"), std::string::npos)
      << bad.status().message();
}

// A simulated system is stored with every field of SimSpec's table it sets
// (sim/engine/spec_table.h): two systems that differ only in max_num_seqs,
// max_num_batched_tokens or the MTP acceptance are two configurations in the
// results store, where they once were one.
TEST(Plan, StoredConfigHasEveryFieldASystemSets) {
  const char* text = R"(name: c
systems:
  - {name: base, hardware: h200, gpus: 1, sim: {model: llama-3.1-8b}}
  - {name: seqs, hardware: h200, gpus: 1, sim: {model: llama-3.1-8b, max_num_seqs: 64}}
  - {name: rate, hardware: h200, gpus: 1, sim: {model: llama-3.1-8b, spec_tokens: 2, acceptance_rate: 0.85}}
  - {name: tokens, hardware: h200, gpus: 1, sim: {model: llama-3.1-8b, max_num_batched_tokens: 4096, acceptance: 2.5}}
  - name: every
    hardware: h100-sxm
    gpus: 8
    sim: {model: deepseek-r1, tp: 4, dp: 2, ep: 8, precision: fp8, kv_precision: fp8, stack: trtllm@2025.04,
          max_num_seqs: auto, prefix_caching: off, gpu_memory_utilization: 0.85, spec_tokens: 1}
  - name: pools
    hardware: h200
    gpus: 24
    sim: {model: deepseek-r1, attention_dp: true, prefill: {workers: 1, tp: 8}, decode: {workers: 2, tp: 1, dp: 8, ep: 8}}
workloads:
  - {name: w, input_len: 128, output_len: 16}
load:
  concurrency: [1]
)";
  auto p = ParsePlan(text, "c.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  using Config = std::map<std::string, std::string>;
  const Config base = {{"ep", "1"},        {"gpus", "1"}, {"hardware", "h200"},
                       {"kind", "simulated"}, {"model", "llama-3.1-8b"}, {"tp", "1"}};
  auto with = [&](Config extra) {
    Config c = base;
    c.merge(extra);
    return c;
  };
  EXPECT_EQ(p->systems[0].Config(), base);
  EXPECT_EQ(p->systems[1].Config(), with({{"max_num_seqs", "64"}}));
  EXPECT_EQ(p->systems[2].Config(), with({{"spec_tokens", "2"}, {"acceptance_rate", "0.85"}}));
  EXPECT_EQ(p->systems[3].Config(), with({{"max_num_batched_tokens", "4096"}, {"acceptance", "2.5"}}));
  // The keys written before the table wrote them keep their text.
  EXPECT_EQ(p->systems[4].Config(), (Config{{"dp", "2"},
                                            {"ep", "8"},
                                            {"gpu_memory_utilization", "0.85"},
                                            {"gpus", "8"},
                                            {"hardware", "h100-sxm"},
                                            {"kind", "simulated"},
                                            {"kv_precision", "fp8"},
                                            {"max_num_seqs", "auto"},
                                            {"model", "deepseek-r1"},
                                            {"precision", "fp8"},
                                            {"prefix_caching", "off"},
                                            {"spec_tokens", "1"},
                                            {"stack", "trtllm@2025.04"},
                                            {"tp", "4"}}));
  // A disaggregated system's parallelism is its pools' (tp = ep = 1 beside them).
  EXPECT_EQ(p->systems[5].Config(), (Config{{"attention_dp", "true"},
                                            {"decode", "2x(tp1,dp8,ep8)"},
                                            {"ep", "1"},
                                            {"gpus", "24"},
                                            {"hardware", "h200"},
                                            {"kind", "simulated"},
                                            {"model", "deepseek-r1"},
                                            {"prefill", "1x(tp8,dp1,ep1)"},
                                            {"tp", "1"}}));
}

const char* kSessions = R"(name: s
seed: 9
systems:
  - {name: a, hardware: h200, gpus: 1, sim: {model: llama-3.1-8b}}
workloads:
  - {name: chat, dataset: multi-turn, mt_turns: 3, mt_system_prompt_len: 1024, mt_message_len: 128,
     output_len: 64, think_time_ms: 250, max_think_time_ms: 1000, ideal_block_tokens: 16}
  - {name: gsp, dataset: shared-prefix, gsp_num_groups: 4, gsp_prompts_per_group: 8, gsp_system_prompt_len: 512,
     gsp_question_len: 32, gsp_output_len: 16, seed: 3, cancel_fraction: 0.5, cancel_after_tokens: 4}
  - {name: agent, dataset: trace, path: traces/a.jsonl, trace_format: agentic, trace_block_tokens: 64}
load:
  concurrency: [2, 4]
  num_prompts: 8
)";

std::string SessionsErrorFor(const std::string& from, const std::string& to) {
  std::string text = kSessions;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  auto p = ParsePlan(text, "s.yaml");
  EXPECT_FALSE(p.ok()) << "accepted: " << to;
  return p.ok() ? "" : p.status().message();
}

TEST(Plan, ListsGeneratorsTracesAndSessionWorkloads) {
  auto p = ParsePlan(kSessions, "s.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->workloads.size(), 3u);
  const WorkloadSpec& chat = p->workloads[0];
  EXPECT_EQ(chat.mt_turns, 3);
  EXPECT_EQ(chat.mt_system_prompt_len, 1024);
  EXPECT_EQ(chat.mt_message_len, 128);
  EXPECT_EQ(chat.output_len, 64);
  EXPECT_DOUBLE_EQ(chat.think_time_ms, 250);
  EXPECT_DOUBLE_EQ(chat.max_think_time_ms, 1000);
  EXPECT_EQ(chat.seed, 9u);  // the plan's
  const WorkloadSpec& gsp = p->workloads[1];
  EXPECT_EQ(gsp.gsp_num_groups, 4);
  EXPECT_EQ(gsp.gsp_prompts_per_group, 8);
  EXPECT_EQ(gsp.gsp_system_prompt_len, 512);
  EXPECT_EQ(gsp.gsp_output_len, 16);
  EXPECT_DOUBLE_EQ(gsp.cancel_fraction, 0.5);
  EXPECT_EQ(gsp.cancel_after_tokens, 4);
  EXPECT_EQ(gsp.seed, 3u);  // its own
  const WorkloadSpec& agent = p->workloads[2];
  EXPECT_EQ(agent.trace_format, "agentic");
  EXPECT_EQ(agent.trace_block_tokens, 64);
  // Points are seeded from their workload's seed, repetition by repetition.
  auto m = ExpandMatrix(*p);
  ASSERT_EQ(m.size(), 3u * 2);
  EXPECT_EQ(m[0].seed, 9u);
  EXPECT_EQ(m[2].seed, 3u);
  EXPECT_EQ(m[0].num_prompts, 8);  // sessions
  EXPECT_EQ(m[1].key, "chat|concurrency=4|rep=0");
}

TEST(Plan, GeneratorAndSessionFieldErrorsNameFileLineAndField) {
  EXPECT_EQ(SessionsErrorFor("gsp_num_groups: 4", "gsp_num_groups: 0"),
            "s.yaml:8: workloads[1].gsp_num_groups: must be an integer in [1, 10000000], got 0");
  EXPECT_EQ(SessionsErrorFor("mt_turns: 3", "mt_turns: three"),
            "s.yaml:6: workloads[0].mt_turns: must be an integer, got 'three'");
  EXPECT_EQ(SessionsErrorFor("cancel_after_tokens: 4}", "cancel_after_tokens: 4, cancel_after_ms: 5}"),
            "s.yaml:9: workloads[1].cancel_fraction: > 0 needs exactly one of cancel_after_tokens K >= 1 and "
            "cancel_after_ms T > 0, where requests are cancelled");
  EXPECT_EQ(SessionsErrorFor("trace_format: agentic", "trace_format: csv"),
            "s.yaml:10: workloads[2].trace_format: must be auto, frontier, mooncake or agentic, got 'csv'");
  EXPECT_EQ(SessionsErrorFor("path: traces/a.jsonl, ", ""), "s.yaml:10: workloads[2].path: is required for dataset trace");
  // A field the dataset does not read is an error, not ignored.
  EXPECT_EQ(SessionsErrorFor("gsp_question_len: 32", "gsp_question_len: 32, mt_turns: 2"),
            "s.yaml:9: workloads[1].mt_turns: is not read by dataset shared-prefix (docs/workloads.md lists each "
            "dataset's fields)");
  EXPECT_EQ(SessionsErrorFor("gsp_question_len: 32", "gsp_question_len: 32, think_time_ms: 5"),
            "s.yaml:9: workloads[1].think_time_ms: needs a session workload (dataset trace or multi-turn), got "
            "dataset shared-prefix");
  EXPECT_EQ(SessionsErrorFor("gsp_num_groups: 4", "gsp_groups: 4").rfind(
                "s.yaml:8: workloads[1].gsp_groups: unknown field; allowed: ", 0),
            0u);
  // Sessions run without warm-up.
  EXPECT_EQ(SessionsErrorFor("num_prompts: 8\n", "num_prompts: 8\n  warmup: 2\n"),
            "s.yaml:14: load.warmup: must be 0 with a session workload (workloads[0], chat, is multi-turn): "
            "sessions run without warm-up");
}

TEST(Plan, ScenarioBlockAndTheLoadsItTakes) {
  std::string text = kGood;
  const std::string grid = "  concurrency: [1, 2, 4]\n  prompts_per_concurrency: 10\n";
  text.replace(text.find(grid), grid.size(), "  request_rate: [2, 4]\n");
  text += "scenario: {name: server, min_duration_s: 30, min_query_count: 50, slo: [ttft_p99:450, tpot_p99:40]}\n";
  auto p = ParsePlan(text, "plans/t.yaml");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_TRUE(p->scenario.has_value());
  EXPECT_EQ(p->scenario->scenario, loadgen::Scenario::kServer);
  EXPECT_DOUBLE_EQ(*p->scenario->min_duration_s, 30);
  EXPECT_EQ(*p->scenario->min_query_count, 50);
  ASSERT_EQ(p->scenario->slo.size(), 2u);
  EXPECT_DOUBLE_EQ(p->scenario->slo[1].limit_ms, 40);
  EXPECT_EQ(p->scenario_line, 20);
  EXPECT_FALSE(p->load.num_prompts.has_value());  // the scenario sets the run length

  // A named scenario sets the arrivals: a concurrency sweep is not one of its loads.
  EXPECT_EQ(ErrorFor("slo: {ttft_ms: 450, tpot_ms: 40}\n", "scenario: offline\n"),
            "plans/t.yaml:20: scenario: a scenario needs `load: {request_rate: [...]}`, each value a point's target "
            "QPS (the scenario sets the arrivals; a concurrency cap is not one of its loads)");
  EXPECT_EQ(ErrorFor("slo: {ttft_ms: 450, tpot_ms: 40}\n", "scenario: {name: sever}\n"),
            "plans/t.yaml:20: scenario.name: must be offline, server or interactive, got 'sever'");
  EXPECT_EQ(ErrorFor("slo: {ttft_ms: 450, tpot_ms: 40}\n", "scenario: {slo: [ttft_p99]}\n").rfind(
                "plans/t.yaml:20: scenario.slo: ", 0),
            0u);
  // Without a name it is a plain SLO, judged on any load.
  std::string plain = kGood;
  plain += "scenario: {slo: [ttft_p99:450]}\n";
  auto q = ParsePlan(plain, "plans/t.yaml");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_FALSE(q->scenario->scenario.has_value());
  // `frontier sweep --scenario` on a concurrency plan, and on a rate plan, which it turns into another sweep.
  auto concurrency = WithScenario(*q, "server");
  ASSERT_FALSE(concurrency.ok());
  EXPECT_NE(concurrency.status().message().find("--scenario server cannot run plan plans/t.yaml: a scenario needs"),
            std::string::npos)
      << concurrency.status().message();
  EXPECT_FALSE(WithScenario(*p, "batch").ok());
  auto offline = WithScenario(*p, "offline");
  ASSERT_TRUE(offline.ok()) << offline.status().ToString();
  EXPECT_EQ(offline->scenario->scenario, loadgen::Scenario::kOffline);
  EXPECT_DOUBLE_EQ(*offline->scenario->min_duration_s, 30);  // the plan's other fields are kept
  EXPECT_NE(offline->hash, p->hash);
  // Scenarios take single-turn workloads.
  std::string sessions = kSessions;
  sessions += "scenario: {slo: [ttft_p99:450]}\n";
  auto s = ParsePlan(sessions, "s.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "s.yaml:14: scenario: scenarios take single-turn workloads; workloads[0] (chat) is "
                                  "multi-turn");
}

TEST(Plan, EveryExamplePlanInDataIsValid) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(sim::DefaultDataDir() + "/plans")) {
    if (e.path().extension() != ".yaml") continue;
    auto p = LoadPlan(e.path().string());
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    ++n;
  }
  EXPECT_GE(n, 4);
}

TEST(Plan, MissingFileIsNotFound) {
  auto p = LoadPlan("/nonexistent/plan.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kNotFound);
}

TEST(Plan, PowerOfAServerSystem) {
  std::string text = kGood;
  const std::string at = "    base_url: http://127.0.0.1:8000\n";
  text.replace(text.find(at), at.size(), at + "    power: scrape\n    power_url: http://gpu:9400/metrics\n");
  auto p = ParsePlan(text, "plans/t.yaml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->systems[0].measure.power_kind, "auto");
  EXPECT_EQ(p->systems[1].measure.power_kind, "scrape");
  EXPECT_EQ(p->systems[1].measure.power_url, "http://gpu:9400/metrics");
  EXPECT_EQ(p->systems[1].Config().at("power"), "scrape");
  EXPECT_EQ(ErrorFor(at, at + "    power: watts\n"),
            "plans/t.yaml:13: systems[1].power: must be one of auto, nvml, amdsmi, rapl, scrape or off, got 'watts'");
  EXPECT_EQ(ErrorFor(at, at + "    power: scrape\n"),
            "plans/t.yaml:13: systems[1].power: scrape needs power_url (a DCGM exporter's /metrics) or scrape_metrics "
            "(read from there)");
}

}  // namespace
}  // namespace frontier::sweep
