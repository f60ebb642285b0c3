#include "net/poller.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

namespace frontier::net {

Poller::Poller(int max_events) : events_(static_cast<size_t>(max_events > 0 ? max_events : 1)) {
  fd_ = epoll_create1(EPOLL_CLOEXEC);
}

Poller::~Poller() {
  if (fd_ >= 0) close(fd_);
}

bool Poller::Add(int fd, uint32_t events, void* ptr) {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = ptr;
  return epoll_ctl(fd_, EPOLL_CTL_ADD, fd, &ev) == 0;
}

bool Poller::Modify(int fd, uint32_t events, void* ptr) {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = ptr;
  return epoll_ctl(fd_, EPOLL_CTL_MOD, fd, &ev) == 0;
}

void Poller::Remove(int fd) { epoll_ctl(fd_, EPOLL_CTL_DEL, fd, nullptr); }

int Poller::Wait(Nanos deadline) {
  return WaitFor(deadline == kForever ? kForever : deadline - SteadyClock::MonotonicNow());
}

int Poller::WaitFor(Nanos timeout) {
  const int max = static_cast<int>(events_.size());
  const Nanos wait = timeout == kForever ? -1 : std::max<Nanos>(timeout, 0);  // -1: forever
  int n;
  if (have_pwait2_) {
    timespec ts{wait / kNanosPerSecond, wait % kNanosPerSecond};
    n = epoll_pwait2(fd_, events_.data(), max, wait < 0 ? nullptr : &ts, nullptr);
    if (n < 0 && errno == ENOSYS) {
      have_pwait2_ = false;
      return WaitFor(timeout);
    }
  } else {
    const int ms = wait < 0 ? -1 : static_cast<int>(std::min<Nanos>((wait + kNanosPerMilli - 1) / kNanosPerMilli, INT32_MAX));
    n = epoll_wait(fd_, events_.data(), max, ms);
  }
  return n < 0 ? 0 : n;
}

Waker::Waker() { fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

Waker::~Waker() {
  if (fd_ >= 0) close(fd_);
}

void Waker::Wake() {
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = write(fd_, &one, sizeof(one));
}

void Waker::Drain() {
  uint64_t v;
  [[maybe_unused]] const ssize_t n = read(fd_, &v, sizeof(v));
}

}  // namespace frontier::net
