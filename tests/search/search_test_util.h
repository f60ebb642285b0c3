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

namespace frontier::serve::testing {

struct Ran {
  int rc = -1;
  std::string out;  // stdout and stderr
  json result;      // the --result-json file, when asked for
};

inline Ran Frontier(const std::vector<std::string>& args, bool with_result = true) {
  char json_path[] = "/tmp/frontier_search_test_XXXXXX";
  char out_path[] = "/tmp/frontier_search_out_XXXXXX";
  const int fd1 = mkstemp(json_path), fd2 = mkstemp(out_path);
  close(fd1);
  close(fd2);
  std::string cmd = std::string(FRONTIER_BINARY_PATH);
  for (const auto& a : args) cmd += " '" + a + "'";
  if (with_result) cmd += " --result-json " + std::string(json_path);
  cmd += " > " + std::string(out_path) + " 2>&1";
  Ran r;
  r.rc = WEXITSTATUS(std::system(cmd.c_str()));
  std::ifstream out(out_path), res(json_path);
  std::stringstream so, sr;
  so << out.rdbuf();
  sr << res.rdbuf();
  r.out = so.str();
  if (with_result) r.result = json::parse(sr.str(), nullptr, false);
  unlink(json_path);
  unlink(out_path);
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
