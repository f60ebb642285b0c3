#include "metrics/prometheus.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace frontier::metrics {
namespace {

bool NameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
bool NameChar(char c) { return NameStart(c) || (c >= '0' && c <= '9'); }
bool Blank(char c) { return c == ' ' || c == '\t'; }

// One line, walked left to right; errors name the line and column.
class LineReader {
 public:
  LineReader(std::string_view line, size_t number) : s_(line), line_(number) {}

  void SkipBlanks() {
    while (i_ < s_.size() && Blank(s_[i_])) ++i_;
  }
  bool AtEnd() const { return i_ >= s_.size(); }
  bool Peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++i_;
    return true;
  }
  // A metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), or a label name (no ':').
  bool Name(bool label, std::string* out) {
    const size_t start = i_;
    if (AtEnd() || !NameStart(s_[i_]) || (label && s_[i_] == ':')) return false;
    ++i_;
    while (i_ < s_.size() && NameChar(s_[i_]) && !(label && s_[i_] == ':')) ++i_;
    out->assign(s_.substr(start, i_ - start));
    return true;
  }
  // A token up to the next blank or the end.
  std::string_view Token() {
    const size_t start = i_;
    while (i_ < s_.size() && !Blank(s_[i_])) ++i_;
    return s_.substr(start, i_ - start);
  }
  std::string_view Rest() const { return s_.substr(std::min(i_, s_.size())); }
  size_t pos() const { return i_; }
  void Advance(size_t n) { i_ += n; }
  Status Error(const std::string& what) const {
    return InvalidArgument("metrics text line " + std::to_string(line_) + ", column " + std::to_string(i_ + 1) +
                           ": " + what);
  }

 private:
  std::string_view s_;
  size_t line_;
  size_t i_ = 0;
};

// A label value after its opening quote, up to the closing one.
Status QuotedValue(LineReader& r, std::string_view line, std::string* out) {
  out->clear();
  size_t i = r.pos();
  while (i < line.size()) {
    const char c = line[i];
    if (c == '"') {
      r.Advance(i + 1 - r.pos());
      return Status::Ok();
    }
    if (c == '\\') {
      if (i + 1 >= line.size()) break;
      const char e = line[i + 1];
      if (e == 'n') {
        out->push_back('\n');
      } else if (e == '\\' || e == '"') {
        out->push_back(e);
      } else {
        r.Advance(i - r.pos());
        return r.Error(std::string("unknown escape \\") + e + " in a label value (only \\\\, \\\" and \\n)");
      }
      i += 2;
      continue;
    }
    out->push_back(c);
    ++i;
  }
  r.Advance(line.size() - r.pos());
  return r.Error("label value has no closing quote");
}

// Go's ParseFloat as the format uses it: decimal or exponent forms, an
// optional sign, Inf / +Inf / -Inf / NaN (any case).
std::optional<double> ParseValue(std::string_view t) {
  if (t.empty()) return std::nullopt;
  bool neg = false;
  std::string_view u = t;
  if (u.front() == '+' || u.front() == '-') {
    neg = u.front() == '-';
    u.remove_prefix(1);
  }
  auto ieq = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if ((a[i] | 0x20) != b[i]) return false;
    return true;
  };
  if (ieq(u, "inf") || ieq(u, "infinity")) return neg ? -HUGE_VAL : HUGE_VAL;
  if (ieq(u, "nan")) return std::numeric_limits<double>::quiet_NaN();
  if (u.empty() || u.front() == '+' || u.front() == '-') return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(u.data(), u.data() + u.size(), v, std::chars_format::general);
  if (ec == std::errc::result_out_of_range && end == u.data() + u.size()) {
    // Too large reads as infinity, too small as zero.
    const size_t e = u.find_first_of("eE");
    v = e != std::string_view::npos && e + 1 < u.size() && u[e + 1] == '-' ? 0.0 : HUGE_VAL;
  } else if (ec != std::errc() || end != u.data() + u.size()) {
    return std::nullopt;
  }
  return neg ? -v : v;
}

