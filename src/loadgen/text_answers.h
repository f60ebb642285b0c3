// text_answers.h: the capability of a Target (target.h) whose generated
// answers come back as text rather than token ids: a server over HTTP, whose
// tokenizer the client does not have. The session runner
// (session_runner.h) asks a Target for it (dynamic_cast) to carry the
// server's real answers into a growing session's next turn; the simulator,
// which answers in token ids (RequestRecord::output_token_ids), does not
// implement it.
//
// Thread safety: as Target; the timing core's thread.
#pragma once

#include <cstdint>
#include <string>

namespace frontier::loadgen {

class TextAnswers {
 public:
  virtual ~TextAnswers() = default;
  // The generated text of ended request `id`, issued with
  // RequestSpec::want_output_ids: the streamed content concatenated as
  // received. Moved out: call once per such request, after its record reached
  // the sink ("" for a request that streamed no text).
  virtual std::string TakeAnswerText(int64_t id) = 0;
};

}  // namespace frontier::loadgen
