// parse.h: numbers from outside frontier (flags, plan and catalog files,
// imported results, HTTP requests, database rows), parsed and range-checked
// where they enter, with one message shape that names the field, the value
// and what is allowed:
//
//   "<field> must be an integer in [1, 1000000], got '1e30'"
//   "<field> must be a number in [0, 1e+06], got -5"
//
//   FRONTIER_ASSIGN_OR_RETURN(int64_t id, ParseInt("--baseline", text, 1, kMaxId));
//   FRONTIER_RETURN_IF_ERROR(CheckRange("num_gpus", n, 1, 100000));
//
// Every function here is total: no input makes one throw or overflow.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace frontier {

// OK when min <= value <= max, else InvalidArgument in the shape above.
Status CheckRange(std::string_view field, int64_t value, int64_t min, int64_t max);
// As above for numbers; NaN and infinities are out of every finite range.
Status CheckRange(std::string_view field, double value, double min, double max);

// All of `text` as a base-10 integer in [min, max] (an optional sign, digits,
// nothing else). Values past int64 are out of range, not wrapped.
Result<int64_t> ParseInt(std::string_view field, std::string_view text, int64_t min, int64_t max);
// All of `text` as a finite decimal number in [min, max] ("1e3" and "0.5" are
// numbers; "inf", "nan", "0x10" and trailing characters are not).
Result<double> ParseNumber(std::string_view field, std::string_view text, double min, double max);

// A double as messages show it: integers without a fraction ("1000000"),
// others in %.10g ("2.5", "1e+30").
std::string FormatNumber(double value);

// A double as printf's "%.<digits>g" writes it: at most `digits` significant
// digits, trailing zeros dropped, an exponent when it is below 1e-4 or needs
// more digits than that ("%g" is digits 6: "0.1", "1e-07", "1.23457e+06").
// For labels and echoed settings where short beats exact (17 digits keep
// every double exact). REQUIRES: 1 <= digits <= 17.
std::string FormatSignificant(double value, int digits = 6);

// The shortest text that reads back as exactly `value` ("0.9", "2.5", "64",
// "1e+30"): for text a program reads again (plan files, stored configs).
std::string FormatShortest(double value);

// The deepest nesting of arrays and objects in JSON text (brackets inside
// strings do not count). Linear, no recursion: callers reject text nested
// deeper than they can walk before handing it to a recursive parser or printer.
int64_t JsonNestingDepth(std::string_view text);

}  // namespace frontier
