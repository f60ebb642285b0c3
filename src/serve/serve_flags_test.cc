// `frontier serve`'s flags resolved (serve_flags.h): the defaults, the fault
// seed, and the flags of the other profile.
#include "serve/serve_flags.h"

#include <gtest/gtest.h>

namespace frontier::serve {
namespace {

TEST(ServeFlags, FixedProfileTakesTheServerDefaults) {
  ServeFlags f;
  f.profile = "fixed";
  f.seed = 7;
  Result<ServeSetup> s = ResolveServeFlags(f, {}, {"--model"});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->options.port, ServeOptions{}.port);
  EXPECT_EQ(s->options.model_name, "fixed");
  EXPECT_EQ(s->options.faults.seed, 7u);  // --fault-seed defaults to --seed
  EXPECT_EQ(s->options.http.idle_timeout, ServeOptions{}.http.idle_timeout);
}

TEST(ServeFlags, RefusesTheOtherProfilesFlagsAndOutOfRangeValues) {
  ServeFlags f;
  f.profile = "fixed";
  Result<ServeSetup> s = ResolveServeFlags(f, {{"model", "x"}}, {"--model"});
  EXPECT_EQ(s.status().message(), "--model: only for the sim profile; drop it or leave out --profile fixed");
  f.port = 70000;
  EXPECT_EQ(ResolveServeFlags(f, {}, {}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace frontier::serve
