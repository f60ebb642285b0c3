// llama_server.h: a real llama.cpp server (`llama-server`) for a test, on a
// free loopback port, serving the tiny shared model.
//
//   LlamaServer::Options o;  o.ctx = 2048;  o.metrics = true;
//   LlamaServer server(o);
//   if (!server.found()) GTEST_SKIP() << server.why();
//   ASSERT_TRUE(server.ok()) << server.why();
//   ... frontier bench --base-url server.base_url() ...
//
// Where the binary and the model are: $FRONTIER_LLAMA_SERVER, else
// <source>/../shared/tools/llama-server, else /work/shared/tools/llama-server;
// $FRONTIER_TINY_MODEL, else <source>/../shared/models/tiny-llama.gguf, else
// /work/shared/models/tiny-llama.gguf. When either is missing, found() is
// false and why() says what was looked for (the test skips); when both are
// there, the server must start (the test fails otherwise, with its log).
//
// The server runs one compute thread (-t 1: the suite shares two busy cores),
// with its output in a log file, and is killed (SIGTERM, then SIGKILL) on
// destruction; the kernel kills it if the test process dies first
// (PR_SET_PDEATHSIG). A port taken between choosing and binding is retried on
// another. Up means /health answered 200, waited for up to 60 s.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "client/models.h"
#include "util/free_port.h"
#include "util/scratch.h"
#include "util/test_paths.h"

namespace frontier::testing_llama {

namespace fs = std::filesystem;

class LlamaServer {
 public:
  struct Options {
    int ctx = 2048;                   // -c: context, shared by the slots
    int parallel = 2;                 // -np: slots (sequences batched together)
    bool metrics = false;             // --metrics: Prometheus /metrics
    std::vector<std::string> extra;   // more flags (e.g. --no-context-shift)
  };

  explicit LlamaServer(Options options) : options_(std::move(options)) {
    binary_ = Find("FRONTIER_LLAMA_SERVER", "tools/llama-server");
    model_ = Find("FRONTIER_TINY_MODEL", "models/tiny-llama.gguf");
    if (binary_.empty() || model_.empty()) {
      why_ = "no llama.cpp server to test against: set FRONTIER_LLAMA_SERVER and FRONTIER_TINY_MODEL, or put "
             "llama-server and tiny-llama.gguf in ../shared/tools and ../shared/models beside the checkout "
             "(looked for " + std::string(binary_.empty() ? "llama-server" : "tiny-llama.gguf") + ")";
      return;
    }
    found_ = true;
    static int serial = 0;
    log_ = (fs::temp_directory_path() /
            ("frontier_llama_" + std::to_string(::getpid()) + "_" + std::to_string(serial++) + ".log"))
               .string();
    for (int attempt = 0; attempt < 3 && !up_; ++attempt) Start();
  }
  ~LlamaServer() {
    Stop();
    std::error_code ec;
    if (!log_.empty()) fs::remove(log_, ec);
  }
  LlamaServer(const LlamaServer&) = delete;
  LlamaServer& operator=(const LlamaServer&) = delete;

  bool found() const { return found_; }
  bool ok() const { return up_; }
  const std::string& why() const { return why_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  // The GGUF model it serves (its vocabulary is a tokenizer: --tokenizer PATH).
  const std::string& model() const { return model_; }
  // True while the process runs and /health answers 200.
  bool Healthy() const {
    return pid_ > 0 && ::kill(pid_, 0) == 0 && Get("/health").ok();
  }
  // GET <base>/path, off the measured path.
  Result<std::string> Get(const std::string& path) const {
    client::ClientOptions o;
    o.base_url = base_url();
    return client::HttpGet(o, base_url() + path, 5 * kNanosPerSecond, 8u << 20);
  }
  std::string Log() const { return testing_util::Slurp(log_); }

 private:
  // $env, else <source>/../shared/<rel>, else /work/shared/<rel>; "" if none exists.
  static std::string Find(const char* env, const std::string& rel) {
    if (const char* v = std::getenv(env); v != nullptr && *v != '\0') return fs::exists(v) ? v : "";
    const fs::path source = testing_util::TestPath("FRONTIER_SOURCE_DIR");
    for (const fs::path& base : {source / ".." / "shared", fs::path("/work/shared")}) {
      std::error_code ec;
      const fs::path p = fs::weakly_canonical(base / rel, ec);
      if (!ec && fs::exists(p)) return p.string();
    }
    return "";
  }

  void Start() {
    port_ = testing_util::FreePort();
    std::vector<std::string> args = {binary_, "-m", model_, "--host", "127.0.0.1", "--port", std::to_string(port_),
                                     "-c", std::to_string(options_.ctx), "-np", std::to_string(options_.parallel),
                                     "-t", "1", "-tb", "1"};
    if (options_.metrics) args.push_back("--metrics");
    args.insert(args.end(), options_.extra.begin(), options_.extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);  // the test died before prctl
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::close(fd);
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    if (pid_ < 0) {
      why_ = "fork failed";
      return;
    }
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < give_up) {
      int st = 0;
      if (::waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        why_ = "llama-server exited (status " + std::to_string(st) + ") before /health answered; its log:\n" + Log();
        return;
      }
      if (Get("/health").ok()) {
        up_ = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    why_ = "llama-server's /health did not answer 200 within 60 s; its log:\n" + Log();
    Stop();
  }

  void Stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 500; ++i) {  // up to 5 s
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  Options options_;
  std::string binary_, model_, log_, why_;
  bool found_ = false, up_ = false;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace frontier::testing_llama
