// proc_scan.h: what Linux's /proc says about other processes, for keeping
// launched servers honest: whether a process group still has live members,
// which processes listen on a TCP port, which carry a marker in their
// environment, and where a URL points.
//
// Only processes this user may inspect are seen (all of them for root).
//
// Thread safety: pure functions over /proc.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/status.h"

namespace frontier::sweep {

// True while a live (non-zombie) process belongs to process group `pgid`.
bool GroupHasLiveMembers(pid_t pgid);

struct PortListeners {
  bool listening = false;    // a socket listens on the port (in this network namespace)
  std::vector<pid_t> pids;   // the processes holding it that this user can inspect
};
// Who listens on TCP `port`, IPv4 or IPv6, on any local address.
PortListeners FindListeners(int port);

// The process group of `pid`, or -1 when it is gone.
pid_t ProcessGroupOf(pid_t pid);
// The command line of `pid` as one line ("" when unreadable), for messages.
std::string CommandOf(pid_t pid);
// The live processes whose environment holds exactly `name=value`.
std::vector<pid_t> ProcessesWithEnv(const std::string& name, const std::string& value);

// Host and port of an http:// or https:// URL (ports default to 80 and 443;
// IPv6 hosts in brackets). InvalidArgument naming the URL otherwise.
struct HostPort {
  std::string host;
  int port = 0;
};
Result<HostPort> UrlHostPort(const std::string& url);
// True for names of this machine: localhost, 127.0.0.0/8, ::1, 0.0.0.0, ::.
bool IsLocalHost(const std::string& host);

// This machine's boot id (/proc/sys/kernel/random/boot_id): process ids mean
// nothing across a reboot.
std::string BootId();

}  // namespace frontier::sweep
