#include "net/listen.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace frontier::net {
namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

Result<Listener> ListenTcp(const std::string& host, int port, int backlog) {
  sockaddr_storage addr{};
  socklen_t len = 0;
  int family = AF_INET;
  if (host.find(':') != std::string::npos) {
    auto* a6 = reinterpret_cast<sockaddr_in6*>(&addr);
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET6, host.c_str(), &a6->sin6_addr) != 1)
      return InvalidArgument("--host '" + host + "' is not a numeric IPv6 address");
    family = AF_INET6;
    len = sizeof(sockaddr_in6);
  } else {
    auto* a4 = reinterpret_cast<sockaddr_in*>(&addr);
    a4->sin_family = AF_INET;
    a4->sin_port = htons(static_cast<uint16_t>(port));
    const std::string numeric = host == "localhost" ? "127.0.0.1" : host;
    if (inet_pton(AF_INET, numeric.c_str(), &a4->sin_addr) != 1)
      return InvalidArgument("--host '" + host + "' is not a numeric IPv4 address (e.g. 127.0.0.1)");
    len = sizeof(sockaddr_in);
  }
  Listener l;
  l.fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (l.fd < 0) return IoError(Errno("socket"));
  auto fail = [&](const std::string& what) -> Status {
    Status s = IoError(Errno(what));
    close(l.fd);
    return s;
  };
  int one = 1;
  setsockopt(l.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(l.fd, reinterpret_cast<sockaddr*>(&addr), len) != 0)
    return fail("cannot bind " + host + ":" + std::to_string(port) +
                " (is the port in use? choose another with --port)");
  if (listen(l.fd, backlog) != 0) return fail("listen");
  sockaddr_storage bound{};
  socklen_t blen = sizeof(bound);
  getsockname(l.fd, reinterpret_cast<sockaddr*>(&bound), &blen);
  l.port = ntohs(family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                    : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return l;
}

}  // namespace frontier::net
