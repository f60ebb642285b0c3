// search_test_util.h: run the frontier binary and read its result file; start
// `frontier serve --profile fixed` with slots in process.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "serve_test_util.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier::serve::testing {

struct Ran {
  int rc = -1;
  std::string out;  // stdout and stderr
  json result;      // the --result-json file, when asked for
};

inline Ran Frontier(const std::vector<std::string>& args, bool with_result = true) {
  testing_util::ScratchDir tmp("search_run");  // the result file and the output, removed on return
  const std::string json_path = tmp.Path("result.json"), out_path = tmp.Path("out.txt");
  std::string cmd = testing_util::TestPath("FRONTIER_BIN");
  for (const auto& a : args) cmd += " '" + a + "'";
  if (with_result) cmd += " --result-json " + json_path;
  cmd += " > " + out_path + " 2>&1";
  Ran r;
  r.rc = WEXITSTATUS(std::system(cmd.c_str()));
  r.out = testing_util::Slurp(out_path);
  if (with_result) r.result = json::parse(testing_util::Slurp(json_path), nullptr, false);
  return r;
}

// `frontier serve --profile fixed --ttft-ms 20 --itl-ms 5 --slots S`, in process.
inline std::unique_ptr<Server> StartFixedServer(int64_t slots) {
  FixedProfile p;
  p.ttft_ms = 20;
  p.itl_ms = 5;
  p.slots = slots;
  ServeOptions o = TestOptions();
  o.model_name = "fixed";
  o.record_traces = false;
  return StartServer(o, std::make_unique<FixedTiming>(p));
}

}  // namespace frontier::serve::testing
