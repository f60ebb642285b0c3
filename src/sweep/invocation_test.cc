// invocation_test.cc: `frontier sweep`'s progress and outcome lines and its
// log folders (sweep/invocation.h).
#include "sweep/invocation.h"

#include <gtest/gtest.h>

namespace frontier::sweep {
namespace {

TEST(SweepInvocation, ProgressLinesAreAlignedAndTheirNamesEscaped) {
  SweepProgress p;
  p.done = 3;
  p.total = 12;
  p.system = "vllm\x1b[2J";
  p.point = "chat/c=8";
  p.event = "done";
  p.elapsed_s = 75;
  p.eta_s = 2.5;
  const std::string line = ProgressText(p);
  EXPECT_EQ(line.rfind("[   3/12] vllm", 0), 0u) << line;
  EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
  EXPECT_NE(line.find("elapsed 1m15s  ETA 2.5s\n"), std::string::npos) << line;
  EXPECT_FALSE(AlwaysShown(p));
  p.event = "skip";
  p.detail = "2 points stored";
  EXPECT_EQ(ProgressText(p), "[3/12] resuming: 2 points stored\n");
  EXPECT_TRUE(AlwaysShown(p));
}

TEST(SweepInvocation, LogsGoBesideAFileDatabaseAndIntoTheWorkingFolderForAServer) {
  EXPECT_EQ(LocalLogDir("runs.db"), "runs.db.logs");
  EXPECT_EQ(LocalLogDir("postgresql://u@h/db"), "frontier.logs");
}

TEST(SweepInvocation, TheOutcomeCountsPointsAndNamesBrokenSystems) {
  Plan plan;
  plan.name = "p";
  SweepOutcome out;
  out.total = 4;
  out.ran = 2;
  out.skipped = 1;
  out.failed = 1;
  out.broken = {"sys: no server"};
  EXPECT_EQ(OutcomeText(plan, out, "runs.db"),
            "sweep p: 2 points run, 1 already stored, 1 failed, of 4 into runs.db\n  broken: sys: no server\n");
}

}  // namespace
}  // namespace frontier::sweep
