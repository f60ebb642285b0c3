// request_spec_test_util.h: tests' comparison of two request lists, field
// by field (the dataset's tests and the sweep's dataset cache's).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workload/request_spec.h"

namespace frontier::workload::testing {

// Every field of two request lists, in order; `what` names the pair in failures.
inline void ExpectSameSpecs(const std::vector<RequestSpec>& got, const std::vector<RequestSpec>& want,
                            const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(what + " request " + std::to_string(i));
    EXPECT_EQ(got[i].id, want[i].id);
    EXPECT_EQ(got[i].input_len, want[i].input_len);
    EXPECT_EQ(got[i].output_len, want[i].output_len);
    EXPECT_EQ(got[i].prompt_token_ids, want[i].prompt_token_ids);
    EXPECT_EQ(got[i].prompt_text, want[i].prompt_text);
    EXPECT_EQ(got[i].want_output_ids, want[i].want_output_ids);
    EXPECT_EQ(got[i].cancel_after_tokens, want[i].cancel_after_tokens);
    EXPECT_EQ(got[i].cancel_after_ns, want[i].cancel_after_ns);
  }
}

}  // namespace frontier::workload::testing
