#include "metrics/prometheus.h"

#include <gtest/gtest.h>

#include <cmath>

namespace frontier::metrics {
namespace {

// Shaped as vLLM's V1 engine writes /metrics through prometheus_client:
// per-engine labels, counters with _total and _created, histograms.
constexpr std::string_view kVllm = R"(# HELP python_gc_objects_collected_total Objects collected during gc
# TYPE python_gc_objects_collected_total counter
python_gc_objects_collected_total{generation="0"} 8911.0
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 7.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 2.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.4125
# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3.0
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 25600.0
vllm:prefix_cache_queries_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 6400.0
# HELP vllm:prefix_cache_queries_created Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_created gauge
vllm:prefix_cache_queries_created{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.7514e+09
# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 14336.0
vllm:prefix_cache_hits_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 4096.0
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.001",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 40.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="meta-llama/Llama-3.1-8B-Instruct"} 50.0
vllm:time_to_first_token_seconds_count{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 50.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3.25
)";

// Shaped as SGLang's: a hit-rate gauge instead of counters, summary quantiles.
constexpr std::string_view kSglang =
    "# HELP sglang:cache_hit_rate The prefix cache hit rate.\n"
    "# TYPE sglang:cache_hit_rate gauge\n"
    "sglang:cache_hit_rate{model_name=\"qwen/qwen2.5-7b\"} 0.6875\n"
    "# HELP sglang:num_running_reqs The number of running requests.\n"
    "# TYPE sglang:num_running_reqs gauge\n"
    "sglang:num_running_reqs{model_name=\"qwen/qwen2.5-7b\"} 12.0\n"
    "# TYPE sglang:num_queue_reqs gauge\n"
    "sglang:num_queue_reqs{model_name=\"qwen/qwen2.5-7b\"} 0.0\n"
    "# TYPE sglang:token_usage gauge\n"
    "sglang:token_usage{model_name=\"qwen/qwen2.5-7b\"} 0.25\n"
    "# TYPE rpc_duration_seconds summary\n"
    "rpc_duration_seconds{quantile=\"0.5\"} 4773\n"
    "rpc_duration_seconds{quantile=\"0.99\"} NaN\n"
    "rpc_duration_seconds_sum 1.7560473e+07\n"
    "rpc_duration_seconds_count 2693\n";

// Shaped as llama.cpp's server with --metrics: no labels at all, CRLF.
constexpr std::string_view kLlamaCpp =
    "# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.\r\n"
    "# TYPE llamacpp:prompt_tokens_total counter\r\n"
    "llamacpp:prompt_tokens_total 4096\r\n"
    "# HELP llamacpp:kv_cache_usage_ratio KV-cache usage. 1 means 100 percent usage.\r\n"
    "# TYPE llamacpp:kv_cache_usage_ratio gauge\r\n"
    "llamacpp:kv_cache_usage_ratio 0.125\r\n"
    "llamacpp:requests_processing 1\r\n"
    "llamacpp:requests_deferred 0\r\n";

TEST(PrometheusTest, ReadsVllmCountersGaugesAndHistograms) {
  auto e = ParsePrometheusText(kVllm);
  ASSERT_TRUE(e.ok()) << e.status().message();
  // Counters add up over engines.
  EXPECT_DOUBLE_EQ(*e->Sum("vllm:prefix_cache_queries_total"), 32000.0);
  EXPECT_DOUBLE_EQ(*e->Sum("vllm:prefix_cache_hits_total"), 18432.0);
  EXPECT_DOUBLE_EQ(*e->Sum("vllm:kv_cache_usage_perc"), 0.4125);
  EXPECT_DOUBLE_EQ(*e->Sum("vllm:num_preemptions_total"), 3.0);
  EXPECT_FALSE(e->Sum("vllm:prefix_cache_misses_total").has_value());
  EXPECT_EQ(e->types.at("vllm:prefix_cache_hits_total"), "counter");
  EXPECT_EQ(e->help.at("vllm:kv_cache_usage_perc"), "KV-cache usage. 1 means 100 percent usage.");
  // Histogram lines, le="+Inf" included, belong to their family.
  int buckets = 0;
  for (const auto& s : e->samples) {
    if (s.name != "vllm:time_to_first_token_seconds_bucket") continue;
    ++buckets;
    EXPECT_EQ(*s.Label("engine"), "0");
    if (*s.Label("le") == "+Inf") {
      EXPECT_DOUBLE_EQ(s.value, 50.0);
    }
  }
  EXPECT_EQ(buckets, 3);
  EXPECT_DOUBLE_EQ(*e->Sum("vllm:time_to_first_token_seconds_sum"), 3.25);
  EXPECT_EQ(e->FamilyOf("vllm:time_to_first_token_seconds_bucket"), "vllm:time_to_first_token_seconds");
  EXPECT_EQ(e->FamilyOf("vllm:prefix_cache_hits_total"), "vllm:prefix_cache_hits_total");
  EXPECT_EQ(e->samples.size(), 15u);
}

TEST(PrometheusTest, ReadsSglangGaugeAndSummaryWithNaN) {
  auto e = ParsePrometheusText(kSglang);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_DOUBLE_EQ(*e->Sum("sglang:cache_hit_rate"), 0.6875);
  EXPECT_DOUBLE_EQ(*e->Sum("sglang:num_running_reqs"), 12.0);
  EXPECT_EQ(e->types.at("rpc_duration_seconds"), "summary");
  EXPECT_EQ(e->FamilyOf("rpc_duration_seconds_count"), "rpc_duration_seconds");
  bool saw_nan = false;
  for (const auto& s : e->samples)
    if (s.Label("quantile") == std::optional<std::string_view>("0.99")) saw_nan = std::isnan(s.value);
  EXPECT_TRUE(saw_nan);
  EXPECT_DOUBLE_EQ(*e->Sum("rpc_duration_seconds_sum"), 1.7560473e+07);
}

TEST(PrometheusTest, ReadsLlamaCppWithoutLabelsAndCrlf) {
  auto e = ParsePrometheusText(kLlamaCpp);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_DOUBLE_EQ(*e->Sum("llamacpp:prompt_tokens_total"), 4096);
  EXPECT_DOUBLE_EQ(*e->Sum("llamacpp:kv_cache_usage_ratio"), 0.125);
  EXPECT_EQ(e->help.at("llamacpp:prompt_tokens_total"), "Number of prompt tokens processed.");
  EXPECT_EQ(e->samples.size(), 4u);
  EXPECT_TRUE(e->samples[0].labels.empty());
}

TEST(PrometheusTest, EscapesInfinitiesTimestampsAndTrailingCommas) {
  const std::string_view text =
      "# A plain comment\n"
      "\n"
      "# HELP odd Line one\\nline two with a \\\\ backslash\n"
      "odd{path=\"C:\\\\dir\",msg=\"say \\\"hi\\\"\\nbye\",} -Inf 1395066363000\n"
      "  spaced\t{ a = \"1\" }\t+Inf\n"
      "tiny 1e-400\n"
      "huge 1e400\n"
      "neg -3.5e2 -12\n";
  auto e = ParsePrometheusText(text);
  ASSERT_TRUE(e.ok()) << e.status().message();
  ASSERT_EQ(e->samples.size(), 5u);
  const PromSample& odd = e->samples[0];
  EXPECT_EQ(*odd.Label("path"), "C:\\dir");
  EXPECT_EQ(*odd.Label("msg"), "say \"hi\"\nbye");
  EXPECT_TRUE(std::isinf(odd.value) && odd.value < 0);
  EXPECT_EQ(*odd.timestamp_ms, 1395066363000);
  EXPECT_EQ(e->help.at("odd"), "Line one\nline two with a \\ backslash");
  EXPECT_TRUE(std::isinf(e->samples[1].value) && e->samples[1].value > 0);
  EXPECT_EQ(*e->samples[1].Label("a"), "1");
  EXPECT_EQ(e->samples[2].value, 0.0);
  EXPECT_TRUE(std::isinf(e->samples[3].value));
  EXPECT_DOUBLE_EQ(e->samples[4].value, -350.0);
  EXPECT_EQ(*e->samples[4].timestamp_ms, -12);
}

TEST(PrometheusTest, ErrorsNameTheLineAndWhatWasExpected) {
  auto expect_error = [](std::string_view text, std::string_view needle) {
    auto e = ParsePrometheusText(text);
    ASSERT_FALSE(e.ok()) << text;
    EXPECT_NE(e.status().message().find(needle), std::string::npos) << e.status().message();
  };
  expect_error("ok 1\nbroken\n", "line 2");
  expect_error("x{a=\"1\" 2\n", "expected ',' or '}'");
  expect_error("x{a=\"1} 2\n", "no closing quote");
  expect_error("x{a=\"\\t\"} 2\n", "unknown escape");
  expect_error("x{a=1} 2\n", "must be quoted");
  expect_error("x{a=\"1\",a=\"2\"} 2\n", "given twice");
  expect_error("x one\n", "expected a number");
  expect_error("x 1 1.5\n", "timestamp");
  expect_error("x 1 2 3\n", "after the timestamp");
  expect_error("# TYPE x meter\n", "unknown metric type");
  expect_error("9x 1\n", "metric name");
  expect_error("x 0x10\n", "expected a number");
  expect_error(std::string(kMaxPrometheusBytes + 1, ' '), "exceeds the bound");
}

}  // namespace
}  // namespace frontier::metrics
