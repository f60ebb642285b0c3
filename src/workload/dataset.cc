#include "workload/dataset.h"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <fstream>
#include <iterator>
#include <tuple>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/data_dir.h"
#include "core/limits.h"
#include "core/line_reader.h"
#include "core/name_table.h"
#include "core/parse.h"
#include "workload/dataset_label.h"
#include "workload/json_line.h"
#include "workload/length_table.h"

namespace frontier::workload {
namespace {

using nlohmann::json;

// vLLM's ShareGPT filter bounds (tokens).
constexpr int32_t kMinLen = 4;
constexpr int32_t kMaxPrompt = 1024;
constexpr int32_t kMaxTotal = 2048;

// A prompt of a dataset file within core's bound on one request's length.
Status CheckPromptLength(const std::string& where, int64_t tokens) {
  if (tokens <= kMaxRequestLength) return Status::Ok();
  return InvalidArgument(where + ": the prompt is about " + std::to_string(tokens) +
                         " tokens; one request's prompt is at most " + std::to_string(kMaxRequestLength) +
                         " (docs/limits.md)");
}

// The requests of the first min(n, held) entries, cycled to n: what a read
// for n entries gives (see DrawDataset).
Result<std::vector<RequestSpec>> Finish(const std::vector<DatasetEntry>& held, const DatasetOptions& o) {
  const char* what = o.kind == DatasetKind::kShareGpt ? "ShareGPT conversations" : "JSONL lines";
  const size_t count = std::min(held.size(), static_cast<size_t>(o.num_prompts));
  if (count == 0) return InvalidArgument(o.path + ": no usable " + what + " (see docs/bench.md for the format)");
  if (static_cast<int64_t>(count) < o.num_prompts && !o.allow_repeat)
    return InvalidArgument(o.path + ": only " + std::to_string(count) + " usable " + what +
                           ", fewer than --num-prompts " + std::to_string(o.num_prompts) +
                           "; lower --num-prompts");
  std::vector<RequestSpec> out;
  out.reserve(static_cast<size_t>(o.num_prompts));
  for (int64_t i = 0; i < o.num_prompts; ++i) {
    const DatasetEntry& e = held[static_cast<size_t>(i) % count];
    RequestSpec r;
    r.id = i;
    r.input_len = e.input_len;
    r.output_len = e.output_len;
    r.prompt_text = e.prompt;
    out.push_back(std::move(r));
  }
  return out;
}

// The characters of a file read through a LineReader (its bound applies), as
// the input iterator nlohmann's parser takes, counting lines for messages.
class StreamChars {
 public:
  explicit StreamChars(LineReader* in) : in_(in) { Fill(); }

  bool AtEnd() const { return pos_ >= len_; }
  const char& Current() const { return buf_[pos_]; }
  void Advance() {
    if (buf_[pos_] == '\n') ++line_;
    if (++pos_ >= len_) Fill();
  }
  int64_t line() const { return line_; }
  const Status& status() const { return status_; }

  struct Iterator {
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    StreamChars* src = nullptr;
    reference operator*() const { return src->Current(); }
    Iterator& operator++() {
      src->Advance();
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      src->Advance();
      return before;
    }
    bool operator==(const Iterator& other) const { return Done() == other.Done(); }
    bool operator!=(const Iterator& other) const { return !(*this == other); }
    bool Done() const { return src == nullptr || src->AtEnd(); }
  };
  Iterator begin() { return Iterator{this}; }
  static Iterator end() { return Iterator{}; }

 private:
  void Fill() {
    pos_ = len_ = 0;
    if (!status_.ok()) return;
    Result<size_t> got = in_->Read(buf_, sizeof buf_);
    if (!got.ok()) {
      status_ = got.status();  // past the bound, or a failed read: the stream ends here
      return;
    }
    len_ = *got;
  }

