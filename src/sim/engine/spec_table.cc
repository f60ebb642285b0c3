// spec_table.cc: SimSpec's fields, their plan keys and bounds (spec_table.h).
#include "sim/engine/spec_table.h"

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/parse.h"

namespace frontier::sim {
namespace {

// "auto" (raised to each offered concurrency) or a cap in the row's bounds.
std::string SetMaxNumSeqs(const std::string& v, SimSpec* s) {
  if (v == "auto") {
    s->max_num_seqs_auto = true;
    s->max_num_seqs.reset();
    return "";
  }
  const SimSpecField& f = SimSpecFieldOf("--max-num-seqs");
  const Result<int64_t> n = ParseInt("--max-num-seqs", v, int64_t(f.min), int64_t(f.max));
  if (!n.ok()) {
    // The text as ParseInt quotes outside text, after its range: printable, at most 40 characters.
    const std::string& m = n.status().message();
    return "must be an integer in [" + FormatNumber(f.min) + ", " + FormatNumber(f.max) + "] or 'auto', got " +
           m.substr(m.find("], got ") + 7);
  }
  s->max_num_seqs = static_cast<int>(*n);
  s->max_num_seqs_auto = false;
  return "";
}

std::string SetPrefixCaching(const std::string& v, SimSpec* s) {
  if (v != "on" && v != "off") return "must be on or off, got '" + v + "'";
  s->prefix_caching = v == "on";
  return "";
}

// A tp, ep or dp, and a pool's workers, at most 1024 (the plans' bound, the
// stricter of the two this table replaced); --gpus, the deployment's whole
// size, up to 100,000 (docs/limits.md).
const SimSpecField kFields[] = {
    {{"--model", &SimSpec::model, "Catalog name or path to a Hugging Face config.json", "System"}, "model"},
    {{"--hardware", &SimSpec::hardware, "Accelerator from data/hardware (h100-sxm, h100-pcie, h100-nvl, h200, h200-nvl, gh200, b200, gb200, mi300x, mi325x, mi355x)", "System"}, ""},
    {{"--gpus", &SimSpec::gpus, "GPUs in the deployment [tp x dp]", "System"}, "", 0, 100'000},
    {{"--tp", &SimSpec::tp, "Tensor parallelism [1]", "System"}, "tp", 1, 1024},
    {{"--ep", &SimSpec::ep, "Expert parallelism: 1 or tp x dp [1]", "System"}, "ep", 1, 1024},
    {{"--dp", &SimSpec::dp, "Data parallelism (engine replicas / DP-attention ranks) [gpus / tp]", "System"}, "dp", 0, 1024},
    {{"--precision", &SimSpec::precision, "Every weight (attention and feed-forward): bf16, fp8 or fp4 [the model's native formats]", "System"}, "precision"},
    {{"--kv-precision", &SimSpec::kv_precision, "KV cache: bf16 or fp8 [fp8 with fp8/fp4 attention weights, else bf16]", "System"}, "kv_precision"},
    {{"--stack", &SimSpec::stack, "Serving stack from data/stacks (name@version), or best: the vendor's newest version, of any engine, whose own fit saw the model's class [the vendor's default engine's version fitted most recently for the class]", "System"}, "stack"},
    {{"--max-num-seqs", &SetMaxNumSeqs, "Running sequences per DP rank [stack default]; auto: raised to each --concurrency value", "Engine"}, "max_num_seqs", 1, 1'000'000},
    {{"--prefix-caching", &SetPrefixCaching, "Automatic prefix caching: blocks of a token-id prompt already cached skip prefill; free cached blocks are evicted LRU [on]", "Engine"}, "prefix_caching"},
    {{"--max-num-batched-tokens", &SimSpec::max_num_batched_tokens, "Tokens per step per DP rank [stack default]", "Engine"}, "max_num_batched_tokens", 1, 1e9},
    {{"--gpu-memory-utilization", &SimSpec::gpu_memory_utilization, "The engine's memory fraction, as the stack reads it (of the device for vLLM, of weights + KV pool for SGLang's --mem-fraction-static, of the memory left after loading for TensorRT-LLM) [stack default]", "Engine"}, "gpu_memory_utilization", 0.01, 1},
    {{"--spec-tokens", &SimSpec::spec_tokens, "MTP / speculative draft tokens per step [0]", "Engine"}, "spec_tokens", 0, 16},
    {{"--acceptance", &SimSpec::acceptance, "Mean tokens emitted per verify step, 1..k+1 [from --acceptance-rate]", "Engine"}, "acceptance", 1, 17},
    {{"--acceptance-rate", &SimSpec::acceptance_rate, "MTP: chance a draft token is accepted given the previous were; mean per step 1 + r + ... + r^k [the model's catalogued rate, else 0.7]", "Engine"}, "acceptance_rate", 0, 0.999},
    {{"--attention-dp", &SimSpec::attention_dp, "Attention data-parallel on every GPU, experts spread over all of them (tp 1, dp = ep = --gpus)", "System"}, "attention_dp"},
    {{"--prefill-workers", &SimSpec::prefill_workers, "Disaggregated: prefill engines [0 = aggregated]", "Disaggregation"}, "prefill.workers", 0, 1024},
    {{"--prefill-tp", &SimSpec::prefill_tp, "Tensor parallelism of each prefill engine [1]", "Disaggregation"}, "prefill.tp", 1, 1024},
    {{"--prefill-dp", &SimSpec::prefill_dp, "Data (attention) parallelism inside each prefill engine [1]", "Disaggregation"}, "prefill.dp", 1, 1024},
    {{"--prefill-ep", &SimSpec::prefill_ep, "Expert parallelism of each prefill engine: 1 or tp x dp [1]", "Disaggregation"}, "prefill.ep", 1, 1024},
    {{"--decode-workers", &SimSpec::decode_workers, "Disaggregated: decode engines [0 = aggregated]", "Disaggregation"}, "decode.workers", 0, 1024},
    {{"--decode-tp", &SimSpec::decode_tp, "Tensor parallelism of each decode engine [1]", "Disaggregation"}, "decode.tp", 1, 1024},
    {{"--decode-dp", &SimSpec::decode_dp, "Data (attention) parallelism inside each decode engine [1]", "Disaggregation"}, "decode.dp", 1, 1024},
    {{"--decode-ep", &SimSpec::decode_ep, "Expert parallelism of each decode engine: 1 or tp x dp [1]", "Disaggregation"}, "decode.ep", 1, 1024},
};

}  // namespace

std::span<const SimSpecField> SimSpecTable() { return kFields; }

const SimSpecField& SimSpecFieldOf(std::string_view flag) {
  for (const SimSpecField& f : kFields)
    if (flag == f.flag.name) return f;
  std::abort();  // a flag name in the code that the table lacks
}

namespace {

// A stored config's keys that are written even at their defaults: what a
// simulated system is.
bool AlwaysStored(std::string_view plan_key) { return plan_key == "model" || plan_key == "tp" || plan_key == "ep"; }

}  // namespace

std::optional<std::string> SimSpecFieldText(const SimSpecField& field, const SimSpec& spec) {
  const std::string_view flag = field.flag.name;
  if (flag == "--max-num-seqs") {  // the setters' fields
    if (spec.max_num_seqs_auto) return "auto";
    return spec.max_num_seqs ? std::optional<std::string>(std::to_string(*spec.max_num_seqs)) : std::nullopt;
  }
  if (flag == "--prefix-caching") return spec.prefix_caching ? "on" : "off";
  // A setter's field this function does not know (add it above), or a list's.
  return FlagFieldText(
      field.flag, spec, [](const std::string& s) { return s; },
      []() -> std::optional<std::string> { std::abort(); });
}

std::map<std::string, std::string> SimSpecConfig(const SimSpec& spec) {
  static const SimSpec kDefaults;
  std::map<std::string, std::string> c;
  std::map<std::string, std::pair<std::string, std::string>> pools;  // "prefill": {workers, "tp4,dp1,ep1"}
  for (const SimSpecField& f : kFields) {
    const std::string key = f.plan_key;
    if (key.empty()) continue;  // the system's own (hardware, gpus)
    const std::optional<std::string> text = SimSpecFieldText(f, spec);
    if (const size_t dot = key.find('.'); dot != std::string::npos) {
      auto& [workers, parts] = pools[key.substr(0, dot)];
      const std::string sub = key.substr(dot + 1);
      if (sub == "workers") workers = text.value_or("0");
      else parts += (parts.empty() ? "" : ",") + sub + text.value_or("");
      continue;
    }
    if (text && (AlwaysStored(key) || text != SimSpecFieldText(f, kDefaults))) c[key] = *text;
  }
  for (const auto& [pool, p] : pools)
    if (p.first != "0") c[pool] = p.first + "x(" + p.second + ")";
  return c;
}

Status CheckSimSpecBounds(const SimSpec& spec) {
  for (const SimSpecField& f : kFields) {
    if (!f.bounded()) continue;
    const std::string_view flag = f.flag.name;
    if (flag == "--max-num-seqs") {  // a setter's field
      if (spec.max_num_seqs)
        FRONTIER_RETURN_IF_ERROR(CheckRange(flag, int64_t{*spec.max_num_seqs}, int64_t(f.min), int64_t(f.max)));
      continue;
    }
    FRONTIER_RETURN_IF_ERROR(std::visit(
        [&](auto member) -> Status {
          if constexpr (std::is_same_v<decltype(member), FlagRow<SimSpec>::Setter>) {
            return Status::Ok();
          } else {
            using V = std::decay_t<decltype(spec.*member)>;
            if constexpr (std::is_same_v<V, int>) {
              return CheckRange(flag, int64_t{spec.*member}, int64_t(f.min), int64_t(f.max));
            } else if constexpr (std::is_same_v<V, std::optional<int>>) {
              return spec.*member ? CheckRange(flag, int64_t{*(spec.*member)}, int64_t(f.min), int64_t(f.max))
                                  : Status::Ok();
            } else if constexpr (std::is_same_v<V, std::optional<double>>) {
              return spec.*member ? CheckRange(flag, *(spec.*member), f.min, f.max) : Status::Ok();
            } else {
              return Internal(std::string(flag) + ": a bounded field of a type the check does not read");
            }
          }
        },
        f.flag.field));
  }
  return Status::Ok();
}

}  // namespace frontier::sim
