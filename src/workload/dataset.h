// dataset.h: the workloads `frontier bench` and `frontier simulate` send, from
// one set of options: synthetic random prompts, ShareGPT conversations, or a
// JSONL file of prompts.
//
//   DatasetOptions o;
//   o.kind = DatasetKind::kShareGpt;
//   o.path = "ShareGPT_V3_unfiltered_cleaned_split.json";
//   o.num_prompts = 500;
//   Result<std::vector<RequestSpec>> specs = LoadDataset(o);
//
// Token counts of text prompts. frontier ships no tokenizer, so the length of
// a text (a ShareGPT turn, a JSONL prompt) is estimated as
//     EstimateTokens(text) = max(1, round(utf8_code_points / 4))
// (about four characters per token, the usual figure for English under BPE
// tokenizers). The estimate only drives filtering and the records' prompt
// length until the server reports `usage.prompt_tokens`, which then replaces
// it (RequestRecord::prompt_tokens). Output lengths of ShareGPT requests (the
// reference answer's length) use the same rule and become max_tokens.
//
// ShareGPT: a JSON array of {"conversations": [{"from": "human"|"gpt", "value": ...}, ...]}.
// Like vLLM's benchmark: conversations with fewer than two turns are skipped,
// the list is shuffled with the seed, the first turn is the prompt and the
// second turn's length is the output length; pairs with a prompt or output
// under 4 tokens, a prompt over 1024 or prompt + output over 2048 tokens are
// skipped (unless `sharegpt_output_len` fixes the output length). The first
// turn must come from "human" and the second from "gpt".
//
// JSONL: one object a line, {"prompt": "...", "output_len": N}; blank lines
// are skipped; the file's order is kept (no shuffle).
//
// MLPerf ("mlperf:llama2-70b", "mlperf:mixtral-8x7b"): lengths drawn from the
// benchmark's published length distribution (length_table.h; the tables file
// is `path`, else the data directory's kLengthTablesFile), prompts of random token
// ids of exactly those lengths (or their text form) as the random dataset makes them.
//
// Shared prefix (generators.h): SGLang's generated-shared-prefix workload,
// num_prompts requests cycled from its G x P prompts.
//
// Session workloads (session.h), loaded with LoadSessionWorkload: "trace"
// (a trace file, trace.h; num_prompts = 0 takes all its sessions) and
// "multi-turn" (the multi-turn chat generator; num_prompts sessions). Their
// think times are sampled with `think` where not given.
//
// Cancellation (cancel.h): with cancel.fraction > 0 the chosen requests (or
// session requests) carry their cancel point.
//
// Reading a file dataset once for several draws (a sweep's points): the
// entries a ShareGPT or JSONL read keeps for n requests are the first n of
// those it keeps for any m >= n (JSONL: the file's first usable lines;
// ShareGPT: the usable conversations of the smallest seed-derived keys, in
// key order). So ReadDatasetEntries with the largest count, then DrawDataset
// per count, gives each count's requests exactly as LoadDataset does (which
// is the two in one).
//
// Thread safety: pure functions of their options (they read files).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "workload/cancel.h"
#include "workload/generators.h"
#include "workload/random_dataset.h"
#include "workload/request_spec.h"
#include "workload/session.h"
#include "workload/trace.h"

