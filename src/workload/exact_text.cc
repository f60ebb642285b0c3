// exact_text.cc: the decode / re-encode / adjust loop. The prefix is made to
// its length on its own and the rest is adjusted with the prefix in front, so
// that a token merging across the join is counted where the server counts it.
#include "workload/exact_text.h"

#include <cstdlib>
#include <memory>

namespace frontier::workload {
namespace {

// Uniform over the tokenizer's ordinary ids (no special, added or unknown).
class OrdinaryIds {
 public:
  explicit OrdinaryIds(const tokenizer::Tokenizer& tok) {
    for (int32_t id = 0; id < tok.vocab_size(); ++id) {
      if (tok.IsOrdinary(id)) ids_.push_back(id);
    }
  }
  bool empty() const { return ids_.empty(); }
  int32_t Draw(std::mt19937_64* rng) const {
    return ids_[std::uniform_int_distribution<size_t>(0, ids_.size() - 1)(*rng)];
  }

 private:
  std::vector<int32_t> ids_;
};

// Text of n tokens after `before` (whose text is counted separately).
std::string Adjust(const tokenizer::Tokenizer& tok, const OrdinaryIds& pool, const std::string& before,
                   int32_t before_tokens, std::vector<int32_t> ids, int32_t n, std::mt19937_64* rng, int32_t* tokens) {
  std::string text = tok.Decode(ids);
  int32_t got = 0;
  for (int round = 0; round < kExactTextRounds; ++round) {
    text = tok.Decode(ids);
    const std::vector<int32_t> all = tok.Encode(before + text);
    got = static_cast<int32_t>(all.size()) - before_tokens;
    if (got == n) break;
    // Continue from the ids the text really has after the prefix.
    ids.assign(all.begin() + std::min<ptrdiff_t>(before_tokens, static_cast<ptrdiff_t>(all.size())), all.end());
    if (got > n) {
      ids.resize(static_cast<size_t>(n));
    } else {
      while (static_cast<int32_t>(ids.size()) < n) ids.push_back(pool.Draw(rng));
    }
  }
  *tokens = got;
  return text;
}
}  // namespace

std::string ExactText(const tokenizer::Tokenizer& tok, std::vector<int32_t> seed_ids, int32_t n, std::mt19937_64* rng,
                      int32_t* tokens) {
  OrdinaryIds pool(tok);
  seed_ids.resize(static_cast<size_t>(std::max(0, n)), 0);
  for (int32_t& id : seed_ids) {
    if (!tok.IsOrdinary(id)) id = pool.Draw(rng);
  }
  return Adjust(tok, pool, "", 0, std::move(seed_ids), n, rng, tokens);
}

Status MakeExactTextPrompts(std::span<RequestSpec> specs, int32_t prefix_len, const tokenizer::Tokenizer& tok,
                            uint64_t seed, ExactTextStats* stats) {
  OrdinaryIds pool(tok);
  if (pool.empty()) return InvalidArgument("--tokenizer: the vocabulary has no ordinary tokens to make prompts of");
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + 3);
  auto draw = [&](int32_t n) {
    std::vector<int32_t> ids(static_cast<size_t>(std::max(0, n)));
    for (int32_t& id : ids) id = pool.Draw(&rng);
    return ids;
  };
  int32_t prefix_tokens = 0;
  const std::string prefix = prefix_len > 0 ? Adjust(tok, pool, "", 0, draw(prefix_len), prefix_len, &rng, &prefix_tokens) : "";
  for (RequestSpec& r : specs) {
    const int32_t own = std::max(0, r.input_len - prefix_tokens);
    int32_t got = 0;
    std::string text = prefix + Adjust(tok, pool, prefix, prefix_tokens, draw(own), own, &rng, &got);
    const int64_t deviation = std::llabs(static_cast<int64_t>(prefix_tokens) + got - r.input_len);
    r.prompt_text = std::move(text);
    r.prompt_token_ids.clear();
    ++stats->prompts;
    if (deviation == 0) ++stats->exact;
    stats->max_abs_deviation = std::max(stats->max_abs_deviation, deviation);
  }
  return Status::Ok();
}

Status TokenizePrompts(const std::string& path, std::span<RequestSpec> specs, int32_t prefix_len, uint64_t seed,
                       std::map<std::string, std::string>* settings) {
  FRONTIER_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::Tokenizer> tok, tokenizer::Tokenizer::Load(path));
  ExactTextStats stats;
  FRONTIER_RETURN_IF_ERROR(MakeExactTextPrompts(specs, prefix_len, *tok, seed, &stats));
  (*settings)["tokenizer"] = tok->Describe();
  (*settings)["tokenizer_exact_prompts"] = std::to_string(stats.exact) + "/" + std::to_string(stats.prompts) +
                                           " re-encode to input_len; max deviation " +
                                           std::to_string(stats.max_abs_deviation) + " tokens";
  return Status::Ok();
}

}  // namespace frontier::workload
