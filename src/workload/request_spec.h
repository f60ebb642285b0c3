// request_spec.h: one request of a workload, before it is sent or simulated.
//
// Thread safety: plain value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.h"

namespace frontier::workload {

struct RequestSpec {
  int64_t id = 0;                        // position in the workload, from 0
  int32_t input_len = 0;                 // prompt length in tokens (exact for token-id prompts)
  int32_t output_len = 0;                // tokens to generate (max_tokens)
  std::vector<int32_t> prompt_token_ids; // set when the prompt is sent as token ids
  std::string prompt_text;               // set when the prompt is sent as text
  // For chat datasets: the prompt as one user message; the client wraps prompt_text.
  // Ask the Target to hand back the answer, for sessions whose next turn
  // carries it: the generated token ids (RequestRecord::output_token_ids),
  // or the generated text from a Target that answers in text
  // (loadgen/text_answers.h).
  bool want_output_ids = false;
  // Cancellation (workload/cancel.h): the client abandons the request after
  // this many output tokens, or this long after it was sent; 0 = never.
  int32_t cancel_after_tokens = 0;
  Nanos cancel_after_ns = 0;
};

}  // namespace frontier::workload
