#include "core/clock.h"

#include <ctime>

namespace frontier {

const SteadyClock& SteadyClock::Get() {
  static const SteadyClock clock;
  return clock;
}

std::string UtcTimestampNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace frontier
