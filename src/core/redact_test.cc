#include "core/redact.h"

#include <gtest/gtest.h>

namespace frontier {
namespace {

TEST(Redact, UrlPasswordInUserinfoForAnySchemeCase) {
  EXPECT_EQ(RedactUrl("postgresql://me:hunter2@db.example:5432/r"), "postgresql://me:***@db.example:5432/r");
  EXPECT_EQ(RedactUrl("PostgreSQL://me:hunter2@db/r"), "PostgreSQL://me:***@db/r");
  EXPECT_EQ(RedactUrl("POSTGRES://me:hunter2@db"), "POSTGRES://me:***@db");
  EXPECT_EQ(RedactUrl("https://u:p%40ss@host/v1?x=1"), "https://u:***@host/v1?x=1");
  // A password holding '@' unescaped: the userinfo ends at the last '@'.
  EXPECT_EQ(RedactUrl("postgresql://me:a@b@db/r"), "postgresql://me:***@db/r");
  // No password: unchanged.
  EXPECT_EQ(RedactUrl("postgresql://me@db/r"), "postgresql://me@db/r");
  EXPECT_EQ(RedactUrl("postgresql:///r?host=/tmp/s&user=me"), "postgresql:///r?host=/tmp/s&user=me");
  EXPECT_EQ(RedactUrl("results.db"), "results.db");
  EXPECT_EQ(RedactUrl("http://host/a@b"), "http://host/a@b");  // '@' in the path is no userinfo
}

TEST(Redact, UrlSecretQueryParameters) {
  EXPECT_EQ(RedactUrl("postgresql:///r?host=/s&password=hunter2&user=me"),
            "postgresql:///r?host=/s&password=***&user=me");
  EXPECT_EQ(RedactUrl("PostgreSQL://db/r?PASSWORD=x&sslpassword=y#frag"),
            "PostgreSQL://db/r?PASSWORD=***&sslpassword=***#frag");
  EXPECT_EQ(RedactUrl("http://h/v1?api_key=k&token=t&n=1"), "http://h/v1?api_key=***&token=***&n=1");
  // Both at once, and redacting twice is redacting once.
  const std::string once = RedactUrl("postgres://u:p@h/d?password=q");
  EXPECT_EQ(once, "postgres://u:***@h/d?password=***");
  EXPECT_EQ(RedactUrl(once), once);
}

TEST(Redact, Headers) {
  EXPECT_EQ(RedactHeader("Authorization: Bearer sk-1"), "Authorization: ***");
  EXPECT_EQ(RedactHeader("proxy-authorization:Basic eA=="), "proxy-authorization: ***");
  EXPECT_EQ(RedactHeader("X-Api-Key: k"), "X-Api-Key: ***");
  EXPECT_EQ(RedactHeader("X-Session-Token: t"), "X-Session-Token: ***");
  EXPECT_EQ(RedactHeader("X-Client-Secret: s"), "X-Client-Secret: ***");
  EXPECT_EQ(RedactHeader("Cookie: a=b"), "Cookie: ***");
  EXPECT_EQ(RedactHeader("X-Request-Id: 7"), "X-Request-Id: 7");
  EXPECT_EQ(RedactHeader("no colon"), "no colon");
}

TEST(Redact, NamesAndFlags) {
  for (const char* n : {"Authorization", "X-API-KEY", "x-auth-token", "api_key", "password", "sslpassword",
                        "client_secret", "Cookie"})
    EXPECT_TRUE(IsSecretName(n)) << n;
  EXPECT_FALSE(IsSecretName("X-Request-Id"));
  for (const char* f : {"--api-key", "--token", "--password", "--db-password", "--client-secret", "api_key"})
    EXPECT_TRUE(IsSecretFlag(f)) << f;
  for (const char* f : {"--spec-tokens", "--max-num-batched-tokens", "--first-token-timeout", "max_tokens",
                        "--model", "--db"})
    EXPECT_FALSE(IsSecretFlag(f)) << f;
}

TEST(Redact, ArgsRedactSecretFlagsHeadersAndUrls) {
  const std::vector<std::string> args = {"bench",
                                         "--api-key",
                                         "SECRETXYZ",
                                         "--api-key=SECRETXYZ",
                                         "--header",
                                         "Authorization: Bearer SECRETXYZ",
                                         "-H",
                                         "X-Api-Key: SECRETXYZ",
                                         "--header=X-Auth-Token: SECRETXYZ",
                                         "--header",
                                         "X-Request-Id: 7",
                                         "--db",
                                         "PostgreSQL://u:SECRETXYZ@h/d",
                                         "--db=postgresql:///d?host=/s&password=SECRETXYZ",
                                         "--base-url",
                                         "http://u:SECRETXYZ@host:8000",
                                         "--num-prompts",
                                         "10"};
  const std::vector<std::string> want = {"bench",
                                         "--api-key",
                                         "***",
                                         "--api-key=***",
                                         "--header",
                                         "Authorization: ***",
                                         "-H",
                                         "X-Api-Key: ***",
                                         "--header=X-Auth-Token: ***",
                                         "--header",
                                         "X-Request-Id: 7",
                                         "--db",
                                         "PostgreSQL://u:***@h/d",
                                         "--db=postgresql:///d?host=/s&password=***",
                                         "--base-url",
                                         "http://u:***@host:8000",
                                         "--num-prompts",
                                         "10"};
  EXPECT_EQ(RedactArgs(args), want);
}

TEST(Redact, StoredCommandLineIsSplitRedactedAndRejoined) {
  EXPECT_EQ(RedactCommandLine("frontier bench --api-key SECRETXYZ --header 'Authorization: Bearer SECRETXYZ' "
                              "--db 'postgresql://u:SECRETXYZ@h/d?x=1&password=SECRETXYZ'"),
            "frontier bench --api-key '***' --header 'Authorization: ***' "
            "--db 'postgresql://u:***@h/d?x=1&password=***'");
  // A command line without secrets keeps its exact spelling.
  const std::string plain = "frontier bench  --model \"m\" --num-prompts 10";
  EXPECT_EQ(RedactCommandLine(plain), plain);
}

TEST(Redact, CommandLineIsRedactedAndQuoted) {
  const char* argv[] = {"bench", "--api-key", "SECRETXYZ", "--model", "my model"};
  const std::string line = CommandLine(5, argv);
  EXPECT_EQ(line, "frontier bench --api-key '***' --model 'my model'");
  EXPECT_EQ(RedactCommandLine(line), line);
}

TEST(Redact, FreeText) {
  EXPECT_EQ(RedactText("cannot connect to PostgreSQL://u:SECRETXYZ@h/d: refused"),
            "cannot connect to PostgreSQL://u:***@h/d: refused");
  EXPECT_EQ(RedactText("host=/s password=SECRETXYZ dbname=d"), "host=/s password=*** dbname=d");
  EXPECT_EQ(RedactText("'Authorization: Bearer SECRETXYZ' next"), "'Authorization: ***' next");
  EXPECT_EQ(RedactText("api_key: SECRETXYZ\nmodel: m\nmax_tokens: 5"), "api_key: ***\nmodel: m\nmax_tokens: 5");
  // A message naming a flag holds no secret.
  EXPECT_EQ(RedactText("--api-key: must not be empty"), "--api-key: must not be empty");
  EXPECT_EQ(RedactText("max_tokens=5, at 12:30"), "max_tokens=5, at 12:30");
}

TEST(Redact, Provenance) {
  const auto p = RedactProvenance({{"command_line", "frontier bench --api-key SECRETXYZ"},
                                   {"db", "postgres://u:SECRETXYZ@h/d"},
                                   {"api_key", "SECRETXYZ"},
                                   {"host", "node-1"}});
  EXPECT_EQ(p.at("command_line"), "frontier bench --api-key '***'");
  EXPECT_EQ(p.at("db"), "postgres://u:***@h/d");
  EXPECT_EQ(p.at("api_key"), "***");
  EXPECT_EQ(p.at("host"), "node-1");
}

}  // namespace
}  // namespace frontier
