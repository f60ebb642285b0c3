// sse.h: incremental Server-Sent Events framing (the WHATWG "event stream"
// format), fed with whatever body bytes one socket read produced.
//
//   SseParser sse;
//   bool ok = sse.Feed(bytes, [&](std::string_view data) { ...; return true; });
//
// Handled: "data:" lines (one optional space after the colon is dropped),
// several data lines in one event (joined with "\n"), LF, CRLF and lone-CR
// line ends (also when a CRLF is split across two reads), comment lines
// starting with ':' (keep-alives), "event:", "id:" and "retry:" fields
// (ignored), and a blank line ending an event. An event without data lines is
// not delivered.
//
// Copies: none for an event whose one data line arrives whole in one Feed (the
// common case): the callback gets a view into `bytes`. A line split across
// reads, or an event of several data lines, is assembled in the parser's own
// buffer. Either way the view handed to the callback is followed by at least
// kSsePadding readable bytes (what simdjson needs past a document), provided
// the caller's `bytes` are too (REQUIRES).
//
// Error events: a line "error: <text>" (llama.cpp's server streams its errors
// this way) is delivered as an error event: the callback's `error` flag is set
// and `data` is the text in the server's own words.
//
// Strictness (a choice, documented in docs/bench.md): a line whose field name
// is not data/event/id/retry/error, or a line over `max_line` bytes, is
// malformed: Feed returns false and error() says why. The SSE spec would
// ignore such a line; a benchmark would rather report a server that sends one.
//
// The callback is on_event(std::string_view data, bool error) and returns
// false to stop feeding (Feed then returns true with stopped() set).
//
// Thread safety: one parser per stream, used from one thread.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace frontier::client {

// Readable bytes the framer guarantees after an event's data (simdjson's padding).
inline constexpr size_t kSsePadding = 64;

class SseParser {
 public:
  explicit SseParser(size_t max_line = 8 << 20) : max_line_(max_line) {}

  // REQUIRES: kSsePadding readable bytes follow bytes.data() + bytes.size().
  template <typename OnEvent>
  bool Feed(std::string_view bytes, OnEvent&& on_event);

  // True when bytes of an unfinished line or event are buffered (a stream
  // that ends here was cut mid-event).
  bool HasPartialEvent() const { return !line_.empty() || has_data_; }
  bool stopped() const { return stopped_; }
  const std::string& error() const { return error_; }
  // Ready for a new stream (keeps the buffers' capacity).
  void Reset() {
    line_.clear();
    data_.clear();
    view_ = {};
    has_data_ = skip_lf_ = stopped_ = is_error_ = false;
    error_.clear();
  }

 private:
  // Handles one complete line; returns false on malformed input.
  template <typename OnEvent>
  bool Line(std::string_view line, OnEvent& on_event);
  // Moves a pending view into data_ (before the bytes it points into go away).
  void Own() {
    if (view_.data() == nullptr) return;
    data_.assign(view_);
    view_ = {};
  }
  std::string_view Padded(std::string& s) {
    const size_t n = s.size();
    if (s.capacity() < n + kSsePadding) s.reserve(n + kSsePadding);
    return std::string_view(s.data(), n);
  }

  size_t max_line_;
  std::string line_;       // an unfinished line carried over from the previous read
  std::string data_;       // data of the event being built, when not a view
  std::string_view view_;  // the event's data as a view into the current Feed's bytes
  bool has_data_ = false;
  bool is_error_ = false;  // the event came from an "error:" field
  bool skip_lf_ = false;   // the previous read ended with CR: a leading LF belongs to it
  bool stopped_ = false;
  std::string error_;
};

template <typename OnEvent>
bool SseParser::Line(std::string_view line, OnEvent& on_event) {
  if (line.empty()) {
    if (has_data_) {
      has_data_ = false;
      const std::string_view data = view_.data() ? view_ : Padded(data_);
      const bool err = is_error_;
      is_error_ = false;
      if (!on_event(data, err)) stopped_ = true;
      view_ = {};
      data_.clear();
    }
    return true;
  }
  if (line[0] == ':') return true;  // comment / keep-alive
  const size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  if (field == "data" || field == "error") {
    if (field == "error") is_error_ = true;
    if (!has_data_ && line_.empty()) {
      view_ = value;  // points into the caller's bytes (line_ is empty: `line` is not in it)
    } else {
      Own();
      if (has_data_) data_.push_back('\n');
      data_.append(value);
    }
    has_data_ = true;
    return true;
  }
  if (field == "event" || field == "id" || field == "retry") return true;
  error_ = "malformed SSE line (unknown field): '" + std::string(line.substr(0, 80)) + "'";
  return false;
}

template <typename OnEvent>
bool SseParser::Feed(std::string_view bytes, OnEvent&& on_event) {
  if (!error_.empty()) return false;
  size_t i = 0;
  if (skip_lf_ && !bytes.empty()) {
    if (bytes[0] == '\n') i = 1;
    skip_lf_ = false;
  }
  while (i < bytes.size() && !stopped_) {
    // Find the next line end (CR or LF) with memchr, which is vectorised.
    const char* base = bytes.data();
    const char* lf = static_cast<const char*>(std::memchr(base + i, '\n', bytes.size() - i));
    const size_t lf_at = lf ? static_cast<size_t>(lf - base) : bytes.size();
    const char* cr = static_cast<const char*>(std::memchr(base + i, '\r', lf_at - i));
    const size_t j = cr ? static_cast<size_t>(cr - base) : lf_at;
    if (j == bytes.size()) {  // unfinished line: keep it for the next read
      line_.append(bytes.substr(i));
      if (line_.size() > max_line_) {
        error_ = "malformed SSE: a line longer than " + std::to_string(max_line_) + " bytes";
        return false;
      }
      break;
    }
    bool ok;
    if (line_.empty()) {
      ok = Line(bytes.substr(i, j - i), on_event);
    } else {
      // The line began in an earlier read: it is assembled in line_, whose
      // capacity is kept for the next one (Line copies out of it).
      line_.append(bytes.substr(i, j - i));
      ok = Line(line_, on_event);
      line_.clear();
    }
    if (!ok) return false;
    if (bytes[j] == '\r' && j + 1 == bytes.size()) skip_lf_ = true;  // an LF may open the next read
    i = (bytes[j] == '\r' && j + 1 < bytes.size() && bytes[j + 1] == '\n') ? j + 2 : j + 1;
  }
  Own();  // an event still open keeps its data past this read
  return true;
}

}  // namespace frontier::client
