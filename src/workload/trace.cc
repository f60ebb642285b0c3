#include "workload/trace.h"

#include <cmath>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/limits.h"
#include "core/line_reader.h"
#include "workload/json_line.h"
#include "workload/prefix_blocks.h"

namespace frontier::workload {
namespace {

using nlohmann::json;

Result<int32_t> Length(const json& o, const char* field, const std::string& where) {
  const auto it = o.find(field);
  if (it == o.end() || !it->is_number_integer())
    return InvalidArgument(where + ": \"" + field + "\" must be an integer number of tokens");
  const int64_t v = it->get<int64_t>();
  if (v < 1 || v > kMaxRequestLength)
    return InvalidArgument(where + ": \"" + field + "\" is " + std::to_string(v) + "; it must be in [1, " +
                           std::to_string(kMaxRequestLength) + "]");
  return static_cast<int32_t>(v);
}

Result<std::optional<Nanos>> Millis(const json& o, const char* field, const std::string& where) {
  const auto it = o.find(field);
  if (it == o.end() || it->is_null()) return std::optional<Nanos>();
  if (!it->is_number() || !(it->get<double>() >= 0) || !(it->get<double>() <= 1e12))
    return InvalidArgument(where + ": \"" + field + "\" must be a number of milliseconds in [0, 1e12]");
  return std::optional<Nanos>(static_cast<Nanos>(std::llround(it->get<double>() * kNanosPerMilli)));
}

Result<TraceRequest> Request(const json& o, int32_t block_tokens, const std::string& where) {
  if (!o.is_object()) return InvalidArgument(where + ": a request must be a JSON object");
  TraceRequest r;
  FRONTIER_ASSIGN_OR_RETURN(r.input_length, Length(o, "input_length", where));
  FRONTIER_ASSIGN_OR_RETURN(r.output_length, Length(o, "output_length", where));
  const auto it = o.find("hash_ids");
  if (it != o.end()) {
    if (!it->is_array()) return InvalidArgument(where + ": \"hash_ids\" must be an array of integers");
    for (const json& h : *it) {
      if (!h.is_number_integer() || h.get<int64_t>() < 0)
        return InvalidArgument(where + ": \"hash_ids\" must hold integers >= 0, got " + h.dump());
      r.hash_ids.push_back(h.get<int64_t>());
    }
  }
  const int64_t blocks = (static_cast<int64_t>(r.input_length) + block_tokens - 1) / block_tokens;
  if (static_cast<int64_t>(r.hash_ids.size()) > blocks)
    return InvalidArgument(where + ": \"hash_ids\" names " + std::to_string(r.hash_ids.size()) +
                           " blocks but input_length " + std::to_string(r.input_length) + " fills only " +
                           std::to_string(blocks) + " blocks of " + std::to_string(block_tokens) +
                           " tokens; fix the trace or --trace-block-tokens");
  return r;
}

std::string IdText(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

json RequestJson(const TraceRequest& r) {
  return json{{"input_length", r.input_length}, {"output_length", r.output_length}, {"hash_ids", r.hash_ids}};
}

double ToMillis(Nanos t) { return static_cast<double>(t) / kNanosPerMilli; }

}  // namespace

const char* TraceFormatName(TraceFormat f) {
  switch (f) {
    case TraceFormat::kAuto: return "auto";
    case TraceFormat::kFrontier: return "frontier";
    case TraceFormat::kMooncake: return "mooncake";
    case TraceFormat::kAgentic: return "agentic";
  }
  return "auto";
}

Result<TraceFormat> ParseTraceFormat(std::string_view name) {
  for (TraceFormat f : {TraceFormat::kAuto, TraceFormat::kFrontier, TraceFormat::kMooncake, TraceFormat::kAgentic})
    if (name == TraceFormatName(f)) return f;
  return InvalidArgument("--trace-format must be auto, frontier, mooncake or agentic, got '" + std::string(name) +
                         "'");
}

namespace {

// Parses a trace one line at a time, counting what it holds: the requests'
// bytes against the reader's bound, their number against the bound on a
// run's requests, and their prompt tokens against kMaxRunPromptTokens (the
// token ids BuildTraceSessions makes of them). Only the sessions a run uses
// (TraceLimits::max_sessions) are held and counted; the others' lines are
// checked and dropped.
class TraceParser {
 public:
  TraceParser(TraceFormat format, int32_t block_tokens, const std::string& name, uint64_t max_bytes,
              const TraceLimits& limits)
      : format_(format), block_tokens_(block_tokens), name_(name), max_bytes_(max_bytes), limits_(limits) {}