  LineReader* in_;
  char buf_[1 << 16];
  size_t pos_ = 0, len_ = 0;
  int64_t line_ = 1;
  Status status_ = Status::Ok();
};

// A ShareGPT entry's JSON values (a conversation holds a few dozen): past
// this, one entry would hold too much parsed at once.
constexpr int64_t kMaxShareGptEntryValues = 100'000;
// Nesting of a ShareGPT file: array, entry, conversations, turn, and room.
constexpr int kMaxShareGptDepth = 16;

// Ends the parse from its callback with a message (not a JSON error).
struct StopParse {
  std::string message;
};

// Streamed: the file is parsed one entry at a time (each checked, then
// dropped), and only the --num-prompts usable conversations a run takes are
// held. Which ones: those whose keys, drawn from the seed and their index,
// are the smallest, in key order (a shuffle that needs no count up front).
Result<DatasetEntries> ReadShareGpt(const DatasetOptions& o) {
  Result<LineReader> in = LineReader::Open(o.path, kMaxFileBytes, "datasets");
  if (!in.ok() && in.status().code() == StatusCode::kNotFound)
    return NotFound(o.path + ": cannot open the --dataset-path file");
  if (!in.ok()) return in.status();
  StreamChars chars(&*in);

  struct Kept {
    uint64_t key = 0;
    int64_t index = 0;
    DatasetEntry entry;
  };
  auto before = [](const Kept& a, const Kept& b) { return std::tie(a.key, a.index) < std::tie(b.key, b.index); };
  std::vector<Kept> kept;  // a max-heap by key: the largest of those kept on top
  const size_t wanted = static_cast<size_t>(std::max<int64_t>(o.num_prompts, 1));
  const uint64_t salt = o.seed * 0x9E3779B97F4A7C15ULL + 3;
  auto key_of = [&](uint64_t index) {  // splitmix64 of the salted index
    uint64_t z = salt + (index + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };

  int64_t index = 0;   // of the entry being parsed
  int64_t values = 0;  // in it
  int64_t usable = 0;  // entries that passed the filters
  // Checks one entry; keeps it when usable and among the smallest keys.
  auto take = [&](const json& item) {
    const std::string where = o.path + ": entry " + std::to_string(index);
    if (!item.is_object() || !item.contains("conversations") || !item["conversations"].is_array())
      throw StopParse{where + ": field \"conversations\" is missing or not an array"};
    const json& conv = item["conversations"];
    if (conv.size() < 2) return;
    std::string turn_text[2];
    bool pair = true;  // a human prompt followed by a gpt answer
    for (int t = 0; t < 2 && pair; ++t) {
      const json& turn = conv[static_cast<size_t>(t)];
      const std::string field = "conversations[" + std::to_string(t) + "]";
      if (!turn.is_object() || !turn.contains("value") || !turn["value"].is_string())
        throw StopParse{where + ": field \"" + field + ".value\" is missing or not a string"};
      if (turn.contains("from") && turn["from"].is_string()) {
        const std::string& from = turn["from"].get_ref<const std::string&>();
        const bool human = from == "human" || from == "user";
        if ((t == 0) != human) pair = false;
      }
      turn_text[t] = turn["value"].get<std::string>();
    }
    if (!pair) return;
    DatasetEntry e;
    e.input_len = EstimateTokens(turn_text[0]);
    if (Status st = CheckPromptLength(where, e.input_len); !st.ok()) throw StopParse{st.message()};
    e.output_len = o.sharegpt_output_len ? *o.sharegpt_output_len : EstimateTokens(turn_text[1]);
    if (!o.sharegpt_output_len) {
      if (e.input_len < kMinLen || e.output_len < kMinLen) return;
      if (e.input_len > kMaxPrompt || e.input_len + e.output_len > kMaxTotal) return;
    }
    ++usable;
    Kept k{key_of(static_cast<uint64_t>(index)), index, {}};
    if (kept.size() == wanted && !before(k, kept.front())) return;
    e.prompt = std::move(turn_text[0]);
    k.entry = std::move(e);
    if (kept.size() == wanted) {
      std::pop_heap(kept.begin(), kept.end(), before);
      kept.pop_back();
    }
    kept.push_back(std::move(k));
    std::push_heap(kept.begin(), kept.end(), before);
  };
  const std::string not_array =
      o.path + ":1: a ShareGPT file is a JSON array of {\"conversations\": [...]} objects";
  json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json& parsed) -> bool {
    using E = json::parse_event_t;
    if (depth == 0 && (event == E::object_start || event == E::value)) throw StopParse{not_array};
    if (depth > kMaxShareGptDepth) throw StopParse{o.path + ":" + std::to_string(chars.line()) + ": entry " +
                                                   std::to_string(index) + ": nested deeper than " +
                                                   std::to_string(kMaxShareGptDepth) + " levels"};
    if (depth >= 1 && (event == E::value || event == E::object_start || event == E::array_start) &&
        ++values > kMaxShareGptEntryValues)
      throw StopParse{o.path + ":" + std::to_string(chars.line()) + ": entry " + std::to_string(index) +
                      ": more than " + std::to_string(kMaxShareGptEntryValues) +
                      " JSON values in one entry (a conversation holds a few dozen; docs/limits.md)"};
    if (depth == 1 && (event == E::object_end || event == E::array_end || event == E::value)) {
      take(parsed);
      ++index;
      values = 0;
      return false;  // checked, and kept (or not) above: the parse holds no entry
    }
    return true;
  };
  try {
    const json rest = json::parse(chars.begin(), StreamChars::end(), callback);
    (void)rest;  // the top-level array, every entry discarded by the callback
  } catch (const StopParse& stop) {
    return InvalidArgument(stop.message);
  } catch (const json::parse_error& e) {
    if (!chars.status().ok()) return chars.status();  // the bound, or a failed read, ended the text
    return InvalidArgument(o.path + ":" + std::to_string(chars.line()) + ": not valid JSON (" + e.what() + ")");
  }
  if (!chars.status().ok()) return chars.status();
  std::sort(kept.begin(), kept.end(), before);
  DatasetEntries out;
  out.usable = usable;
  out.entries.reserve(kept.size());
  for (Kept& k : kept) out.entries.push_back(std::move(k.entry));
  return out;
}

Result<DatasetEntries> ReadJsonl(const DatasetOptions& o) {
  // Streamed within core's bound, so an endless file (/dev/zero) ends at the
  // bound and the file's text is never held. Every line is checked; only the
  // entries used, as many as --num-prompts (Finish cycles through them), are
  // kept.
  Result<LineReader> in = LineReader::Open(o.path, kMaxFileBytes, "datasets");
  if (!in.ok() && in.status().code() == StatusCode::kNotFound)
    return NotFound(o.path + ": cannot open the --dataset-path file");
  if (!in.ok()) return in.status();
  DatasetEntries out;
  std::string line;
  while (true) {
    FRONTIER_ASSIGN_OR_RETURN(const bool more, in->Next(&line));
    if (!more) break;
    const int64_t lineno = in->line_no();
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = o.path + ":" + std::to_string(lineno);
    FRONTIER_ASSIGN_OR_RETURN(json j, ParseJsonObjectLine(line, where));
    if (!j.contains("prompt") || !j["prompt"].is_string() || j["prompt"].get_ref<const std::string&>().empty())
      return InvalidArgument(where + ": field \"prompt\" is missing, empty or not a string");
    // One request's lengths within core's bound (core/limits.h, docs/limits.md).
    const auto output_len = j.find("output_len");
    if (output_len == j.end() || !output_len->is_number_integer() ||
        (output_len->is_number_unsigned() && output_len->get<uint64_t>() > uint64_t{INT64_MAX}))
      return InvalidArgument(where + ": field \"output_len\" must be an integer in [1, " +
                             std::to_string(kMaxRequestLength) + "], got " +
                             (output_len == j.end() ? std::string("nothing") : output_len->dump()));
    FRONTIER_RETURN_IF_ERROR(
        CheckRange(where + ": field \"output_len\"", output_len->get<int64_t>(), 1, kMaxRequestLength));
    DatasetEntry e;
    e.prompt = j["prompt"].get<std::string>();
    e.input_len = EstimateTokens(e.prompt);
    FRONTIER_RETURN_IF_ERROR(CheckPromptLength(where, e.input_len));
    e.output_len = static_cast<int32_t>(output_len->get<int64_t>());
    if (static_cast<int64_t>(out.entries.size()) < o.num_prompts) out.entries.push_back(std::move(e));
    ++out.usable;
  }
  return out;
}

}  // namespace

std::string DatasetLabel(const DatasetOptions& options) {
  if (options.kind == DatasetKind::kRandom)
    return std::to_string(options.random.input_len) + "/" + std::to_string(options.random.output_len);
  return DatasetKindName(options.kind);
}

constexpr NameEntry<DatasetKind> kDatasetKindNames[] = {
    {DatasetKind::kRandom, "random"},       {DatasetKind::kShareGpt, "sharegpt"},
    {DatasetKind::kJsonl, "jsonl"},         {DatasetKind::kSharedPrefix, "shared-prefix"},
    {DatasetKind::kTrace, "trace"},         {DatasetKind::kMultiTurn, "multi-turn"},
    {DatasetKind::kMlperf, "mlperf"}};

const char* DatasetKindName(DatasetKind kind) { return NameOf(kDatasetKindNames, kind, "random"); }

bool IsSessionKind(DatasetKind kind) { return kind == DatasetKind::kTrace || kind == DatasetKind::kMultiTurn; }

Result<DatasetKind> ParseDatasetKind(std::string_view name) {
  // "mlperf" alone names no table: it is written mlperf:BENCHMARK.
  if (std::optional<DatasetKind> k = ValueOf(kDatasetKindNames, name); k && *k != DatasetKind::kMlperf) return *k;
  if (name.starts_with("mlperf:") && name.size() > 7) return DatasetKind::kMlperf;
  return InvalidArgument("--dataset must be random, sharegpt, jsonl, shared-prefix, trace, multi-turn or "
                         "mlperf:BENCHMARK (llama2-70b, mixtral-8x7b), got '" + std::string(name) + "'");
}

std::string MlperfTableName(std::string_view dataset) {
  return dataset.starts_with("mlperf:") ? std::string(dataset.substr(7)) : std::string();
}

int32_t EstimateTokens(std::string_view text) {
  int64_t code_points = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++code_points;  // count lead bytes only
  return static_cast<int32_t>(std::max<int64_t>(1, std::llround(code_points / 4.0)));
}

namespace {

Result<std::vector<RequestSpec>> LoadMlperf(const DatasetOptions& o) {
  const std::string path = o.path.empty() ? DefaultDataDir() + "/" + kLengthTablesFile : o.path;
  FRONTIER_ASSIGN_OR_RETURN(std::vector<LengthTable> tables, ReadLengthTables(path));
  const LengthTable* t = FindLengthTable(tables, o.length_table);
  if (t == nullptr) {
    std::string known;
    for (const auto& x : tables)
      if (!x.benchmark.empty()) known += (known.empty() ? "" : ", ") + x.benchmark;
    return InvalidArgument("--dataset mlperf:" + o.length_table + ": no such benchmark in " + path + "; use " +
                           (known.empty() ? std::string("one of its tables") : known));
  }
  std::vector<RequestSpec> specs = DrawLengths(*t, o.num_prompts, 0, o.seed);
  FRONTIER_RETURN_IF_ERROR(FillRandomPrompts(specs, 0, o.random.vocab_size, o.random.format, o.seed));
  return specs;
}

Result<std::vector<RequestSpec>> LoadSpecs(const DatasetOptions& o) {
  if (o.num_prompts < 1) return InvalidArgument("--num-prompts must be at least 1");
  if (IsSessionKind(o.kind))
    return InvalidArgument(std::string("--dataset ") + DatasetKindName(o.kind) +
                           " is a session workload (LoadSessionWorkload)");
  if (o.kind == DatasetKind::kSharedPrefix) {
    SharedPrefixOptions g = o.shared_prefix;
    g.seed = o.seed;
    g.vocab_size = o.random.vocab_size;
    FRONTIER_ASSIGN_OR_RETURN(std::vector<RequestSpec> all, MakeSharedPrefix(g));
    std::vector<RequestSpec> out;
    out.reserve(static_cast<size_t>(o.num_prompts));
    for (int64_t i = 0; i < o.num_prompts; ++i) {
      out.push_back(all[static_cast<size_t>(i) % all.size()]);
      out.back().id = i;
    }
    return out;
  }
  if (o.kind == DatasetKind::kMlperf) return LoadMlperf(o);
  if (o.kind == DatasetKind::kRandom) {
    RandomDatasetOptions r = o.random;
    r.num_prompts = o.num_prompts;
    r.seed = o.seed;
    return MakeRandomDataset(r);
  }
  FRONTIER_ASSIGN_OR_RETURN(const DatasetEntries entries, ReadDatasetEntries(o));
  return Finish(entries.entries, o);
}

Status Cancel(const DatasetOptions& o, std::vector<RequestSpec>& specs) {
  if (o.cancel.fraction <= 0) return Status::Ok();
  CancelOptions c = o.cancel;
  c.seed = o.seed;
  return ApplyCancellation(c, specs).status();
}

}  // namespace

bool IsFileDataset(DatasetKind kind) { return kind == DatasetKind::kShareGpt || kind == DatasetKind::kJsonl; }

Result<DatasetEntries> ReadDatasetEntries(const DatasetOptions& o) {
  if (!IsFileDataset(o.kind))
    return InvalidArgument(std::string("--dataset ") + DatasetKindName(o.kind) + " is not read from a file");
  if (o.num_prompts < 1) return InvalidArgument("--num-prompts must be at least 1");
  if (o.path.empty())
    return InvalidArgument(std::string("--dataset ") + DatasetKindName(o.kind) +
                           " needs --dataset-path FILE");
  if (o.sharegpt_output_len && *o.sharegpt_output_len < 1)
    return InvalidArgument("--output-len must be at least 1 token");
  return o.kind == DatasetKind::kShareGpt ? ReadShareGpt(o) : ReadJsonl(o);
}

Result<std::vector<RequestSpec>> DrawDataset(const DatasetEntries& entries, const DatasetOptions& o) {
  if (o.num_prompts < 1) return InvalidArgument("--num-prompts must be at least 1");
  if (!entries.Covers(o.num_prompts))
    return FailedPrecondition(o.path + ": " + std::to_string(o.num_prompts) + " requests drawn from a read of " +
                              std::to_string(entries.entries.size()) + " entries; read it for that many");
  FRONTIER_ASSIGN_OR_RETURN(std::vector<RequestSpec> specs, Finish(entries.entries, o));
  FRONTIER_RETURN_IF_ERROR(Cancel(o, specs));
  return specs;
}

Result<std::vector<RequestSpec>> LoadDataset(const DatasetOptions& o) {
  FRONTIER_ASSIGN_OR_RETURN(std::vector<RequestSpec> specs, LoadSpecs(o));
  FRONTIER_RETURN_IF_ERROR(Cancel(o, specs));
  return specs;
}

Result<SessionWorkload> LoadSessionWorkload(const DatasetOptions& o) {
  SessionWorkload w;
  if (o.kind == DatasetKind::kTrace) {
    if (o.path.empty()) return InvalidArgument("--dataset trace needs --trace FILE");
    // Only the sessions a run uses are held (the rest of the file is checked),
    // their requests counted against the bound on a run's.
    TraceLimits limits;
    limits.max_sessions = std::max<int64_t>(o.num_prompts, 0);
    FRONTIER_ASSIGN_OR_RETURN(std::vector<TraceSession> trace,
                              ReadTrace(o.path, o.trace_format, o.trace_block_tokens, limits));
    TraceBuildOptions b;
    b.block_tokens = o.trace_block_tokens;
    b.vocab_size = o.random.vocab_size;
    b.seed = o.seed;
    w = BuildTraceSessions(trace, b);
  } else if (o.kind == DatasetKind::kMultiTurn) {
    MultiTurnOptions m = o.multi_turn;
    m.num_sessions = o.num_prompts;
    m.seed = o.seed;
    m.vocab_size = o.random.vocab_size;
    m.format = o.random.format;
    FRONTIER_ASSIGN_OR_RETURN(w, MakeMultiTurn(m));
  } else {
    return InvalidArgument(std::string("--dataset ") + DatasetKindName(o.kind) + " is not a session workload");
  }
  ThinkTimeOptions t = o.think;
  t.seed = o.seed;
  FRONTIER_RETURN_IF_ERROR(SampleThinkTimes(t, &w));
  if (o.cancel.fraction > 0) {
    CancelOptions c = o.cancel;
    c.seed = o.seed;
    FRONTIER_RETURN_IF_ERROR(ApplyCancellation(c, &w).status());
  }
  FRONTIER_RETURN_IF_ERROR(CheckSessions(w));
  // More sessions than the trace holds reuse it cyclically: judged now, before the run plans them.
  if (o.num_prompts > 0) FRONTIER_RETURN_IF_ERROR(CheckRunRequests(w, o.num_prompts, "--num-prompts"));
  return w;
}

}  // namespace frontier::workload
