// status.h: errors as values at module boundaries.
//
// A Status is OK or carries a code and a message that names the input at
// fault and, where there is one, the fix. Result<T> holds a T or a non-OK
// Status. Both are [[nodiscard]]: dropping one is a compile warning (an
// error in CI).
//
//   Result<Config> c = ParseConfig(path);
//   if (!c.ok()) return c.status();
//   Use(*c);
//
// Thread safety: values; no shared state.
#pragma once

#include <exception>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace frontier {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // the caller's input is wrong: a flag, a field, a file's content
  kNotFound,           // a named thing (model, hardware, file, run) does not exist
  kFailedPrecondition, // the request is valid but cannot be done in this state (does not fit, ...)
  kOutOfRange,
  kResourceExhausted,
  kUnavailable,        // a peer could not be reached
  kDeadlineExceeded,
  kCancelled,
  kIoError,
  kInternal,           // a bug in frontier
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid argument: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
inline Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status FailedPrecondition(std::string m) { return Status(StatusCode::kFailedPrecondition, std::move(m)); }
inline Status OutOfRange(std::string m) { return Status(StatusCode::kOutOfRange, std::move(m)); }
inline Status Unavailable(std::string m) { return Status(StatusCode::kUnavailable, std::move(m)); }
inline Status IoError(std::string m) { return Status(StatusCode::kIoError, std::move(m)); }
inline Status Internal(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }
inline Status Cancelled(std::string m) { return Status(StatusCode::kCancelled, std::move(m)); }

// A T, or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}           // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {     // NOLINT: implicit by design
    if (status_.ok()) status_ = Internal("Result constructed from an OK status without a value");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  // REQUIRES: ok().
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

inline Status ResourceExhausted(std::string m) { return Status(StatusCode::kResourceExhausted, std::move(m)); }

// Runs `f` (returning a Status or a Result<T>) and turns an exception that
// escapes it into a Status, so that none crosses a module boundary:
// std::bad_alloc becomes ResourceExhausted, anything else Internal, both
// naming `what`. Library edges that call code which may throw (nlohmann,
// yaml-cpp, the standard library) wrap their body in it.
template <typename F>
auto CatchExceptions(std::string_view what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return ResourceExhausted(std::string(what) + ": out of memory");
  } catch (const std::exception& e) {
    return Internal(std::string(what) + ": unexpected error: " + e.what());
  } catch (...) {
    return Internal(std::string(what) + ": unexpected error");
  }
}

}  // namespace frontier

#define FRONTIER_CONCAT_INNER_(a, b) a##b
#define FRONTIER_CONCAT_(a, b) FRONTIER_CONCAT_INNER_(a, b)

// Returns the Status from the enclosing function if `expr` is not OK.
#define FRONTIER_RETURN_IF_ERROR(expr)              \
  do {                                              \
    ::frontier::Status frontier_status_ = (expr);   \
    if (!frontier_status_.ok()) return frontier_status_; \
  } while (0)

// `lhs = value of expr`, or return its Status from the enclosing function.
#define FRONTIER_ASSIGN_OR_RETURN(lhs, expr)                                  \
  auto FRONTIER_CONCAT_(frontier_result_, __LINE__) = (expr);                 \
  if (!FRONTIER_CONCAT_(frontier_result_, __LINE__).ok())                     \
    return FRONTIER_CONCAT_(frontier_result_, __LINE__).status();             \
  lhs = std::move(FRONTIER_CONCAT_(frontier_result_, __LINE__)).value()