  Status Add(std::string_view line, int64_t line_no);
  Result<std::vector<TraceSession>> Finish() {
    if (out_.empty()) return InvalidArgument(name_ + ": the trace has no sessions (see docs/workloads.md)");
    return std::move(out_);
  }

 private:
  Status CheckHeld(const std::string& where) const {
    if (held_bytes_ <= max_bytes_) return Status::Ok();
    return InvalidArgument(where + ": the trace's requests would hold more than " + std::to_string(max_bytes_ >> 20) +
                           " MiB, the bound on traces (docs/limits.md); set FRONTIER_MAX_INPUT_MB to raise it");
  }

  // Whether a new session (the next in order of appearance) is held.
  bool Keeps() const { return limits_.max_sessions <= 0 || sessions_seen_ < limits_.max_sessions; }

  Status Count(const TraceRequest& r, const std::string& where) {
    held_bytes_ += sizeof(TraceTurn) + r.hash_ids.size() * sizeof(int64_t);
    tokens_ += r.input_length;
    if (++requests_ > limits_.max_requests)
      return InvalidArgument(where + ": the trace's sessions hold more than " + std::to_string(limits_.max_requests) +
                             " requests (turns and subagents), the bound on one run's requests (docs/limits.md); "
                             "use fewer sessions (--num-prompts) or a shorter trace");
    FRONTIER_RETURN_IF_ERROR(CheckHeld(where));
    if (tokens_ > kMaxRunPromptTokens)
      return InvalidArgument(where + ": the trace's prompts add up to more than " +
                             std::to_string(kMaxRunPromptTokens) + " tokens (input_length summed), the bound on "
                             "the prompt tokens one run holds (docs/limits.md)");
    return Status::Ok();
  }

