// table.h: a plain-text table with aligned columns, for terminal output.
//
// Thread safety: values.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace frontier::report {

class TextTable {
 public:
  // Every cell, header included, is printed with its control characters
  // escaped (EscapeControls, core/terminal_text.h): cells hold outside text.
  explicit TextTable(std::vector<std::string> header);
  void Add(std::vector<std::string> row);
  // Left-aligns the first column, right-aligns the others.
  void Print(std::ostream& out, const std::string& indent = "  ") const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// printf-style "%.*f"; "-" for nullopt.
std::string Fixed(std::optional<double> v, int decimals);
// "1234.5 ± 12.3" when the spread was measured, else "1234.5".
std::string WithCi(double mean, double half_width, bool measured, int decimals);

}  // namespace frontier::report
