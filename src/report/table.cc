#include "report/table.h"

#include <algorithm>
#include <cstdio>

#include "core/terminal_text.h"

namespace frontier::report {
namespace {

// Display width: count UTF-8 code points, not bytes ("±").
size_t Width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header) : header_(std::move(header)) {
  for (auto& cell : header_) cell = EscapeControls(cell);
}

void TextTable::Add(std::vector<std::string> row) {
  for (auto& cell : row) cell = EscapeControls(cell);
  rows_.push_back(std::move(row));
}

void TextTable::Print(std::ostream& out, const std::string& indent) const {
  std::vector<size_t> w(header_.size(), 0);
  for (size_t i = 0; i < header_.size(); ++i) w[i] = Width(header_[i]);
  for (const auto& r : rows_)
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], Width(r[i]));
  auto line = [&](const std::vector<std::string>& r) {
    out << indent;
    for (size_t i = 0; i < w.size(); ++i) {
      const std::string cell = i < r.size() ? r[i] : "";
      const std::string pad(w[i] - Width(cell), ' ');
      out << (i ? "  " : "") << (i == 0 ? cell + pad : pad + cell);
    }
    out << "\n";
  };
  line(header_);
  size_t total = 0;
  for (size_t x : w) total += x + 2;
  out << indent << std::string(total > 2 ? total - 2 : 0, '-') << "\n";
  for (const auto& r : rows_) line(r);
}

std::string Fixed(std::optional<double> v, int decimals) {
  if (!v) return "-";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, *v);
  return b;
}

std::string WithCi(double mean, double half_width, bool measured, int decimals) {
  std::string s = Fixed(mean, decimals);
  if (measured) s += " ± " + Fixed(half_width, decimals);
  return s;
}

}  // namespace frontier::report
