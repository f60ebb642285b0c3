// `frontier calibrate`'s flags (sweep/calibration_points.h): the table's
// fields and order, and each usage message of StackCalibrationProblem with
// the values that draw it.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "sweep/calibration_points.h"

namespace frontier::sweep {
namespace {

FlagGiven Given(std::set<std::string> flags) {
  return [flags](const std::string& f) { return flags.count(f) > 0; };
}

StackCalibration Stack(const std::string& stack) {
  StackCalibration c;
  c.deployment.stack = stack;
  return c;
}

TEST(CalibrateFlags, TheTableListsEachFlagOnceInHelpOrderAndFillsItsField) {
  std::vector<std::string> names;
  for (const FlagRow<StackCalibration>& row : StackCalibrationFlagRows()) names.push_back(row.name);
  EXPECT_EQ(names, (std::vector<std::string>{"--fit", "--id", "--no-published", "--db", "--runs", "--probe",
                                             "--version", "--out", "--in-place", "--dry-run", "--no-loo", "--note",
                                             "--offline-requests", "--server-requests"}));
  // --offline-requests fills the request's simulation options, not a copy.
  const auto& row = StackCalibrationFlagRows()[12];
  StackCalibration c;
  c.*std::get<int64_t StackCalibration::*>(row.field) = 2500;
  EXPECT_EQ(static_cast<const sim::ValidationOptions&>(c).offline_requests, 2500);
  EXPECT_EQ(std::string(StackCalibrationFlagRows()[3].help),
            "Results database: a SQLite file, or postgresql://USER@HOST[:PORT]/DB (default: $FRONTIER_DB, else "
            "frontier.db); holds the measured runs (--runs)");
}

TEST(CalibrateFlags, EachUsageErrorNamesTheFlagAndTheFix) {
  EXPECT_EQ(StackCalibrationProblem(StackCalibration{}, Given({})),
            "--stack is required: the stack version to fit, or 'all'");
  EXPECT_EQ(StackCalibrationProblem(Stack("vllm-cuda"), Given({"--stack"})), "");

  StackCalibration c = Stack("vllm-cuda");
  c.db = "runs.db";
  EXPECT_EQ(StackCalibrationProblem(c, Given({"--stack", "--db"})), "--db needs --runs (frontier db ls lists them)");
  c.runs = "3,4";
  EXPECT_EQ(StackCalibrationProblem(c, Given({"--stack", "--db", "--runs", "--model"})),
            "measured runs need their deployment: --model and --hardware (and --tp, ... as run)");
  EXPECT_EQ(StackCalibrationProblem(c, Given({"--stack", "--db", "--runs", "--model", "--hardware"})), "");
  c.db.clear();
  EXPECT_EQ(StackCalibrationProblem(c, Given({"--stack", "--runs"})), "--runs needs --db");

  c = Stack("vllm-cuda");
  c.in_place = true;
  c.out_path = "x.json";
  EXPECT_EQ(StackCalibrationProblem(c, Given({})), "give one of --in-place, --version and --out");

  c = Stack("vllm-cuda");
  c.offline_requests = 99999999999999;  // used to run until the host ran out of memory
  EXPECT_EQ(StackCalibrationProblem(c, Given({})),
            "--offline-requests must be an integer in [100, 1000000], got 99999999999999");
  c.offline_requests = 100;
  c.server_requests = 99;
  EXPECT_EQ(StackCalibrationProblem(c, Given({})), "--server-requests must be an integer in [100, 1000000], got 99");
}

TEST(CalibrateFlags, AProbeFitNeedsItsDatabaseAnIdAndNoStacksFlags) {
  StackCalibration c;
  c.probe = "7";
  EXPECT_EQ(StackCalibrationProblem(c, Given({})), "--probe needs --db, the results database that holds the probe run");
  c.db = "runs.db";
  EXPECT_EQ(StackCalibrationProblem(c, Given({})), "");  // no --stack needed
  c.version = "0.9-mine";
  EXPECT_EQ(StackCalibrationProblem(c, Given({})),
            "--probe fits a GPU, not a stack: drop --runs, --stack, --in-place and --version");
  c.version.clear();
  c.probe = "0";
  EXPECT_EQ(StackCalibrationProblem(c, Given({})), "--probe takes a probe run's id (frontier db ls), got '0'");
}

}  // namespace
}  // namespace frontier::sweep
