// request_spec.h: one request of a workload, before it is sent or simulated.
//
// Thread safety: plain value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace frontier::workload {

struct RequestSpec {
  int64_t id = 0;                        // position in the workload, from 0
  int32_t input_len = 0;                 // prompt length in tokens (exact for token-id prompts)
  int32_t output_len = 0;                // tokens to generate (max_tokens)
  std::vector<int32_t> prompt_token_ids; // set when the prompt is sent as token ids
  std::string prompt_text;               // set when the prompt is sent as text
  // For chat datasets: the prompt as one user message; the client wraps prompt_text.
  bool want_output_ids = false;          // the target returns the answer's token ids
                                         // (RequestRecord::output_token_ids), e.g. for the next turn
};

}  // namespace frontier::workload
