// Secrets never leave the process: a real `frontier bench` run given an API
// key, authorization-like headers and a database URL with a password (on
// PostgreSQL when the test can start one, and a SQLite run beside it), then
// every artifact it leaves (its output, result JSON and request JSONL, the
// database's bytes or rows, `db ls`, both exports, a `db copy`, the report's
// tables and HTML) searched for the secret. The server must have received the
// secret, so the search cannot pass for want of one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "testing/scripted_server.h"
#include "tests/store/pg_server.h"
#include "tests/store/store_cli_util.h"
#include "util/scratch.h"

namespace frontier {
namespace {

namespace fs = std::filesystem;
using testing_pg::PgServer;
using testing_store::Frontier;
using testing_store::Quote;

constexpr const char* kSecret = "SECRETXYZ";

std::unique_ptr<testing::ScriptedServer> Server() {
  testing::ScriptedServer::Options o;
  o.script = [](const testing::RequestInfo&) {
    testing::Script s;
    s.ttft = s.interval = kNanosPerMilli;
    s.events = 4;
    return s;
  };
  auto s = testing::ScriptedServer::Start(o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

std::string ReadBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs everything that writes or shows what `db` holds, each artifact into
// `dir`; returns (name, text) of every one.
std::vector<std::pair<std::string, std::string>> RunAndCollect(const testing::ScriptedServer& server,
                                                               const std::string& db, const fs::path& dir) {
  std::vector<std::pair<std::string, std::string>> seen;
  auto run = [&](const std::string& name, const std::string& args) {
    auto [rc, out] = Frontier(args);
    EXPECT_EQ(rc, 0) << name << ": " << out;
    seen.emplace_back(name + " output", out);
    return out;
  };
  const std::string s = kSecret;
  const std::string bench = run(
      "bench", "bench --no-progress --base-url " + server.base_url() +
                   " --model m --input-len 16 --output-len 4 --num-prompts 4 --max-concurrency 2"
                   " --api-key " + s + " --header " + Quote("Authorization: Bearer " + s) +
                   " --header " + Quote("X-Api-Key: " + s) + " --header " + Quote("proxy-authorization: " + s) +
                   " --header=" + Quote("X-Session-Token: " + s) +
                   " --result-json " + Quote((dir / "result.json").string()) +
                   " --requests-jsonl " + Quote((dir / "requests.jsonl").string()) + " --db " + Quote(db));
  EXPECT_NE(bench.find("created results database"), std::string::npos) << bench;
  run("db ls", "db ls --db " + Quote(db));
  run("db export json", "db export --format json -o " + Quote((dir / "export.json").string()) + " --db " + Quote(db));
  run("db export csv", "db export --format csv --db " + Quote(db));
  run("db copy", "db copy --from " + Quote(db) + " --to " + Quote((dir / "copy.db").string()));
  run("report", "report --db " + Quote(db) + " -o " + Quote((dir / "report.html").string()));
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) seen.emplace_back(e.path().filename().string(), ReadBytes(e.path()));
  return seen;
}

void ExpectNoSecret(const std::vector<std::pair<std::string, std::string>>& seen, size_t min_artifacts) {
  EXPECT_GE(seen.size(), min_artifacts);
  for (const auto& [name, text] : seen) {
    // `db export -o` prints nothing; every file holds something.
    if (name.find(" output") == std::string::npos) {
      EXPECT_FALSE(text.empty()) << name;
    }
    const size_t at = text.find(kSecret);
    EXPECT_EQ(at, std::string::npos) << name << " holds the secret: ..."
                                     << text.substr(at == std::string::npos ? 0 : (at > 80 ? at - 80 : 0), 160);
    std::cout << "  " << name << ": " << text.size() << " bytes, secret "
              << (at == std::string::npos ? "absent" : "FOUND") << "\n";
  }
}

// The secret reached the server both ways the client sends one.
void ExpectServerSawSecret(const testing::ScriptedServer& server) {
  const auto served = server.Served();
  ASSERT_FALSE(served.empty());
  EXPECT_EQ(served[0].request.Header("authorization").find(kSecret) != std::string::npos, true);
  EXPECT_EQ(served[0].request.Header("x-api-key"), kSecret);
}

TEST(Secrets, NoArtifactOfASqliteRunHoldsTheApiKeyOrHeaderValues) {
  auto server = Server();
  ASSERT_NE(server, nullptr);
  testing_util::ScratchDir tmp("secrets_sqlite");
  const fs::path out = tmp.dir / "out";
  fs::create_directories(out);
  const auto seen = RunAndCollect(*server, (out / "r.db").string(), out);
  ExpectServerSawSecret(*server);
  std::cout << "SQLite run, every artifact searched for " << kSecret << ":\n";
  // 6 outputs, result.json, requests.jsonl, export.json, report.html, r.db, copy.db.
  ExpectNoSecret(seen, 12);
}

TEST(Secrets, NoArtifactOfAPostgresRunHoldsItsPasswordTheApiKeyOrHeaderValues) {
  PgServer pg;
  if (!pg.ok()) GTEST_SKIP() << "PostgreSQL could not start: " << pg.why();
  ASSERT_FALSE(pg.CreateDatabase("secrets").empty()) << pg.why();
  auto server = Server();
  ASSERT_NE(server, nullptr);
  testing_util::ScratchDir tmp("secrets_pg");
  // The server trusts local connections, so the password is ignored by it but
  // not by frontier: the scheme in mixed case, the password both in the
  // userinfo and as a parameter.
  const std::string url = "PostgreSQL://frontier:" + std::string(kSecret) + "@/secrets?host=" + pg.folder() +
                          "&password=" + kSecret;
  auto seen = RunAndCollect(*server, url, tmp.dir);
  ExpectServerSawSecret(*server);
  // Every row of every table, as text.
  const std::string plain = pg.Url("secrets");
  const std::string tables = pg.Query(
      plain, "SELECT string_agg(table_name, ',') FROM information_schema.tables WHERE table_schema = 'public'");
  ASSERT_NE(tables, "<error>") << pg.why();
  std::stringstream names(tables);
  for (std::string t; std::getline(names, t, ',');) {
    const std::string rows = pg.Query(plain, "SELECT coalesce(string_agg(t::text, '\n'), '(empty)') FROM " + t + " t");
    ASSERT_NE(rows, "<error>") << pg.why();
    seen.emplace_back("table " + t, rows);
  }
  std::cout << "PostgreSQL run, every artifact searched for " << kSecret << ":\n";
  ExpectNoSecret(seen, 12);
}

}  // namespace
}  // namespace frontier
