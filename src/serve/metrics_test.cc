#include "serve/metrics.h"

#include <gtest/gtest.h>

namespace frontier::serve {
namespace {

TEST(Histogram, CumulativeBucketsSumAndCount) {
  Histogram h({0.1, 1.0});
  h.Observe(0.05);
  h.Observe(0.1);  // le is inclusive
  h.Observe(0.5);
  h.Observe(7);
  std::string out;
  h.Render(out, "x", "a=\"b\"");
  EXPECT_NE(out.find("x_bucket{a=\"b\",le=\"0.1\"} 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_bucket{a=\"b\",le=\"1\"} 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_bucket{a=\"b\",le=\"+Inf\"} 4\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_sum{a=\"b\"} 7.65\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_count{a=\"b\"} 4\n"), std::string::npos) << out;
}

TEST(ServeMetrics, RendersVllmNamedSeries) {
  ServeMetrics m;
  m.running = 3;
  m.prompt_tokens = 10;
  const std::string out = m.Render("llama");
  EXPECT_NE(out.find("vllm:num_requests_running{model_name=\"llama\"} 3\n"), std::string::npos);
  EXPECT_NE(out.find("vllm:prompt_tokens_total{model_name=\"llama\"} 10\n"), std::string::npos);
  EXPECT_NE(out.find("# TYPE vllm:time_to_first_token_seconds histogram\n"), std::string::npos);
}

}  // namespace
}  // namespace frontier::serve