  TraceFormat format_;
  int32_t block_tokens_;
  std::string name_;
  uint64_t max_bytes_;
  TraceLimits limits_;
  uint64_t held_bytes_ = 0;
  int64_t tokens_ = 0;
  int64_t requests_ = 0;
  int64_t sessions_seen_ = 0;  // kept or not, in order of appearance
  std::vector<TraceSession> out_;
  static constexpr size_t kDropped = static_cast<size_t>(-1);
  std::map<std::string, size_t> by_id_;  // agentic: session id -> index in out, or kDropped
};

Status TraceParser::Add(std::string_view line, int64_t line_no) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return Status::Ok();
  const std::string where = name_ + ":" + std::to_string(line_no);
  const int32_t block_tokens = block_tokens_;
  auto& out = out_;
  auto& by_id = by_id_;
  auto& format = format_;
  FRONTIER_ASSIGN_OR_RETURN(json o, ParseJsonObjectLine(line, where));
  if (format == TraceFormat::kAuto)
    format = o.contains("turns")        ? TraceFormat::kFrontier
             : o.contains("session_id") ? TraceFormat::kAgentic
                                        : TraceFormat::kMooncake;
  if (format == TraceFormat::kFrontier) {
    const bool keep = Keeps();
    ++sessions_seen_;
    if (keep) held_bytes_ += sizeof(TraceSession);
    TraceSession s;
    s.id = o.contains("session_id") ? IdText(o["session_id"]) : std::to_string(out.size());
    FRONTIER_ASSIGN_OR_RETURN(auto arrival, Millis(o, "arrival_ms", where));
    s.arrival_ns = arrival.value_or(0);
    const auto turns = o.find("turns");
    if (turns == o.end() || !turns->is_array() || turns->empty())
      return InvalidArgument(where + ": \"turns\" must be a non-empty array of turns");
    for (size_t k = 0; k < turns->size(); ++k) {
      const json& t = (*turns)[k];
      const std::string at = where + ": turns[" + std::to_string(k) + "]";
      TraceTurn turn;
      FRONTIER_ASSIGN_OR_RETURN(turn.request, Request(t, block_tokens, at));
      if (keep) {
        FRONTIER_RETURN_IF_ERROR(Count(turn.request, at));
      }
      FRONTIER_ASSIGN_OR_RETURN(turn.think_ns, Millis(t, "think_ms", at));
      if (const auto sub = t.find("subagents"); sub != t.end()) {
        if (!sub->is_array()) return InvalidArgument(at + ": \"subagents\" must be an array of requests");
        for (size_t j = 0; j < sub->size(); ++j) {
          FRONTIER_ASSIGN_OR_RETURN(TraceRequest r,
                                    Request((*sub)[j], block_tokens, at + ".subagents[" + std::to_string(j) + "]"));
          if (!keep) continue;
          FRONTIER_RETURN_IF_ERROR(Count(r, at));
          turn.subagents.push_back(std::move(r));
        }
      }
      if (keep) s.turns.push_back(std::move(turn));
    }
    if (keep) out.push_back(std::move(s));
  } else if (format == TraceFormat::kMooncake) {
    if (o.contains("session_id") || o.contains("delay"))
      return InvalidArgument(where + ": a mooncake line has no session_id or delay; use --trace-format agentic");
    const bool keep = Keeps();
    ++sessions_seen_;
    TraceSession s;
    s.id = std::to_string(out.size());
    FRONTIER_ASSIGN_OR_RETURN(auto ts, Millis(o, "timestamp", where));
    s.arrival_ns = ts.value_or(0);
    TraceTurn turn;
    FRONTIER_ASSIGN_OR_RETURN(turn.request, Request(o, block_tokens, where));
    if (!keep) return Status::Ok();
    held_bytes_ += sizeof(TraceSession);
    FRONTIER_RETURN_IF_ERROR(Count(turn.request, where));
    s.turns.push_back(std::move(turn));
    out.push_back(std::move(s));
  } else {
    if (!o.contains("session_id"))
      return InvalidArgument(where + ": an agentic line needs \"session_id\" (the lines of a session are its turns)");
    if (o.contains("timestamp"))
      return InvalidArgument(where + ": \"timestamp\" cannot be given with session_id; use \"delay\" for the "
                                     "think time before a turn");
    const std::string id = IdText(o["session_id"]);
    auto [it, fresh] = by_id.emplace(id, kDropped);
    if (fresh) {
      // Every id is held (a later line of a dropped session must be known as such): counted.
      held_bytes_ += 64 + id.size();
      if (Keeps()) {
        it->second = out.size();
        held_bytes_ += sizeof(TraceSession);
        out.emplace_back();
        out.back().id = id;
      }
      ++sessions_seen_;
    }
    TraceTurn turn;
    FRONTIER_ASSIGN_OR_RETURN(turn.request, Request(o, block_tokens, where));
    FRONTIER_ASSIGN_OR_RETURN(turn.think_ns, Millis(o, "delay", where));
    if (it->second == kDropped) return CheckHeld(where);  // the ids alone may pass the bound
    FRONTIER_RETURN_IF_ERROR(Count(turn.request, where));
    out[it->second].turns.push_back(std::move(turn));
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<TraceSession>> ParseTrace(std::string_view text, TraceFormat format, int32_t block_tokens,
                                             const std::string& name, const TraceLimits& limits) {
  if (block_tokens < 1) return InvalidArgument("--trace-block-tokens must be at least 1");
  TraceParser parser(format, block_tokens, name, InputLimit(kMaxFileBytes), limits);
  size_t pos = 0;
  int64_t line_no = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    FRONTIER_RETURN_IF_ERROR(parser.Add(text.substr(pos, eol - pos), ++line_no));
    pos = eol + 1;
  }
  return parser.Finish();
}

Result<std::vector<TraceSession>> ReadTrace(const std::string& path, TraceFormat format, int32_t block_tokens,
                                            const TraceLimits& limits) {
  if (block_tokens < 1) return InvalidArgument("--trace-block-tokens must be at least 1");
  // Streamed: the file's text is never held, only its requests (counted).
  FRONTIER_ASSIGN_OR_RETURN(LineReader in, LineReader::Open(path, kMaxFileBytes, "traces"));
  TraceParser parser(format, block_tokens, path, in.limit(), limits);
  std::string line;
  while (true) {
    FRONTIER_ASSIGN_OR_RETURN(const bool more, in.Next(&line));
    if (!more) break;
    FRONTIER_RETURN_IF_ERROR(parser.Add(line, in.line_no()));
  }
  return parser.Finish();
}

std::string WriteTrace(const std::vector<TraceSession>& sessions) {
  std::string out;
  for (const TraceSession& s : sessions) {
    json o;
    o["session_id"] = s.id;
    o["arrival_ms"] = ToMillis(s.arrival_ns);
    json turns = json::array();
    for (const TraceTurn& t : s.turns) {
      json j = RequestJson(t.request);
      if (t.think_ns) j["think_ms"] = ToMillis(*t.think_ns);
      if (!t.subagents.empty()) {
        json sub = json::array();
        for (const TraceRequest& r : t.subagents) sub.push_back(RequestJson(r));
        j["subagents"] = std::move(sub);
      }
      turns.push_back(std::move(j));
    }
    o["turns"] = std::move(turns);
    out += o.dump() + "\n";
  }
  return out;
}

SessionWorkload BuildTraceSessions(const std::vector<TraceSession>& trace, const TraceBuildOptions& o) {
  SessionWorkload w;
  w.arrivals_given = true;
  int64_t serial = 0;  // every request's own tokens differ from every other's
  auto build = [&](const TraceRequest& r) {
    RequestSpec spec;
    spec.input_len = r.input_length;
    spec.output_len = r.output_length;
    spec.prompt_token_ids.reserve(static_cast<size_t>(r.input_length));
    for (int64_t h : r.hash_ids) {
      const int32_t room = r.input_length - static_cast<int32_t>(spec.prompt_token_ids.size());
      const std::vector<int32_t> block = HashIdTokens(h, std::min(room, o.block_tokens), o.seed, o.vocab_size);
      spec.prompt_token_ids.insert(spec.prompt_token_ids.end(), block.begin(), block.end());
    }
    const int32_t rest = r.input_length - static_cast<int32_t>(spec.prompt_token_ids.size());
    if (rest > 0) {
      // Salted apart from the hash-id blocks: never equal to a named block.
      const std::vector<int32_t> own = HashIdTokens(serial, rest, o.seed ^ 0x756e69717565ULL, o.vocab_size);
      spec.prompt_token_ids.insert(spec.prompt_token_ids.end(), own.begin(), own.end());
    }
    ++serial;
    return spec;
  };
  for (const TraceSession& ts : trace) {
    Session s;
    s.id = static_cast<int64_t>(w.sessions.size());
    s.name = ts.id;
    s.arrival_ns = ts.arrival_ns;
    for (const TraceTurn& tt : ts.turns) {
      Turn t;
      t.request = build(tt.request);
      t.think_ns = tt.think_ns.value_or(-1);
      for (const TraceRequest& r : tt.subagents) t.subagents.push_back(build(r));
      s.turns.push_back(std::move(t));
    }
    w.sessions.push_back(std::move(s));
  }
  return w;
}

}  // namespace frontier::workload
