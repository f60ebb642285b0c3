#include "core/parse.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace frontier {
namespace {

// A short, printable quote of outside text for a message.
std::string Quote(std::string_view text) {
  constexpr size_t kMax = 40;
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (text.size() > kMax) out += "...";
  return out + "'";
}

std::string Range(double min, double max) {
  return "[" + FormatNumber(min) + ", " + FormatNumber(max) + "]";
}

}  // namespace

std::string FormatNumber(double v) {
  char buf[40];
  if (std::isfinite(v) && std::fabs(v) < 1e15 && v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.10g", v);
  }
  return buf;
}

std::string FormatSignificant(double v, int digits) {
  char buf[40];  // "-1.2345678901234567e+308" and a NUL at 17 digits
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string FormatShortest(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

Status CheckRange(std::string_view field, int64_t value, int64_t min, int64_t max) {
  if (value >= min && value <= max) return Status::Ok();
  return InvalidArgument(std::string(field) + " must be an integer in [" + std::to_string(min) + ", " +
                         std::to_string(max) + "], got " + std::to_string(value));
}

Status CheckRange(std::string_view field, double value, double min, double max) {
  if (std::isfinite(value) && value >= min && value <= max) return Status::Ok();
  return InvalidArgument(std::string(field) + " must be a number in " + Range(min, max) + ", got " +
                         FormatNumber(value));
}

Result<int64_t> ParseInt(std::string_view field, std::string_view text, int64_t min, int64_t max) {
  auto bad = [&] {
    return InvalidArgument(std::string(field) + " must be an integer in [" + std::to_string(min) + ", " +
                           std::to_string(max) + "], got " + Quote(text));
  };
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  if (digits.empty() || digits.front() == '+') return bad();
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return bad();
  if (v < min || v > max) return bad();
  return v;
}

Result<double> ParseNumber(std::string_view field, std::string_view text, double min, double max) {
  auto bad = [&] {
    return InvalidArgument(std::string(field) + " must be a number in " + Range(min, max) + ", got " +
                           Quote(text));
  };
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  if (digits.empty() || digits.front() == '+') return bad();
  double v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v,
                                         std::chars_format::general);
  if (ec != std::errc() || end != digits.data() + digits.size()) return bad();
  if (!std::isfinite(v) || v < min || v > max) return bad();
  return v;
}

int64_t JsonNestingDepth(std::string_view text) {
  int64_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace frontier
