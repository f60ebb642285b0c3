// sse.h: incremental Server-Sent Events framing (the WHATWG "event stream"
// format), fed with whatever bytes one socket read produced.
//
//   SseParser sse;
//   bool ok = sse.Feed(bytes, [&](std::string& data) { ...; return true; });
//
// Handled: "data:" lines (one optional space after the colon is dropped),
// several data lines in one event (joined with "\n"), LF, CRLF and lone-CR
// line ends (also when a CRLF is split across two reads), comment lines
// starting with ':' (keep-alives), "event:", "id:" and "retry:" fields
// (ignored), and a blank line ending an event. An event without data lines is
// not delivered.
//
// Strictness (a choice, documented in docs/bench.md): a line whose field name
// is not data/event/id/retry, or a line over `max_line` bytes, is malformed:
// Feed returns false and error() says why. The SSE spec would ignore such a
// line; a benchmark would rather report a server that sends one.
//
// The callback gets the event's data in a std::string it may modify (the
// JSON parser pads it); it returns false to stop feeding (Feed then returns
// true with stopped() set).
//
// Thread safety: one parser per stream, used from one thread.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace frontier::client {

class SseParser {
 public:
  explicit SseParser(size_t max_line = 8 << 20) : max_line_(max_line) {}

  template <typename OnEvent>
  bool Feed(std::string_view bytes, OnEvent&& on_event);

  // True when bytes of an unfinished line or event are buffered (a stream
  // that ends here was cut mid-event).
  bool HasPartialEvent() const { return !line_.empty() || has_data_; }
  bool stopped() const { return stopped_; }
  const std::string& error() const { return error_; }

 private:
  // Handles one complete line; returns false on malformed input.
  template <typename OnEvent>
  bool Line(std::string_view line, OnEvent& on_event);

  size_t max_line_;
  std::string line_;   // an unfinished line carried over from the previous read
  std::string data_;   // data of the event being built
  bool has_data_ = false;
  bool skip_lf_ = false;  // the previous read ended with CR: a leading LF belongs to it
  bool stopped_ = false;
  std::string error_;
};

template <typename OnEvent>
bool SseParser::Line(std::string_view line, OnEvent& on_event) {
  if (line.empty()) {
    if (has_data_) {
      has_data_ = false;
      if (!on_event(data_)) stopped_ = true;
      data_.clear();
    }
    return true;
  }
  if (line[0] == ':') return true;  // comment / keep-alive
  const size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (has_data_) data_.push_back('\n');
    data_.append(value);
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
      return true;
    }
    bool ok;
    if (line_.empty()) {
      ok = Line(bytes.substr(i, j - i), on_event);
    } else {
      line_.append(bytes.substr(i, j - i));
      std::string line = std::move(line_);
      line_.clear();
      ok = Line(line, on_event);
    }
    if (!ok) return false;
    if (bytes[j] == '\r' && j + 1 == bytes.size()) skip_lf_ = true;  // an LF may open the next read
    i = (bytes[j] == '\r' && j + 1 < bytes.size() && bytes[j + 1] == '\n') ? j + 2 : j + 1;
  }
  return true;
}

}  // namespace frontier::client
