// generators.h: synthetic workloads with shared prefixes.
//
// Shared prefix (as SGLang's `--dataset-name generated-shared-prefix`):
// G groups of P prompts; every prompt of a group starts with the group's
// system prompt (S random tokens, different per group) followed by its own
// question (Q random tokens); each asks for O output tokens. The G x P
// prompts are sent in a seeded random order. With an infinite block cache of
// B tokens the ideal hit rate is G (P - 1) B floor(min(S, S + Q - 1) / B) /
// (G P (S + Q)) (workload/prefix_blocks.h).
//
// Multi-turn chat: N sessions of T turns. Turn 0 sends a system prompt (S
// tokens, the same in every session, as one application's instructions are)
// and the first user message; each later turn sends every earlier prompt and
// the answer the server gave, then a new message. Messages are U tokens
// (uniform in [(1-r)U, (1+r)U] with range ratio r), answers ask for O
// tokens, and think times are sampled by SampleThinkTimes.
//
// Token ids are uniform in [kFirstTokenId, vocab_size), all from the seed.
// Multi-turn prompts in text form (format kText) are the same ids written as
// words (TokenIdsAsText, random_dataset.h), the form a growing session needs
// over HTTP, where answers come back as text (loadgen/session_runner.h).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "workload/random_dataset.h"
#include "workload/request_spec.h"
#include "workload/session.h"

namespace frontier::workload {

struct SharedPrefixOptions {
  int64_t num_groups = 64;          // G (SGLang's default)
  int64_t prompts_per_group = 16;   // P
  int32_t system_prompt_len = 2048; // S, tokens
  int32_t question_len = 128;       // Q, tokens
  int32_t output_len = 256;         // O, tokens
  int32_t vocab_size = 32000;
  uint64_t seed = 0;
};

// G x P requests, ids 0.. in send order. InvalidArgument naming the flag
// (CheckSharedPrefix).
Result<std::vector<RequestSpec>> MakeSharedPrefix(const SharedPrefixOptions& options);

// The bounds MakeSharedPrefix holds its options to, checked without making
// a prompt (a plan checks its workloads with it when it is read): each size
// in its range, G x P requests within kMaxRunRequests and their token ids
// within kMaxRunPromptTokens. InvalidArgument naming the flag.
Status CheckSharedPrefix(const SharedPrefixOptions& options);

struct MultiTurnOptions {
  int64_t num_sessions = 100;      // N
  int32_t turns = 5;               // T
  int32_t system_prompt_len = 0;   // S, tokens, shared by every session
  int32_t message_len = 256;       // U, tokens
  double range_ratio = 0;          // r in [0, 1)
  int32_t output_len = 128;        // O, tokens
  int32_t vocab_size = 32000;
  PromptFormat format = PromptFormat::kTokenIds;
  uint64_t seed = 0;
};

// The sessions, grow_context = true; think times left to SampleThinkTimes.
// Each turn's request holds only its new tokens (turn 0: system prompt and
// message). InvalidArgument naming the flag.
Result<SessionWorkload> MakeMultiTurn(const MultiTurnOptions& options);

}  // namespace frontier::workload
