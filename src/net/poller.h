// poller.h: the event loop's one wait, shared by the benchmark client,
// `frontier serve` and the scripted test server: epoll over nonblocking
// sockets, with a deadline in nanoseconds of the monotonic clock.
//
//   net::Poller p;                         // check p.ok()
//   p.Add(fd, EPOLLIN, &conn);             // the pointer comes back with each event
//   int n = p.Wait(deadline_ns);           // then p.event(i).data.ptr / .events
//
// The deadline goes to epoll_pwait2, whose timeout has nanosecond resolution,
// so a loop needs no timerfd (no timer syscalls: one wait per pass). Where
// epoll_pwait2 is missing (kernels before 5.11) it falls back to epoll_wait,
// rounding the timeout up to whole milliseconds.
//
// Thread safety: one Poller per thread; Add/Modify/Remove may be called from
// the thread that waits.
#pragma once

#include <sys/epoll.h>

#include <cstdint>
#include <vector>

#include "core/clock.h"

namespace frontier::net {

class Poller {
 public:
  explicit Poller(int max_events = 1024);
  ~Poller();
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  // epoll_ctl; return false with errno set on failure.
  bool Add(int fd, uint32_t events, void* ptr);
  bool Modify(int fd, uint32_t events, void* ptr);
  void Remove(int fd);

  // Waits until an event or `deadline` (absolute SteadyClock ns; kForever for
  // none; a past deadline polls). Returns the number of events (0 on timeout
  // or EINTR).
  static constexpr Nanos kForever = INT64_MAX;
  int Wait(Nanos deadline);
  // The same for at most `timeout` ns from now (kForever for none; 0 or less
  // polls), for a loop that keeps its deadlines on another clock (see
  // net::HttpServer): it converts the time left, not the deadline.
  int WaitFor(Nanos timeout);
  const epoll_event& event(int i) const { return events_[static_cast<size_t>(i)]; }

 private:
  int fd_ = -1;
  bool have_pwait2_ = true;
  std::vector<epoll_event> events_;
};

// An eventfd that wakes a Poller's Wait from another thread.
//   net::Waker w;  poller.Add(w.fd(), EPOLLIN, &w);  ... w.Wake() (any thread);
//   on its event: w.Drain().
class Waker {
 public:
  Waker();
  ~Waker();
  Waker(const Waker&) = delete;
  Waker& operator=(const Waker&) = delete;
  int fd() const { return fd_; }
  void Wake();   // any thread, async-signal-safe
  void Drain();  // the waiting thread, on the fd's event

 private:
  int fd_ = -1;
};

}  // namespace frontier::net
