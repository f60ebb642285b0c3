// listen.h: a nonblocking TCP listening socket on a numeric address, the one
// way `frontier serve` and `frontier dashboard` bind.
//
//   FRONTIER_ASSIGN_OR_RETURN(net::Listener l, net::ListenTcp("127.0.0.1", 0, 128));
//   ... l.fd (nonblocking, close-on-exec), l.port (the bound port when 0 was asked) ...
//
// Thread safety: a function; the caller owns (and closes) the descriptor.
#pragma once

#include <string>

#include "core/status.h"

namespace frontier::net {

struct Listener {
  int fd = -1;
  int port = 0;
};

// Binds `host` ("127.0.0.1", "::1", "0.0.0.0", "localhost" = 127.0.0.1) and
// `port` (0: any free one) with SO_REUSEADDR, and listens. InvalidArgument
// naming --host when it is not a numeric address; IoError naming the address
// when it cannot be bound (for example, the port is in use).
Result<Listener> ListenTcp(const std::string& host, int port, int backlog);

}  // namespace frontier::net
