// random_dataset.h: synthetic prompts of controlled length, as vLLM's
// `--dataset-name random` makes them.
//
// Lengths: input and output lengths are drawn independently and uniformly from
// the integers in [floor((1-r)L), ceil((1+r)L)] (r = range_ratio), as vLLM
// does. A shared prefix of `prefix_len` tokens (the same for every request) is
// prepended, so a request's input length is prefix_len + its drawn length.
//
// Token ids are drawn uniformly from [kFirstTokenId, vocab_size); in text form
// each token becomes one short word from a fixed list, so a server that
// tokenizes text sees roughly one token per word (not exactly: say so when
// text is used).
//
// Thread safety: pure function of its options.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "workload/request_spec.h"

namespace frontier::workload {

enum class PromptFormat { kTokenIds, kText };

struct RandomDatasetOptions {
  int64_t num_prompts = 1000;     // how many requests
  int32_t input_len = 1024;       // mean input length L (tokens), excluding the prefix
  int32_t output_len = 128;       // mean output length (tokens)
  double range_ratio = 0.0;       // r in [0, 1): lengths uniform in [(1-r)L, (1+r)L]
  int32_t prefix_len = 0;         // shared prefix, tokens
  int32_t vocab_size = 32000;     // token ids are drawn below this
  PromptFormat format = PromptFormat::kTokenIds;
  uint64_t seed = 0;
};

inline constexpr int32_t kFirstTokenId = 100;  // skip special tokens at the low ids

// The text form of token ids: one word per id, separated by single spaces.
std::string TokenIdsAsText(std::span<const int32_t> ids);

// Fails with InvalidArgument naming the option when a value is out of range.
Result<std::vector<RequestSpec>> MakeRandomDataset(const RandomDatasetOptions& options);

// MakeRandomDataset's requests without their prompts: ids and the drawn
// lengths only (the same lengths for the same options), for a consumer that
// needs no prompt (the simulator's validation records).
Result<std::vector<RequestSpec>> DrawRandomLengths(const RandomDatasetOptions& options);

// The prompts of requests whose lengths are already drawn: each spec's
// input_len token ids, uniform in [kFirstTokenId, vocab_size), the first
// `prefix_len` of them the same for every request, as token ids or their text
// form. MakeRandomDataset's prompts, for other length distributions
// (dataset.h's MLPerf tables). InvalidArgument for a vocabulary too small.
Status FillRandomPrompts(std::span<RequestSpec> specs, int32_t prefix_len, int32_t vocab_size, PromptFormat format,
                         uint64_t seed);

}  // namespace frontier::workload
