#include "workload/generators.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include "core/limits.h"
#include "workload/random_dataset.h"

namespace frontier::workload {
namespace {

std::vector<int32_t> Draw(std::mt19937_64& rng, int32_t n, int32_t vocab) {
  std::uniform_int_distribution<int32_t> tok(kFirstTokenId, vocab - 1);
  std::vector<int32_t> out(static_cast<size_t>(n));
  for (auto& t : out) t = tok(rng);
  return out;
}

Status Range(const char* flag, int64_t v, int64_t lo, int64_t hi) {
  if (v >= lo && v <= hi) return Status::Ok();
  return InvalidArgument(std::string(flag) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                         "], got " + std::to_string(v));
}

}  // namespace

Status CheckSharedPrefix(const SharedPrefixOptions& o) {
  FRONTIER_RETURN_IF_ERROR(Range("--gsp-num-groups", o.num_groups, 1, kMaxRunRequests));
  FRONTIER_RETURN_IF_ERROR(Range("--gsp-prompts-per-group", o.prompts_per_group, 1, kMaxRunRequests));
  FRONTIER_RETURN_IF_ERROR(Range("--gsp-system-prompt-len", o.system_prompt_len, 0, kMaxRequestLength));
  FRONTIER_RETURN_IF_ERROR(Range("--gsp-question-len", o.question_len, 1, kMaxRequestLength));
  FRONTIER_RETURN_IF_ERROR(Range("--gsp-output-len", o.output_len, 1, kMaxRequestLength));
  if (o.num_groups * o.prompts_per_group > kMaxRunRequests)
    return InvalidArgument("--gsp-num-groups x --gsp-prompts-per-group must be at most " +
                           std::to_string(kMaxRunRequests));
  const double tokens = static_cast<double>(o.num_groups * o.prompts_per_group) *
                        (static_cast<double>(o.system_prompt_len) + o.question_len);
  if (tokens > static_cast<double>(kMaxRunPromptTokens))
    return InvalidArgument("the shared-prefix prompts would hold " + std::to_string(static_cast<int64_t>(tokens)) +
                           " tokens (--gsp-num-groups x --gsp-prompts-per-group x (--gsp-system-prompt-len + "
                           "--gsp-question-len)); at most " + std::to_string(kMaxRunPromptTokens));
  return Status::Ok();
}

Result<std::vector<RequestSpec>> MakeSharedPrefix(const SharedPrefixOptions& o) {
  FRONTIER_RETURN_IF_ERROR(CheckSharedPrefix(o));
  std::mt19937_64 rng(o.seed);
  std::vector<RequestSpec> out;
  out.reserve(static_cast<size_t>(o.num_groups * o.prompts_per_group));
  for (int64_t g = 0; g < o.num_groups; ++g) {
    const std::vector<int32_t> system = Draw(rng, o.system_prompt_len, o.vocab_size);
    for (int64_t p = 0; p < o.prompts_per_group; ++p) {
      RequestSpec r;
      r.prompt_token_ids = system;
      const std::vector<int32_t> q = Draw(rng, o.question_len, o.vocab_size);
      r.prompt_token_ids.insert(r.prompt_token_ids.end(), q.begin(), q.end());
      r.input_len = static_cast<int32_t>(r.prompt_token_ids.size());
      r.output_len = o.output_len;
      out.push_back(std::move(r));
    }
  }
  std::shuffle(out.begin(), out.end(), rng);
  for (size_t i = 0; i < out.size(); ++i) out[i].id = static_cast<int64_t>(i);
  return out;
}

Result<SessionWorkload> MakeMultiTurn(const MultiTurnOptions& o) {
  FRONTIER_RETURN_IF_ERROR(Range("--num-prompts (sessions)", o.num_sessions, 1, kMaxRunRequests));
  FRONTIER_RETURN_IF_ERROR(Range("--mt-turns", o.turns, 1, 10'000));
  FRONTIER_RETURN_IF_ERROR(Range("--mt-system-prompt-len", o.system_prompt_len, 0, kMaxRequestLength));
  FRONTIER_RETURN_IF_ERROR(Range("--mt-message-len", o.message_len, 1, kMaxRequestLength));
  FRONTIER_RETURN_IF_ERROR(Range("--output-len", o.output_len, 1, kMaxRequestLength));
  if (!(o.range_ratio >= 0 && o.range_ratio < 1)) return InvalidArgument("--range-ratio must be in [0, 1)");
  if (o.num_sessions * o.turns > kMaxRunRequests)
    return InvalidArgument("--num-prompts x --mt-turns must be at most " + std::to_string(kMaxRunRequests));
  std::mt19937_64 rng(o.seed);
  const std::vector<int32_t> system = Draw(rng, o.system_prompt_len, o.vocab_size);
  const auto lo = std::max<int32_t>(1, static_cast<int32_t>(std::floor(o.message_len * (1.0 - o.range_ratio))));
  const auto hi = std::max<int32_t>(lo, static_cast<int32_t>(std::ceil(o.message_len * (1.0 + o.range_ratio))));
  std::uniform_int_distribution<int32_t> len(lo, hi);
  SessionWorkload w;
  w.grow_context = true;
  for (int64_t i = 0; i < o.num_sessions; ++i) {
    Session s;
    s.id = i;
    s.name = std::to_string(i);
    for (int32_t k = 0; k < o.turns; ++k) {
      Turn t;
      if (k == 0) t.request.prompt_token_ids = system;
      const std::vector<int32_t> m = Draw(rng, len(rng), o.vocab_size);
      t.request.prompt_token_ids.insert(t.request.prompt_token_ids.end(), m.begin(), m.end());
      t.request.input_len = static_cast<int32_t>(t.request.prompt_token_ids.size());
      t.request.output_len = o.output_len;
      if (o.format == PromptFormat::kText) t.request.prompt_text = TokenIdsAsText(std::exchange(t.request.prompt_token_ids, {}));
      s.turns.push_back(std::move(t));
    }
    w.sessions.push_back(std::move(s));
  }
  return w;
}

}  // namespace frontier::workload
