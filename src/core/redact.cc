#include "core/redact.h"

#include <cctype>

#include "core/ascii.h"

namespace frontier {
namespace {

bool Alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool Space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool Contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// A URL scheme's characters (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )).
bool SchemeChar(char c) { return Alnum(c) || c == '+' || c == '-' || c == '.'; }

// Where a URL inside free text ends: at white space, a quote or an angle bracket.
bool UrlEnd(char c) { return Space(c) || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`'; }

// A "name" of name=value or "Name:" in free text.
bool NameChar(char c) { return Alnum(c) || c == '_' || c == '-' || c == '.'; }

// `query` ("a=1&password=x") with the values of secret-like names redacted.
std::string RedactQuery(std::string_view query) {
  std::string out;
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find_first_of("&;", start);
    if (end == std::string_view::npos) end = query.size();
    std::string_view param = query.substr(start, end - start);
    const size_t eq = param.find('=');
    if (eq != std::string_view::npos && IsSecretName(param.substr(0, eq))) {
      out.append(param.substr(0, eq + 1));
      out.append(kRedacted);
    } else {
      out.append(param);
    }
    if (end == query.size()) break;
    out += query[end];
    start = end + 1;
  }
  return out;
}

}  // namespace

bool IsSecretName(std::string_view name) {
  const std::string n = AsciiLower(name);
  for (std::string_view part : {"auth", "key", "token", "secret", "pass", "credential", "cookie"})
    if (Contains(n, part)) return true;
  return false;
}

bool IsSecretFlag(std::string_view name) {
  const std::string n = AsciiLower(name);
  if (Contains(n, "password") || Contains(n, "passwd") || Contains(n, "secret")) return true;
  // The last word: "--first-token-timeout" names a time, "X-Auth-Token" a secret.
  size_t end = n.size();
  while (end > 0 && !Alnum(n[end - 1])) --end;
  size_t start = end;
  while (start > 0 && Alnum(n[start - 1])) --start;
  const std::string_view word = std::string_view(n).substr(start, end - start);
  for (std::string_view secret : {"key", "apikey", "token", "pwd", "auth", "authorization", "credential",
                                  "credentials", "cookie"})
    if (word == secret) return true;
  return false;
}

std::string RedactUrl(std::string_view url) {
  const size_t sep = url.find("://");
  if (sep == std::string_view::npos || sep == 0) return std::string(url);
  for (size_t i = 0; i < sep; ++i)
    if (!SchemeChar(url[i])) return std::string(url);
  if (!std::isalpha(static_cast<unsigned char>(url[0]))) return std::string(url);

  const size_t auth_start = sep + 3;
  size_t auth_end = url.find_first_of("/?#", auth_start);
  if (auth_end == std::string_view::npos) auth_end = url.size();
  std::string out(url.substr(0, auth_start));
  // The userinfo ends at the authority's last '@' (a password may hold '@' unescaped).
  std::string_view authority = url.substr(auth_start, auth_end - auth_start);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at);
    const size_t colon = userinfo.find(':');
    if (colon != std::string_view::npos) {
      out.append(userinfo.substr(0, colon + 1));
      out.append(kRedacted);
    } else {
      out.append(userinfo);
    }
    out.append(authority.substr(at));
  } else {
    out.append(authority);
  }
  if (auth_end == url.size()) return out;

  // Path, then query (up to a fragment), then the fragment as it is.
  const size_t q = url.find('?', auth_end);
  if (q == std::string_view::npos) {
    out.append(url.substr(auth_end));
    return out;
  }
  out.append(url.substr(auth_end, q + 1 - auth_end));
  size_t frag = url.find('#', q);
  if (frag == std::string_view::npos) frag = url.size();
  out += RedactQuery(url.substr(q + 1, frag - q - 1));
  out.append(url.substr(frag));
  return out;
}

std::string RedactHeader(std::string_view header) {
  const size_t colon = header.find(':');
  if (colon == std::string_view::npos) return std::string(header);
  std::string_view name = header.substr(0, colon);
  while (!name.empty() && Space(name.back())) name.remove_suffix(1);
  while (!name.empty() && Space(name.front())) name.remove_prefix(1);
  if (name.empty() || !IsSecretName(name)) return std::string(header);
  std::string out(header.substr(0, colon + 1));
  out += ' ';
  out.append(kRedacted);
  return out;
}

std::string RedactText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    // A URL: the scheme was copied already; redact from its start.
    if (c == ':' && text.substr(i, 3) == "://") {
      size_t start = out.size();
      while (start > 0 && SchemeChar(out[start - 1])) --start;
      if (start < out.size()) {
        size_t end = i + 3;
        while (end < text.size() && !UrlEnd(text[end])) ++end;
        const std::string scheme = out.substr(start);
        out.resize(start);
        out += RedactUrl(scheme + std::string(text.substr(i, end - i)));
        i = end;
        continue;
      }
    }
    // name=value, or "Name: value" (a header, a YAML key) with a secret-like name.
    const bool is_eq = c == '=';
    const bool is_colon = c == ':' && i + 1 < text.size() && text[i + 1] == ' ';
    if (is_eq || is_colon) {
      size_t start = out.size();
      while (start > 0 && NameChar(out[start - 1])) --start;
      const std::string name = out.substr(start);
      // "--api-key: must be ..." in a message names a flag; it holds no secret.
      if (!name.empty() && name[0] != '-' ? IsSecretFlag(name) : (is_eq && IsSecretFlag(name))) {
        size_t end = i + 1;
        if (is_colon) {
          ++end;
          while (end < text.size() && text[end] != '\n' && text[end] != '\'' && text[end] != '"') ++end;
        } else {
          while (end < text.size() && !UrlEnd(text[end]) && text[end] != '&' && text[end] != ';' &&
                 text[end] != ',')
            ++end;
        }
        if (end > i + (is_colon ? 2 : 1)) {
          out += c;
          if (is_colon) out += ' ';
          out.append(kRedacted);
          i = end;
          continue;
        }
      }
    }
    out += c;
    ++i;
  }
  return out;
}

std::vector<std::string> RedactArgs(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  out.reserve(args.size());
  enum class Next { kPlain, kSecret, kHeader } next = Next::kPlain;
  for (const std::string& a : args) {
    if (next == Next::kSecret) {
      out.emplace_back(kRedacted);
      next = Next::kPlain;
      continue;
    }
    if (next == Next::kHeader) {
      out.push_back(RedactHeader(a));
      next = Next::kPlain;
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      const size_t eq = a.find('=');
      const std::string flag = a.substr(0, eq);
      const bool header = flag == "--header" || flag == "-H";
      if (eq != std::string::npos) {
        const std::string value = a.substr(eq + 1);
        out.push_back(flag + "=" +
                      (IsSecretFlag(flag) ? std::string(kRedacted) : header ? RedactHeader(value) : RedactText(value)));
        continue;
      }
      if (header) {
        next = Next::kHeader;
      } else if (IsSecretFlag(flag)) {
        next = Next::kSecret;
      }
      out.push_back(a);
      continue;
    }
    out.push_back(RedactText(a));
  }
  return out;
}

std::string JoinShellWords(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) {
    if (!out.empty()) out += ' ';
    if (!a.empty() && a.find_first_of(" \t'\"$\\{}*") == std::string::npos) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

std::string CommandLine(int argc, const char* const* argv) {
  return "frontier " + JoinShellWords(RedactArgs(std::vector<std::string>(argv, argv + argc)));
}

std::string RedactCommandLine(std::string_view command_line) {
  // Split as a POSIX shell would for the quoting JoinShellWords writes:
  // single quotes, double quotes and backslash escapes outside quotes.
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < command_line.size(); ++i) {
    const char c = command_line[i];
    if (Space(c)) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      in_word = true;
      const size_t close = command_line.find('\'', i + 1);
      const size_t end = close == std::string_view::npos ? command_line.size() : close;
      word.append(command_line.substr(i + 1, end - i - 1));
      i = end;
    } else if (c == '"') {
      in_word = true;
      size_t j = i + 1;
      for (; j < command_line.size() && command_line[j] != '"'; ++j) {
        if (command_line[j] == '\\' && j + 1 < command_line.size()) ++j;
        word += command_line[j];
      }
      i = j;
    } else if (c == '\\' && i + 1 < command_line.size()) {
      in_word = true;
      word += command_line[++i];
    } else {
      in_word = true;
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) return std::string(command_line);
  // The program name stays as it is; the rest are its arguments.
  std::vector<std::string> args(words.begin() + 1, words.end());
  std::vector<std::string> redacted = RedactArgs(args);
  if (redacted == args) return std::string(command_line);  // unchanged: keep its exact spelling
  redacted.insert(redacted.begin(), words[0]);
  return JoinShellWords(redacted);
}

std::map<std::string, std::string> RedactProvenance(std::map<std::string, std::string> provenance) {
  for (auto& [key, value] : provenance) {
    if (key == "command_line") {
      value = RedactCommandLine(value);
    } else if (IsSecretFlag(key)) {
      if (!value.empty()) value = std::string(kRedacted);
    } else {
      value = RedactText(value);
    }
  }
  return provenance;
}

}  // namespace frontier
