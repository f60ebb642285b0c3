#include "sweep/proc_scan.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/parse.h"

namespace frontier::sweep {
namespace {

// The entries of a folder, without throwing: /proc entries vanish while they
// are read, and the throwing iterator would report that as an exception.
template <typename F>
void ForEachEntry(const std::filesystem::path& dir, F f) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) f(*it);
}

// Numeric entries of /proc: every process id.
std::vector<pid_t> AllPids() {
  std::vector<pid_t> out;
  ForEachEntry("/proc", [&](const std::filesystem::directory_entry& entry) {
    const std::string name = entry.path().filename().string();
    pid_t pid = 0;
    const auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (err == std::errc() && end == name.data() + name.size()) out.push_back(pid);
  });
  return out;
}

// State and process group from /proc/PID/stat; false when it is gone.
bool ReadStat(pid_t pid, char* state, long* pgrp) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  // pid (comm) state ppid pgrp ...; comm may hold spaces, so parse after the last ')'.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 1));
  long ppid = 0;
  rest >> *state >> ppid >> *pgrp;
  return static_cast<bool>(rest);
}

// Socket inodes listening on `port` in /proc/net/tcp or tcp6.
std::set<std::string> ListeningInodes(int port) {
  std::set<std::string> inodes;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      std::istringstream f(line);
      std::string sl, local, remote, st, queues, timer, retr, uid, timeout, inode;
      if (!(f >> sl >> local >> remote >> st >> queues >> timer >> retr >> uid >> timeout >> inode)) continue;
      if (st != "0A") continue;  // TCP_LISTEN
      const size_t colon = local.rfind(':');
      if (colon == std::string::npos) continue;
      unsigned p = 0;
      const std::string hex = local.substr(colon + 1);
      const auto [end, err] = std::from_chars(hex.data(), hex.data() + hex.size(), p, 16);
      if (err == std::errc() && static_cast<int>(p) == port) inodes.insert(inode);
    }
  }
  return inodes;
}

}  // namespace

bool GroupHasLiveMembers(pid_t pgid) {
  for (const pid_t pid : AllPids()) {
    char state = 0;
    long pgrp = 0;
    // Zombies do not count: once the shell is gone its dead children belong to
    // init, which may reap them late.
    if (ReadStat(pid, &state, &pgrp) && pgrp == pgid && state != 'Z' && state != 'X') return true;
  }
  return false;
}

pid_t ProcessGroupOf(pid_t pid) {
  char state = 0;
  long pgrp = 0;
  if (!ReadStat(pid, &state, &pgrp) || state == 'Z' || state == 'X') return -1;
  return static_cast<pid_t>(pgrp);
}

PortListeners FindListeners(int port) {
  PortListeners out;
  const std::set<std::string> inodes = ListeningInodes(port);
  if (inodes.empty()) return out;
  out.listening = true;
  for (const pid_t pid : AllPids()) {
    bool holds = false;
    ForEachEntry("/proc/" + std::to_string(pid) + "/fd", [&](const std::filesystem::directory_entry& fd) {
      std::error_code lec;
      const std::string target = std::filesystem::read_symlink(fd.path(), lec).string();
      // "socket:[12345]"
      if (!lec && target.rfind("socket:[", 0) == 0 && inodes.count(target.substr(8, target.size() - 9))) holds = true;
    });
    if (holds) out.pids.push_back(pid);
  }
  return out;
}

std::string CommandOf(pid_t pid) {
  Result<std::string> raw = ReadFile("/proc/" + std::to_string(pid) + "/cmdline", 64 * 1024, "command lines");
  if (!raw.ok()) return "";
  std::string cmd = *raw;
  while (!cmd.empty() && cmd.back() == '\0') cmd.pop_back();
  for (char& c : cmd)
    if (c == '\0') c = ' ';
  if (cmd.size() > 120) cmd = cmd.substr(0, 117) + "...";
  return cmd;
}

std::vector<pid_t> ProcessesWithEnv(const std::string& name, const std::string& value) {
  const std::string want = name + "=" + value;
  std::vector<pid_t> out;
  for (const pid_t pid : AllPids()) {
    Result<std::string> env = ReadFile("/proc/" + std::to_string(pid) + "/environ", 16 * kMiB, "environments");
    if (!env.ok()) continue;
    size_t start = 0;
    while (start < env->size()) {
      size_t end = env->find('\0', start);
      if (end == std::string::npos) end = env->size();
      if (env->compare(start, end - start, want) == 0) {
        if (ProcessGroupOf(pid) > 0) out.push_back(pid);
        break;
      }
      start = end + 1;
    }
  }
  return out;
}

Result<HostPort> UrlHostPort(const std::string& url) {
  HostPort hp;
  std::string rest;
  if (url.rfind("http://", 0) == 0) {
    rest = url.substr(7);
    hp.port = 80;
  } else if (url.rfind("https://", 0) == 0) {
    rest = url.substr(8);
    hp.port = 443;
  } else {
    return InvalidArgument("'" + url + "' is not an http:// or https:// URL");
  }
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const size_t at = rest.rfind('@'); at != std::string::npos) rest = rest.substr(at + 1);
  std::string port;
  bool has_port = false;
  if (!rest.empty() && rest.front() == '[') {
    const size_t close = rest.find(']');
    if (close == std::string::npos) return InvalidArgument("'" + url + "' has an unclosed [IPv6] host");
    hp.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return InvalidArgument("'" + url + "' has junk after its [IPv6] host");
      port = rest.substr(close + 2);
      has_port = true;
    }
  } else {
    const size_t colon = rest.rfind(':');
    hp.host = rest.substr(0, colon);
    if (colon != std::string::npos) {
      port = rest.substr(colon + 1);
      has_port = true;
    }
  }
  if (hp.host.empty()) return InvalidArgument("'" + url + "' has no host");
  if (has_port) {
    FRONTIER_ASSIGN_OR_RETURN(int64_t p, ParseInt("the port of " + url, port, 1, 65535));
    hp.port = static_cast<int>(p);
  }
  return hp;
}

bool IsLocalHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "0.0.0.0" || host == "::" ||
         host.rfind("127.", 0) == 0;
}

std::string BootId() {
  Result<std::string> id = ReadFile("/proc/sys/kernel/random/boot_id", 4096, "boot ids");
  if (!id.ok()) return "";
  std::string s = *id;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace frontier::sweep
