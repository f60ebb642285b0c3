// target_request.h: the flags that name a live server and how to talk to it,
// shared by every command that measures one (`frontier bench`, `frontier
// search --base-url`): their raw values (TargetRequest), their table
// (TargetFlagRows, which cli/target_flags.h binds to CLI11), and the benchmark
// options they resolve to (ResolveTarget).
//
// Flags (defaults in brackets):
//   --base-url URL [http://127.0.0.1:8000]
//   --backend openai|sglang|tgi|trtllm|llamacpp [openai] (client/backend.h)
//   --endpoint PATH [the backend's: /v1/completions, /generate, /generate_stream,
//                    /v2/models/{--model}/generate_stream, /completion]
//   --model NAME  --api-key KEY [$OPENAI_API_KEY]  --header 'N: v'...
//   --extra-body JSON  --usage continuous|final|off [continuous]  --insecure
//   --timeout S [600]  --connect-timeout S [10]  --first-token-timeout S [0]  --grace S [5]
//   --workers N|auto [1]  --vocab-size N [the server's /v1/models, else 32000]
//
// After ResolveTarget, a command that sends token-id prompts calls
// ResolveVocabulary(options.client, request.vocab_size, &workload.dataset,
// &options.effective_settings) before it loads the dataset.
//
// Thread safety: none; one command's thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "client/backend.h"
#include "core/flag_table.h"
#include "core/status.h"
#include "loadgen/benchmark.h"
#include "loadgen/resolved_workload.h"

namespace frontier::loadgen {

struct TargetRequest {
  std::string base_url = "http://127.0.0.1:8000", backend = "openai", endpoint, model, api_key, extra_body,
              usage = "continuous";
  std::vector<std::string> headers;
  bool insecure = false;
  double timeout_s = 600, connect_timeout_s = 10, first_token_timeout_s = 0, grace_s = 5;
  std::string workers = "1";
  int64_t vocab_size = 0;
};

// The flags above in --help's order: group "Target", but --grace in "Output",
// --workers in "Load" and --vocab-size in "Workload". A command that defines
// --model itself leaves that row out.
std::span<const FlagRow<TargetRequest>> TargetFlagRows();

// A target flag's row, its key under a sweep plan's server system and its
// bounds: the flags (cli/target_flags.h binds the rows), the plan's reader
// (sweep/plan_fields.cc) and CheckTargetRequest read a field's range here, so
// it has one however it is given.
struct TargetField {
  FlagRow<TargetRequest> flag;
  // The plan key; "" for the system's own keys, which the plan reads with
  // their own rules (base_url, backend, endpoint, model), and for the secrets
  // a plan never holds (--api-key, --header).
  const char* plan_key;
  double min = 1, max = 0;  // a number's closed range; none (min > max) for the others
};
// Every row above with its plan key and bounds, in the same order.
std::span<const TargetField> TargetFieldTable();

struct TargetProblem {
  const char* flag;     // "--timeout"
  std::string message;  // "must be in [0, 1000000], got -1": after the flag or the plan key
};
// The first value of `f` out of its range or form (--workers, --vocab-size
// when given, --usage, --extra-body, the times), or nothing.
std::optional<TargetProblem> CheckTargetRequest(const TargetRequest& f);

// Sets `o`'s client (ignore_eos as given), workers and grace from `f` and
// `model`, and adds the target's entries to its requested and effective
// settings (header names only; the API key never; $OPENAI_API_KEY when
// f.api_key is empty) and the result's "backend". ResolveTarget's tail, and
// what a sweep's server points are sent with. Returns the dialect spoken at
// the endpoint (client/backend.h); InvalidArgument naming the flag.
Result<client::Dialect> ApplyTarget(const TargetRequest& f, const std::string& model, bool ignore_eos, BenchOptions* o);

// The benchmark options for `model` (the --model value) and the resolved
// workload: client, grace, summary, outputs, provenance. InvalidArgument
// naming the flag for a bad value.
Result<BenchOptions> ResolveTarget(const TargetRequest& f, const std::string& model, const ResolvedWorkload& w);

}  // namespace frontier::loadgen
