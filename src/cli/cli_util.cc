// cli_util.cc: parsing with plain-decimal integers, usage errors, the shared flags.
#include "cli/cli_util.h"

#include <cstdint>
#include <iostream>

#include "core/parse.h"
#include "core/redact.h"
#include "core/terminal_text.h"

namespace frontier::cli {

namespace {

// CLI11 reads integer flags with strtoll/strtoull in base 0: "010" was 8,
// "0x10" 16, a value past 64 bits saturated to the largest one and "-1" for an
// unsigned flag wrapped to 2^64 - 1, each silently. Integer flags take plain
// decimal instead: leading zeros are dropped, anything else is named with the
// value and the range of the flag's type (narrower ranges are checked after
// parsing, by each command).
void DecimalIntegers(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    const std::string type = opt->get_type_name();
    const bool is_signed = type.rfind("INT", 0) == 0, is_unsigned = type.rfind("UINT", 0) == 0;
    if (!is_signed && !is_unsigned) continue;
    const std::string name = opt->get_name();
    opt->transform(CLI::Validator(
        [name, is_unsigned](std::string& text) -> std::string {
          const bool negative = !text.empty() && text[0] == '-';
          std::string digits = text.substr(!text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0);
          if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
            return name + " must be a whole number in decimal digits, got '" + text + "'";
          const size_t first = digits.find_first_not_of('0');
          digits = first == std::string::npos ? "0" : digits.substr(first);
          const std::string normal = (negative && digits != "0" ? "-" : "") + digits;
          if (is_unsigned) {
            if ((negative && digits != "0") || digits.size() > 20 ||
                (digits.size() == 20 && digits > "18446744073709551615"))
              return name + " must be an integer in [0, 18446744073709551615], got '" + text + "'";
          } else if (Status in = ParseInt(name, normal, INT64_MIN, INT64_MAX).status(); !in.ok()) {
            return name + " must be an integer in [-9223372036854775808, 9223372036854775807], got '" + text + "'";
          }
          text = normal;
          return "";
        },
        "", "decimal"));
  }
  for (CLI::App* sub : app.get_subcommands({})) DecimalIntegers(*sub);
}

}  // namespace

int Parse(CLI::App& app, int argc, char** argv) {
  DecimalIntegers(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ValidationError& e) {
    // "NAME: NAME must be ..." from DecimalIntegers reads as its message alone.
    std::string what = e.what();
    const size_t colon = what.find(": ");
    if (colon != std::string::npos && what.compare(colon + 2, colon + 1, what.substr(0, colon) + " ") == 0)
      what.erase(0, colon + 2);
    return UsageError(app.get_name(), what);
  } catch (const CLI::ParseError& e) {
    return UsageError(app.get_name(), e.what());
  }
  return -1;
}

int UsageError(const std::string& command, const std::string& message) {
  std::cerr << "frontier " << command << ": " << TerminalSafe(RedactText(message)) << "\n";
  return 2;
}

int Fail(const std::string& command, const Status& status) {
  if (status.ok()) return 0;
  std::cerr << "frontier " << command << ": " << TerminalSafe(RedactText(status.message())) << "\n";
  const bool usage = status.code() == StatusCode::kInvalidArgument || status.code() == StatusCode::kNotFound;
  return usage ? 2 : 1;
}

void AddDbFlags(CLI::App& app, DbFlags* flags, const std::string& what, const std::string& default_label) {
  flags->run_label = default_label;
  // No default database here: without --db nothing is stored.
  app.add_option("--db", flags->db,
                 "Results database to store into: a SQLite file (created if missing), or "
                 "postgresql://USER@HOST[:PORT]/DB; when given, " + what + " (nothing is stored without --db)")
      ->group("Results");
  app.add_option("--run-label", flags->run_label,
                 "Name of the stored run (its sweep name in `frontier db ls` and reports) [" + default_label + "]")
      ->group("Results");
}

std::string CheckDbFlags(const CLI::App& app, const DbFlags& flags) {
  if (app.count("--run-label") && flags.db.empty()) return "--run-label names the run stored in --db: give --db too";
  if (app.count("--db") && flags.db.empty())
    return "--db must name a results database (a SQLite file or a postgresql:// URL), got ''";
  if (flags.run_label.empty()) return "--run-label must not be empty";
  return "";
}

void AddPriceFlags(CLI::App& app, PriceFlags& flags) {
  app.add_option("--price", flags.prices,
                 "$/GPU-hour for a hardware name, HW=USD (repeatable; overrides the catalog)");
  app.add_option("--price-tier", flags.tier, "Catalog price: neocloud, hyperscaler or three_year")
      ->check(CLI::IsMember({"neocloud", "hyperscaler", "three_year"}))
      ->capture_default_str();
}

}  // namespace frontier::cli