std::string Unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '\\' || s[i + 1] == 'n')) {
      out.push_back(s[i + 1] == 'n' ? '\n' : '\\');
      ++i;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

Status Comment(std::string_view line, size_t number, Exposition* out) {
  LineReader r(line, number);
  r.Eat('#');
  r.SkipBlanks();
  const std::string_view keyword = r.Token();
  if (keyword != "HELP" && keyword != "TYPE") return Status::Ok();  // a plain comment
  r.SkipBlanks();
  std::string name;
  if (!r.Name(false, &name)) return r.Error("# " + std::string(keyword) + " must name a metric");
  if (!r.AtEnd() && !Blank(r.Rest().front())) return r.Error("bad character in the metric name");
  r.SkipBlanks();
  if (keyword == "HELP") {
    out->help[name] = Unescape(r.Rest());
    return Status::Ok();
  }
  const std::string_view type = r.Token();
  r.SkipBlanks();
  if (!r.AtEnd()) return r.Error("unexpected text after the type");
  if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" && type != "untyped")
    return r.Error("unknown metric type '" + std::string(type) +
                   "' (counter, gauge, histogram, summary or untyped)");
  out->types[name] = std::string(type);
  return Status::Ok();
}

Status Sample(std::string_view line, size_t number, Exposition* out) {
  LineReader r(line, number);
  PromSample s;
  if (!r.Name(false, &s.name)) return r.Error("expected a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)");
  const size_t after_name = r.pos();
  r.SkipBlanks();
  bool spaced = r.pos() > after_name;
  if (r.Eat('{')) {
    for (;;) {
      r.SkipBlanks();
      if (r.Eat('}')) break;
      std::string key, value;
      if (!r.Name(true, &key)) return r.Error("expected a label name or '}'");
      r.SkipBlanks();
      if (!r.Eat('=')) return r.Error("expected '=' after label " + key);
      r.SkipBlanks();
      if (!r.Eat('"')) return r.Error("label " + key + "'s value must be quoted");
      FRONTIER_RETURN_IF_ERROR(QuotedValue(r, line, &value));
      for (const auto& [k, v] : s.labels)
        if (k == key) return r.Error("label " + key + " given twice");
      s.labels.emplace_back(std::move(key), std::move(value));
      r.SkipBlanks();
      if (r.Eat(',')) continue;
      if (r.Eat('}')) break;
      return r.Error("expected ',' or '}' in the label set");
    }
    spaced = !r.AtEnd() && Blank(r.Rest().front());
  }
  if (!spaced) return r.Error("expected a space before the value of " + s.name);
  r.SkipBlanks();
  const std::string_view value = r.Token();
  const std::optional<double> v = ParseValue(value);
  if (!v) return r.Error("expected a number, +Inf, -Inf or NaN for " + s.name + ", got '" + std::string(value) + "'");
  s.value = *v;
  r.SkipBlanks();
  if (!r.AtEnd()) {
    const std::string_view ts = r.Token();
    int64_t t = 0;
    const char* b = ts.data();
    const char* e = ts.data() + ts.size();
    if (b != e && *b == '+') ++b;
    const auto [end, ec] = std::from_chars(b, e, t);
    if (b == e || ec != std::errc() || end != e) return r.Error("expected a timestamp in integer milliseconds");
    s.timestamp_ms = t;
    r.SkipBlanks();
    if (!r.AtEnd()) return r.Error("unexpected text after the timestamp");
  }
  out->samples.push_back(std::move(s));
  return Status::Ok();
}

}  // namespace

std::optional<std::string_view> PromSample::Label(std::string_view key) const {
  for (const auto& [k, v] : labels)
    if (k == key) return std::string_view(v);
  return std::nullopt;
}

std::optional<double> Exposition::Sum(std::string_view name) const {
  std::optional<double> total;
  for (const auto& s : samples)
    if (s.name == name) total = total.value_or(0) + s.value;
  return total;
}

std::string Exposition::FamilyOf(std::string_view name) const {
  const std::string n(name);
  if (types.count(n)) return n;
  for (std::string_view suffix : {"_total", "_bucket", "_sum", "_count", "_created"}) {
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) {
      std::string stem(name.substr(0, name.size() - suffix.size()));
      if (types.count(stem)) return stem;
    }
  }
  return n;
}

Result<Exposition> ParsePrometheusText(std::string_view text) {
  if (text.size() > kMaxPrometheusBytes)
    return InvalidArgument("metrics text of " + std::to_string(text.size()) + " bytes exceeds the bound of " +
                           std::to_string(kMaxPrometheusBytes) + " bytes");
  Exposition out;
  size_t number = 0;
  while (!text.empty()) {
    ++number;
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t first = 0;
    while (first < line.size() && Blank(line[first])) ++first;
    line.remove_prefix(first);
    if (line.empty()) continue;
    if (line.front() == '#') {
      FRONTIER_RETURN_IF_ERROR(Comment(line, number, &out));
    } else {
      FRONTIER_RETURN_IF_ERROR(Sample(line, number, &out));
    }
  }
  return out;
}

}  // namespace frontier::metrics
