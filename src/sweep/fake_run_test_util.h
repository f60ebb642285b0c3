// fake_run_test_util.h: the run the sweep tests' fake sessions return, one
// shape for all of them (runner_test.cc, point_store_test.cc) so their
// expected figures are computed from the same requests.
#pragma once

#include <cstdint>

#include "core/run_result.h"

namespace frontier::sweep::testing_run {

// A run of `n` requests from `source`, each 10 in + 5 out tokens: sent at 0,
// one token a millisecond from the first at 1 ms, ended at 5 ms.
inline RunResult FakeRun(int64_t n, RunSource source = RunSource::kSimulated) {
  RunResult r;
  r.source = source;
  for (int64_t i = 0; i < n; ++i) {
    RequestRecord q;
    q.id = i;
    q.ok = true;
    q.prompt_tokens = 10;
    q.output_tokens = 5;
    q.sent_ns = 0;
    q.first_token_ns = 1'000'000;
    for (int k = 1; k <= 5; ++k) q.events.push_back({k * 1'000'000, 1});
    q.end_ns = 5'000'000;
    r.requests.push_back(q);
  }
  return r;
}

}  // namespace frontier::sweep::testing_run
