// api_fixture.h: the dashboard's JSON API over the known database of
// test_db.h, for the API's tests (api_test.cc, api_points_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "dashboard/api.h"
#include "dashboard/test_db.h"

namespace frontier::dashboard::testing {

// t(0.975, 1): the 95% two-sided Student-t value for two repetitions.
inline constexpr double kT1 = 12.706;

class ApiFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    KnownDb db = OpenKnownDb();
    ASSERT_TRUE(db.writer && db.reader);
    dir_ = std::move(db.dir);
    path_ = db.path;
    writer_ = std::move(db.writer);
    reader_ = std::move(db.reader);
    data_ = std::make_unique<DashboardData>(*reader_, [](const std::string& hw) -> std::optional<report::HardwareFacts> {
      if (hw == "h200") return report::HardwareFacts{3.6, "test", 700};
      if (hw == "mi325x") return report::HardwareFacts{2.0, "test", 1000};
      return std::nullopt;
    });
    api_ = std::make_unique<Api>(*data_, ApiOptions{path_, false, "test"});
  }

  nlohmann::json Get(const std::string& path, const std::string& query, int want_status = 200) {
    ApiResponse r = api_->Handle("GET", path, query, "");
    EXPECT_EQ(r.status, want_status) << path << "?" << query << ": " << r.body;
    return nlohmann::json::parse(r.body);
  }

  std::unique_ptr<testing_util::ScratchDir> dir_;  // holds the database: goes after the stores close
  std::string path_;
  std::unique_ptr<store::Store> writer_, reader_;
  std::unique_ptr<DashboardData> data_;
  std::unique_ptr<Api> api_;
};

}  // namespace frontier::dashboard::testing
