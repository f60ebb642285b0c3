// transport.h: internal to the client. The two ways StreamClient moves bytes:
// its own HTTP/1.1 transport on an epoll loop for http:// (http1_transport.cc,
// the fast path) and libcurl's multi-socket interface for https://
// (curl_transport.cc). Both share ResponseStream for everything after the
// bytes arrive. Not part of the client's interface.
//
// Time: a transport reads time only through the Clock it was built with
// (the request's stamps, its deadlines); its waits in epoll stay real, for
// the clock's time left until the deadline (RealDeadline).
//
// Thread safety: one thread per transport.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "client/response_stream.h"
#include "client/stream_client.h"
#include "net/poller.h"

namespace frontier::client::internal {

class Transport {
 public:
  using OnDone = StreamClient::OnDone;
  explicit Transport(const Clock& clock)
      : clock_(clock), steady_(dynamic_cast<const SteadyClock*>(&clock) != nullptr) {}
  virtual ~Transport() = default;
  // Starts request spec.id with the request body built; sent_ns is `sent`.
  virtual void Start(const StreamSpec& spec, std::string body, Nanos sent) = 0;
  virtual void Poll(Nanos deadline, const OnDone& done) = 0;
  virtual void AbortAll(const char* reason, const OnDone& done) = 0;
  // Ends request `id` now as cancelled (its connection closed), handed to
  // `done`; false when it is not in flight.
  virtual bool Cancel(int64_t id, const OnDone& done) = 0;
  virtual size_t InFlight() const = 0;
  // Any thread: makes a Poll in progress (or the next one) return at once.
  void Wake() { waker_.Wake(); }
  int64_t wakeups() const { return wakeups_; }
  StreamContext& context() { return ctx_; }
  const Clock& clock() const { return clock_; }

 protected:
  // `deadline` on the clock, read at `now`, as the absolute SteadyClock time
  // a real wait (net::Poller::Wait) ends: the same on a SteadyClock, else
  // the clock's time left from now on the steady clock.
  Nanos RealDeadline(Nanos deadline, Nanos now) const {
    if (steady_ || deadline == net::Poller::kForever) return deadline;
    return SteadyClock::MonotonicNow() + std::max<Nanos>(0, deadline - now);
  }

  const Clock& clock_;
  const bool steady_;  // clock_ is a SteadyClock: its deadlines need no conversion
  net::Waker waker_;
  StreamContext ctx_;
  int64_t wakeups_ = 0;
};

// The request head lines every request carries, in "Name: value" form.
std::vector<std::string> RequestHeaders(const ClientOptions& o);

// http://host[:port][/prefix]: InvalidArgument naming --base-url when malformed.
Result<std::unique_ptr<Transport>> NewHttp1Transport(const ClientOptions& o, const std::string& host,
                                                    int port, const std::string& path, const Clock& clock);
Result<std::unique_ptr<Transport>> NewCurlTransport(const ClientOptions& o, const std::string& url,
                                                   const Clock& clock);

}  // namespace frontier::client::internal
