#include "workload/random_dataset.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

namespace frontier::workload {
namespace {

// Short, common English words: one word per token in text prompts.
constexpr const char* kWords[] = {
    "the", "of", "and", "to", "in", "is", "it", "that", "for", "on", "was", "with", "as", "at",
    "by", "be", "this", "from", "or", "an", "are", "not", "but", "had", "his", "they", "you",
    "were", "her", "she", "there", "can", "all", "one", "their", "we", "him", "been", "has",
    "when", "who", "will", "more", "no", "if", "out", "so", "said", "what", "up", "its", "about",
    "into", "than", "them", "only", "other", "new", "some", "could", "time", "these", "two",
    "may", "then", "do", "first", "any", "my", "now", "such", "like", "our", "over", "man", "me",
    "even", "most", "made", "after", "also", "did", "many", "before", "must", "through", "back",
    "years", "where", "much", "your", "way", "well", "down", "should", "because", "each", "just",
    "those", "people", "how", "too", "little", "state", "good", "very", "make", "world", "still",
    "own", "see", "men", "work", "long", "get", "here", "between", "both", "life", "being",
    "under", "never", "day", "same", "another", "know", "while", "last", "might", "us", "great",
    "old", "year", "off", "come", "since", "against", "go", "came", "right", "used", "take"};
constexpr size_t kNumWords = sizeof(kWords) / sizeof(kWords[0]);

Status CheckOptions(const RandomDatasetOptions& o) {
  if (o.num_prompts <= 0) return InvalidArgument("--num-prompts must be at least 1");
  if (o.input_len < 1) return InvalidArgument("--input-len must be at least 1 token");
  if (o.output_len < 1) return InvalidArgument("--output-len must be at least 1 token");
  if (!(o.range_ratio >= 0.0 && o.range_ratio < 1.0))
    return InvalidArgument("--range-ratio must be in [0, 1), got " + std::to_string(o.range_ratio));
  if (o.prefix_len < 0) return InvalidArgument("--prefix-len must be 0 or more");
  if (o.vocab_size <= kFirstTokenId + 1)
    return InvalidArgument("vocab size must exceed " + std::to_string(kFirstTokenId + 1));
  return Status::Ok();
}

int32_t DrawLength(std::mt19937_64& rng, int32_t mean, double r) {
  const auto lo = std::max<int32_t>(1, static_cast<int32_t>(std::floor(mean * (1.0 - r))));
  const auto hi = std::max<int32_t>(lo, static_cast<int32_t>(std::ceil(mean * (1.0 + r))));
  std::uniform_int_distribution<int32_t> d(lo, hi);
  return d(rng);
}

}  // namespace

std::string TokenIdsAsText(std::span<const int32_t> ids) {
  std::string text;
  text.reserve(ids.size() * 5);
  for (size_t k = 0; k < ids.size(); ++k) {
    if (k) text.push_back(' ');
    text += kWords[static_cast<size_t>(ids[k]) % kNumWords];
  }
  return text;
}

Status FillRandomPrompts(std::span<RequestSpec> specs, int32_t prefix_len, int32_t vocab_size, PromptFormat format,
                         uint64_t seed) {
  if (vocab_size <= kFirstTokenId + 1) return InvalidArgument("vocab size must exceed " + std::to_string(kFirstTokenId + 1));
  // Its own stream, so that the lengths' draws do not reshuffle the tokens.
  std::mt19937_64 tok_rng(seed * 0x9E3779B97F4A7C15ULL + 2);
  std::uniform_int_distribution<int32_t> tok(kFirstTokenId, vocab_size - 1);
  std::vector<int32_t> prefix(static_cast<size_t>(std::max(0, prefix_len)));
  for (auto& t : prefix) t = tok(tok_rng);
  for (RequestSpec& r : specs) {
    std::vector<int32_t> ids = prefix;
    ids.reserve(static_cast<size_t>(std::max(r.input_len, prefix_len)));
    for (int32_t k = prefix_len; k < r.input_len; ++k) ids.push_back(tok(tok_rng));
    if (format == PromptFormat::kTokenIds) {
      r.prompt_token_ids = std::move(ids);
    } else {
      r.prompt_text = TokenIdsAsText(ids);
    }
  }
  return Status::Ok();
}

Result<std::vector<RequestSpec>> DrawRandomLengths(const RandomDatasetOptions& o) {
  FRONTIER_RETURN_IF_ERROR(CheckOptions(o));
  std::mt19937_64 len_rng(o.seed * 0x9E3779B97F4A7C15ULL + 1);
  std::vector<RequestSpec> out(static_cast<size_t>(o.num_prompts));
  for (int64_t i = 0; i < o.num_prompts; ++i) {
    RequestSpec& r = out[static_cast<size_t>(i)];
    r.id = i;
    r.input_len = o.prefix_len + DrawLength(len_rng, o.input_len, o.range_ratio);
    r.output_len = DrawLength(len_rng, o.output_len, o.range_ratio);
  }
  return out;
}

Result<std::vector<RequestSpec>> MakeRandomDataset(const RandomDatasetOptions& o) {
  FRONTIER_ASSIGN_OR_RETURN(std::vector<RequestSpec> out, DrawRandomLengths(o));
  FRONTIER_RETURN_IF_ERROR(FillRandomPrompts(out, o.prefix_len, o.vocab_size, o.format, o.seed));
  return out;
}

}  // namespace frontier::workload
