// The results database and the sweep, db, compare and report verbs under
// careless or hostile input, through the binary: every case ends promptly
// with one line naming the input, the value and what is allowed, a usage
// exit status, and nothing written that should not be.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "sweep_test_util.h"
#include "util/test_paths.h"
#include "store/sqlite_store.h"
#include "store/store.h"

namespace frontier {
namespace {

using namespace testing_cli;

// The sample files under src/store/testdata, with a trailing slash.
std::string Data() { return testing_util::TestPath("FRONTIER_SOURCE_DIR") + "/src/store/testdata/"; }

using testing_util::ExecSql;

// A database holding the two test imports (runs 1..3).
std::string ImportedDb(const Tmp& tmp) {
  const std::string db = tmp.Path("f.db");
  EXPECT_EQ(Frontier("db import " + Data() + "agg_llama70b_fp8.json " + Data() + "vllm_bench_serve.json --db " + db)
                .first,
            0);
  return db;
}

TEST(BadInputCli, EndlessFilesEndPromptlyWithTheBound) {
  Tmp tmp("zero");
  const auto t0 = std::chrono::steady_clock::now();
  auto [rc, out] = Frontier("sweep /dev/zero --db " + tmp.Path("f.db"));
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(out, "frontier sweep: /dev/zero: larger than 16 MiB, the bound on plan files (docs/limits.md); set "
                 "FRONTIER_MAX_INPUT_MB to raise it\n");
  std::tie(rc, out) = Frontier("db import /dev/zero --db " + tmp.Path("f.db"));
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(out, "frontier db import: /dev/zero: larger than 512 MiB, the bound on imported result files "
                 "(docs/limits.md); set FRONTIER_MAX_INPUT_MB to raise it\n");
  std::tie(rc, out) = testing_cli::Run("FRONTIER_MAX_INPUT_MB=1 " + Binary() + " db import /dev/zero --db " + tmp.Path("f.db"));
  EXPECT_EQ(rc, 2);
  EXPECT_NE(out.find("larger than 1 MiB"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(tmp.Path("f.db")));
  // Generous for a loaded machine; unbounded reads never ended.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(120));
}

TEST(BadInputCli, ImportOfAWrongTypeIsAUsageErrorNotAnAbort) {
  Tmp tmp("itls");
  const std::string file = tmp.Write("v.json", R"({"completed": 3, "output_throughput": 1,
      "total_token_throughput": 2, "ttfts": [0.1], "itls": "nope"})");
  auto [rc, out] = Frontier("db import " + file + " --db " + tmp.Path("f.db"));
  EXPECT_EQ(rc, 2) << out;
  EXPECT_EQ(out, "frontier db import: " + file + ": itls must be a list with one entry per request, got \"nope\"\n");
  EXPECT_FALSE(fs::exists(tmp.Path("f.db")));
}

TEST(BadInputCli, ImportedNonsenseIsRefusedAndNothingIsStored) {
  Tmp tmp("nonsense");
  const std::string db = ImportedDb(tmp);
  const std::pair<std::string, std::string> cases[] = {
      {R"({"completed": 1e30, "output_throughput": 1, "total_token_throughput": 2})",
       "completed must be an integer in [0, 1000000000000], got 1e+30"},
      {R"({"completed": 4, "output_throughput": 1, "total_token_throughput": 2, "ttfts": [null, "a", -1, 1e308]})",
       "ttfts[0] must be a number in [0, 1000000], got null"},
      {R"({"completed": 1, "output_throughput": 1, "total_token_throughput": 2, "mean_ttft_ms": "fast"})",
       "mean_ttft_ms must be a number in [0, 1000000000], got 'fast'"},
      {R"({"completed": 1, "output_throughput": 1, "total_token_throughput": 2, "max_concurrency": -5})",
       "max_concurrency must be an integer in [1, 10000000], got -5"},
      {R"([{"hw": "h200", "conc": -1, "tp": 8, "tput_per_gpu": 1, "output_tput_per_gpu": 1}])",
       "record 0: conc must be an integer in [1, 10000000], got -1"},
      {R"([{"hw": "h200", "conc": 4, "num_gpus": 0, "tput_per_gpu": 1, "output_tput_per_gpu": 1}])",
       "record 0: num_gpus must be an integer in [1, 1000000], got 0"},
      {R"([{"hw": "h200", "conc": 4, "tp": 0, "tput_per_gpu": 1, "output_tput_per_gpu": 1}])",
       "record 0: tp must be an integer in [1, 1000000], got 0"},
      {R"([{"hw": "h200", "conc": 4, "tp": 8, "tput_per_gpu": 1e308, "output_tput_per_gpu": 1}])",
       "record 0: tput_per_gpu must be a number in [0, 1000000000], got 1e+308"},
  };
  const std::string before = Slurp(db);
  int i = 0;
  for (const auto& [text, message] : cases) {
    const std::string file = tmp.Write("bad" + std::to_string(i++) + ".json", text);
    auto [rc, out] = Frontier("db import " + file + " --db " + db);
    EXPECT_EQ(rc, 2) << text;
    EXPECT_EQ(out, "frontier db import: " + file + ": " + message + "\n");
  }
  EXPECT_EQ(Slurp(db), before);
  auto [rc, out] = Frontier("db ls --db " + db);
  EXPECT_NE(out.find("3 runs, 6 points"), std::string::npos) << out;
}

TEST(BadInputCli, BadSchemaVersionsAreNamedNotCrashed) {
  Tmp tmp("schema");
  const std::string db = ImportedDb(tmp);
  for (const std::string& bad : std::vector<std::string>{"-1", "-2", "abc", "99999999999"}) {
    ExecSql(db, "UPDATE meta SET value = '" + bad + "' WHERE key = 'schema_version'");
    for (const std::string& verb : std::vector<std::string>{"db ls", "db export", "report", "compare --baseline 1 --candidate 2",
                                   "db import " + Data() + "vllm_bench_serve.json"}) {
      auto [rc, out] = Frontier(verb + " --db " + db);
      const std::string expected =
          bad == "99999999999"
              ? db + " has schema version 99999999999, newer than this frontier's " +
                    std::to_string(store::kSchemaVersion) + "; use a newer frontier to read it\n"
              : db + ": meta.schema_version must be an integer in [1, " + std::to_string(store::kSchemaVersion) +
                    "], got '" + bad + "'; the database is damaged or was not written by frontier\n";
      EXPECT_EQ(rc, bad == "99999999999" ? 1 : 2) << verb << " " << bad << ": " << out;
      EXPECT_NE(out.find(expected), std::string::npos) << verb << " " << bad << ": " << out;
    }
  }
}

TEST(BadInputCli, CompareRunIdsBeyondInt64AreNamed) {
  Tmp tmp("ids");
  const std::string db = ImportedDb(tmp);
  auto [rc, out] = Frontier("compare --baseline 99999999999999999999999 --candidate 2 --db " + db);
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(out, "frontier compare: --baseline: run '99999999999999999999999' is not a run id (run id must be an "
                 "integer in [1, 9223372036854775807], got '99999999999999999999999'); give an id, SWEEP/SYSTEM "
                 "or SWEEP/SYSTEM~N (`frontier db ls` lists runs)\n");
  std::tie(rc, out) = Frontier("compare --baseline 1 --candidate import/h200-vllm-fp8~99999999999999999999 --db " + db);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(out.find("has a bad ~N suffix (~N must be an integer in [0, 9223372036854775807], got "
                     "'99999999999999999999')"),
            std::string::npos)
      << out;
}

TEST(BadInputCli, AMistypedDatabaseIsAnErrorAndNeverCreated) {
  Tmp tmp("typo");
  const std::string typo = tmp.Path("frontier.bd");
  for (const std::string& verb : std::vector<std::string>{"db ls", "db export", "report", "compare --baseline 1 --candidate 1"}) {
    auto [rc, out] = Frontier(verb + " --db " + typo);
    EXPECT_EQ(rc, 2) << verb;
    EXPECT_NE(out.find("results database " + typo + " does not exist (`frontier sweep` and `frontier db import` "
                       "create one; is --db mistyped?)"),
              std::string::npos)
        << verb << ": " << out;
    EXPECT_FALSE(fs::exists(typo)) << verb;
  }
  // The verbs that create a database say so.
  auto [rc, out] = Frontier("db import " + Data() + "vllm_bench_serve.json --db " + typo);
  EXPECT_EQ(rc, 0);
  EXPECT_NE(out.find("frontier db import: created results database " + typo), std::string::npos) << out;
}

TEST(BadInputCli, ReadOnlyDatabasesWorkForEveryReadingVerbAndAreNeverWritten) {
  Tmp tmp("ro");
  const std::string db = ImportedDb(tmp);
  ASSERT_FALSE(fs::exists(db + "-wal"));
  fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(tmp.dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                               fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  // The unprivileged user reads its import input from the test's folder: the checkout may sit
  // in a folder only its owner can enter.
  const std::string input = tmp.Path("vllm_bench_serve.json");
  fs::copy_file(Data() + "vllm_bench_serve.json", input);
  fs::permissions(input, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const std::string before = Slurp(db);
  for (const std::string& verb : std::vector<std::string>{"db ls", "db export --format csv", "report -q", "compare --baseline 1 --candidate 1"}) {
    auto [rc, out] = FrontierUnprivileged(verb + " --db " + db);
    EXPECT_EQ(rc, 0) << verb << ": " << out;
  }
  auto [rc, out] = FrontierUnprivileged("db ls --db " + db);
  EXPECT_NE(out.find("3 runs, 6 points"), std::string::npos) << out;
  std::tie(rc, out) = FrontierUnprivileged("db import " + input + " --db " + db);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("results database " + db + " is read-only; this command writes to it"), std::string::npos)
      << out;
  EXPECT_EQ(Slurp(db), before);
  EXPECT_FALSE(fs::exists(db + "-shm"));
  EXPECT_FALSE(fs::exists(db + "-wal"));
}

TEST(BadInputCli, NotANumberIsNotInAnyRange) {
  Tmp tmp("nan");
  const std::string db = ImportedDb(tmp);
  const std::pair<std::string, std::string> cases[] = {
      {"compare --baseline 1 --candidate 1 --min-change nan",
       "frontier compare: --min-change must be a number in [0, 1], got nan\n"},
      {"compare --baseline 1 --candidate 1 --threshold nan",
       "frontier compare: --threshold must be a number in [0, 1], got nan\n"},
      {"report --targets 25,nan", "frontier report: --targets must be a number in [1e-09, 1000000000], got nan\n"},
      {"report --targets -5", "frontier report: --targets must be a number in [1e-09, 1000000000], got -5\n"},
      {"report --price h200=1e300",
       "frontier report: --price: expected HW=USD with USD in (0, 10000] (e.g. h200=3.5), got 'h200=1e300'\n"},
  };
  for (const auto& [args, message] : cases) {
    auto [rc, out] = Frontier(args + " --db " + db);
    EXPECT_EQ(rc, 2) << args;
    EXPECT_EQ(out, message) << args;
  }
}

TEST(BadInputCli, OutputThatCannotBeWrittenFailsAndNothingIsReplaced) {
  Tmp tmp("full");
  const std::string db = ImportedDb(tmp);
  // Standard output on a full device used to end with exit 0 and the export lost.
  auto [rc, out] = testing_cli::Run("{ " + Binary() + " db export --db " + db + " >/dev/full; }");
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(out, "frontier db: cannot write to standard output (a full disk or a closed pipe); what it printed is "
                 "incomplete\n");
  std::tie(rc, out) = testing_cli::Run("{ " + Binary() + " report --db " + db + " >/dev/full; }");
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(out, "frontier report: cannot write to standard output (a full disk or a closed pipe); what it printed is "
                 "incomplete\n");
  // -o naming a pipe writes into it (it used to be renamed over, leaving a regular file).
  const std::string fifo = tmp.Path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::tie(rc, out) = testing_cli::Run("{ cat " + fifo + " >" + tmp.Path("got.csv") + " & } ; " + Binary() + " db export --db " +
                          db + " --format csv -o " + fifo + " && wait");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(Slurp(tmp.Path("got.csv")).rfind("run_id,run,system", 0), 0u);
}

TEST(BadInputCli, MessagesNameTheRealCause) {
  Tmp tmp("cause");
  // The simulator's complaint about a plan's system names the plan's fields, not simulate's flags.
  const std::string plan = tmp.Write("p.yaml", R"(name: x
systems:
  - {name: s, hardware: h100, gpus: 3, sim: {model: llama-3.1-8b, tp: 3}}
workloads:
  - {name: w, input_len: 10, output_len: 10}
load:
  concurrency: [1]
)");
  auto [rc, out] = Frontier("sweep " + plan + " --db " + tmp.Path("f.db") + " -q");
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("broken: s: " + plan + ":3: sim.tp 3 does not divide the 32 attention heads of llama-3.1-8b"),
            std::string::npos)
      << out;
  // A missing folder is named as such, not as a failure to open a database or a temporary file.
  std::tie(rc, out) = Frontier("db import " + Data() + "vllm_bench_serve.json --db " + tmp.Path("no/such/f.db"));
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(out, "frontier db import: cannot create results database " + tmp.Path("no/such/f.db") +
                     ": its folder " + tmp.Path("no/such") + " does not exist\n");
  const std::string db = ImportedDb(tmp);
  std::tie(rc, out) = Frontier("report -q --db " + db + " -o " + tmp.Path("no/r.html"));
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(out, "frontier report: cannot write " + tmp.Path("no/r.html") + ": its folder does not exist\n");
  // A file that is not a database is named as such.
  std::tie(rc, out) = Frontier("db ls --db " + plan);
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(out, "frontier db: " + plan + " is not a SQLite database (--db names another file?)\n");
}

}  // namespace
}  // namespace frontier
