// redact.h: secrets kept inside the process. Every text frontier prints,
// stores or serves that may hold a credential the user gave it (a database
// URL with a password, --api-key, an Authorization header, a command line
// holding any of them) passes through one of these first, so the secret is
// replaced by "***" before it reaches a terminal, a result file, the
// database, an export, a report or the dashboard.
//
//   RedactUrl("postgresql://me:hunter2@db/frontier")   // "postgresql://me:***@db/frontier"
//   RedactUrl("PostgreSQL:///r?host=/s&password=x")    // "PostgreSQL:///r?host=/s&password=***"
//   RedactHeader("Authorization: Bearer sk-1")         // "Authorization: ***"
//   RedactArgs({"bench", "--api-key", "sk-1"})         // {"bench", "--api-key", "***"}
//
// What counts as a secret:
//   - the password of a URL's userinfo ("scheme://user:PASSWORD@host"), for
//     any scheme in any case;
//   - the value of a URL query parameter, a "name=value" word or an HTTP
//     header whose name is secret-like (IsSecretName);
//   - the value of a command-line flag that takes a secret (IsSecretFlag),
//     and the value of a secret-like header given to --header / -H.
// Everything else is returned unchanged, so redacting twice is redacting once.
//
// Thread safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace frontier {

// What every secret is replaced by.
inline constexpr std::string_view kRedacted = "***";

// True when `name` (an HTTP header, a URL query parameter or a "name=value"
// key) names a secret: it contains, in any case, "auth" (Authorization,
// Proxy-Authorization, X-Auth-Token), "key" (X-Api-Key, api_key), "token",
// "secret", "pass" (password, sslpassword, passphrase), "credential" or
// "cookie".
bool IsSecretName(std::string_view name);

// True when `name` (a command-line flag such as "--api-key", a "name=value"
// key or a "Name:" in free text) names a secret by its words: split on
// anything but letters and digits, its last word is, in any case, "key",
// "apikey", "token", "pwd", "auth", "authorization", "credential(s)" or
// "cookie"; or it contains "password", "passwd" or "secret" anywhere. So
// "--api-key" and "X-Auth-Token" are secret; "--spec-tokens", "max_tokens"
// and "--first-token-timeout" are not.
bool IsSecretFlag(std::string_view name);

// `url` with the password of its userinfo and the values of its secret-like
// query parameters replaced by kRedacted. A text that is not "scheme://..."
// is returned unchanged.
std::string RedactUrl(std::string_view url);

// "Name: value" with the value replaced by kRedacted when IsSecretName(Name);
// anything else unchanged.
std::string RedactHeader(std::string_view header);

// Free text (a message, a stored provenance value, a plan): every URL in it
// through RedactUrl, every "name=value" word whose name is secret-like
// (password=..., --api-key=...) and every "Name: value" of a secret-like
// header (up to the end of its line or quote) redacted.
std::string RedactText(std::string_view text);

// A command's arguments (without the program name) with the value of every
// secret flag (IsSecretFlag; "--flag VALUE" or "--flag=VALUE"), of every
// secret-like header given to --header or -H, and every secret in the other
// arguments (RedactText) redacted.
std::vector<std::string> RedactArgs(const std::vector<std::string>& args);

// A command line as CommandLine-style quoting writes it (words separated by
// spaces, a word holding spaces or quotes in single quotes with ' as '\''),
// split into words, RedactArgs'd and joined again the same way. For command
// lines stored before they were redacted.
std::string RedactCommandLine(std::string_view command_line);

// `args` joined with spaces, each word single-quoted when it is empty or
// holds a space, tab, quote, '$', '\\', '{', '}' or '*'.
std::string JoinShellWords(const std::vector<std::string>& args);

// A command's argv (argv[0] the subcommand, as `frontier` hands it on) as
// "frontier <args>" for provenance: RedactArgs'd, then JoinShellWords'd, so
// that RedactCommandLine reads it back.
std::string CommandLine(int argc, const char* const* argv);

// A run's provenance with "command_line" through RedactCommandLine, the value
// of every secret-like key replaced by kRedacted, and every other value
// through RedactText.
std::map<std::string, std::string> RedactProvenance(std::map<std::string, std::string> provenance);

}  // namespace frontier