namespace frontier::workload {

enum class DatasetKind { kRandom, kShareGpt, kJsonl, kSharedPrefix, kTrace, kMultiTurn, kMlperf };

// "random", "sharegpt", "jsonl", "shared-prefix", "trace", "multi-turn", "mlperf".
const char* DatasetKindName(DatasetKind kind);
// Parses a --dataset value; InvalidArgument naming the flag otherwise.
// "mlperf:NAME" is kMlperf (MlperfTableName gives NAME).
Result<DatasetKind> ParseDatasetKind(std::string_view name);
// NAME of a "mlperf:NAME" dataset value ("" for any other).
std::string MlperfTableName(std::string_view dataset);
// Where the MLPerf length tables live under the data directory.
inline constexpr const char* kLengthTablesFile = "validation/datasets.json";

struct DatasetOptions {
  DatasetKind kind = DatasetKind::kRandom;
  std::string path;            // required for sharegpt and jsonl; kMlperf: the length tables file (default below)
  std::string length_table;    // kMlperf: the table's name or benchmark ("llama2-70b")
  int64_t num_prompts = 1000;  // how many requests to return
  uint64_t seed = 0;
  // kRandom only: lengths, prefix, vocabulary and prompt format
  // (random.num_prompts and random.seed are overwritten by the two above).
  RandomDatasetOptions random;
  // kShareGpt: fixes every request's output length instead of the reference answer's.
  std::optional<int32_t> sharegpt_output_len;
  // File datasets: when the file holds fewer usable entries than num_prompts,
  // cycle through them again (true) or fail naming the count (false).
  bool allow_repeat = false;
  // kSharedPrefix (its seed is overwritten by `seed`).
  SharedPrefixOptions shared_prefix;
  // kTrace: the file is `path`.
  TraceFormat trace_format = TraceFormat::kAuto;
  int32_t trace_block_tokens = kMooncakeBlockTokens;
  // kMultiTurn (num_sessions and seed are overwritten by num_prompts and seed;
  // the vocabulary by random.vocab_size).
  MultiTurnOptions multi_turn;
  ThinkTimeOptions think;      // session workloads; its seed is overwritten by `seed`
  CancelOptions cancel;        // its seed is overwritten by `seed`
};

// Whether the kind is a session workload (LoadSessionWorkload, not LoadDataset).
bool IsSessionKind(DatasetKind kind);

// max(1, round(code points / 4)); see the header comment.
int32_t EstimateTokens(std::string_view text);

// The requests, ids 0..n-1. Fails with InvalidArgument naming the file, line
// and field for a malformed file, NotFound for a missing one.
Result<std::vector<RequestSpec>> LoadDataset(const DatasetOptions& options);

// Whether the kind is read from a file whole for each draw: sharegpt, jsonl
// (ReadDatasetEntries).
bool IsFileDataset(DatasetKind kind);

// One usable entry of a dataset file: a prompt and its lengths.
struct DatasetEntry {
  std::string prompt;
  int32_t input_len = 0;   // EstimateTokens(prompt)
  int32_t output_len = 0;
};

// The entries a read of a dataset file keeps, in draw order, and how many
// usable entries the file holds.
struct DatasetEntries {
  std::vector<DatasetEntry> entries;  // the first min(usable, num_prompts of the read)
  int64_t usable = 0;
  // Whether a draw of n requests may be made from these: they hold n entries,
  // or all the file has.
  bool Covers(int64_t n) const {
    return n <= static_cast<int64_t>(entries.size()) || static_cast<int64_t>(entries.size()) == usable;
  }
};

// Reads and checks a file dataset (IsFileDataset), keeping the entries of
// `options.num_prompts` requests. The errors of LoadDataset's read: the
// option checks, NotFound for a missing file, InvalidArgument naming the
// line and field of a malformed one; past the check num_prompts >= 1, none
// depends on num_prompts.
Result<DatasetEntries> ReadDatasetEntries(const DatasetOptions& options);

// LoadDataset's requests for `options` from `entries`, read with the same
// kind, path, seed and sharegpt_output_len (any num_prompts): cycled through
// when fewer (allow_repeat), then cancellation applied. Its errors are
// LoadDataset's after the read; FailedPrecondition when `entries` do not
// Cover options.num_prompts.
Result<std::vector<RequestSpec>> DrawDataset(const DatasetEntries& entries, const DatasetOptions& options);

// The session workload of a session kind (InvalidArgument for another kind),
// think times sampled and cancellation applied.
Result<SessionWorkload> LoadSessionWorkload(const DatasetOptions& options);

}  // namespace frontier::workload
