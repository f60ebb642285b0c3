// spec_fields.cc: the table of SimSpec's command-line fields (spec_fields.h).
#include "sim/spec_fields.h"

#include <exception>
#include <string>

namespace frontier::sim {
namespace {

// "auto" (raised to each offered concurrency) or a cap in [1, 1e6].
std::string SetMaxNumSeqs(const std::string& v, SimSpec* s) {
  if (v == "auto") {
    s->max_num_seqs_auto = true;
    s->max_num_seqs.reset();
    return "";
  }
  size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || n < 1 || n > 1'000'000)
    return "must be an integer in [1, 1000000] or 'auto', got '" + v + "'";
  s->max_num_seqs = n;
  s->max_num_seqs_auto = false;
  return "";
}

std::string SetPrefixCaching(const std::string& v, SimSpec* s) {
  if (v != "on" && v != "off") return "must be on or off, got '" + v + "'";
  s->prefix_caching = v == "on";
  return "";
}

}  // namespace

std::span<const FlagRow<SimSpec>> SimSpecFields() {
  static const FlagRow<SimSpec> kFields[] = {
      {"--model", &SimSpec::model, "Catalog name or path to a Hugging Face config.json", "System"},
      {"--hardware", &SimSpec::hardware, "Accelerator from data/hardware (h100-sxm, h100-pcie, h100-nvl, h200, h200-nvl, gh200, b200, gb200, mi300x, mi325x, mi355x)", "System"},
      {"--gpus", &SimSpec::gpus, "GPUs in the deployment [tp x dp]", "System"},
      {"--tp", &SimSpec::tp, "Tensor parallelism [1]", "System"},
      {"--ep", &SimSpec::ep, "Expert parallelism: 1 or tp x dp [1]", "System"},
      {"--dp", &SimSpec::dp, "Data parallelism (engine replicas / DP-attention ranks) [gpus / tp]", "System"},
      {"--precision", &SimSpec::precision, "Every weight (attention and feed-forward): bf16, fp8 or fp4 [the model's native formats]", "System"},
      {"--kv-precision", &SimSpec::kv_precision, "KV cache: bf16 or fp8 [fp8 with fp8/fp4 attention weights, else bf16]", "System"},
      {"--stack", &SimSpec::stack, "Serving stack from data/stacks (name@version), or best: the vendor's newest version, of any engine, whose own fit saw the model's class [the vendor's default engine's version fitted most recently for the class]", "System"},
      {"--max-num-seqs", &SetMaxNumSeqs, "Running sequences per DP rank [stack default]; auto: raised to each --concurrency value", "Engine"},
      {"--prefix-caching", &SetPrefixCaching, "Automatic prefix caching: blocks of a token-id prompt already cached skip prefill; free cached blocks are evicted LRU [on]", "Engine"},
      {"--max-num-batched-tokens", &SimSpec::max_num_batched_tokens, "Tokens per step per DP rank [stack default]", "Engine"},
      {"--gpu-memory-utilization", &SimSpec::gpu_memory_utilization, "The engine's memory fraction, as the stack reads it (of the device for vLLM, of weights + KV pool for SGLang's --mem-fraction-static, of the memory left after loading for TensorRT-LLM) [stack default]", "Engine"},
      {"--spec-tokens", &SimSpec::spec_tokens, "MTP / speculative draft tokens per step [0]", "Engine"},
      {"--acceptance", &SimSpec::acceptance, "Mean tokens emitted per verify step, 1..k+1 [from --acceptance-rate]", "Engine"},
      {"--acceptance-rate", &SimSpec::acceptance_rate, "MTP: chance a draft token is accepted given the previous were; mean per step 1 + r + ... + r^k [the model's catalogued rate, else 0.7]", "Engine"},
      {"--attention-dp", &SimSpec::attention_dp, "Attention data-parallel on every GPU, experts spread over all of them (tp 1, dp = ep = --gpus)", "System"},
      {"--prefill-workers", &SimSpec::prefill_workers, "Disaggregated: prefill engines [0 = aggregated]", "Disaggregation"},
      {"--prefill-tp", &SimSpec::prefill_tp, "Tensor parallelism of each prefill engine [1]", "Disaggregation"},
      {"--prefill-dp", &SimSpec::prefill_dp, "Data (attention) parallelism inside each prefill engine [1]", "Disaggregation"},
      {"--prefill-ep", &SimSpec::prefill_ep, "Expert parallelism of each prefill engine: 1 or tp x dp [1]", "Disaggregation"},
      {"--decode-workers", &SimSpec::decode_workers, "Disaggregated: decode engines [0 = aggregated]", "Disaggregation"},
      {"--decode-tp", &SimSpec::decode_tp, "Tensor parallelism of each decode engine [1]", "Disaggregation"},
      {"--decode-dp", &SimSpec::decode_dp, "Data (attention) parallelism inside each decode engine [1]", "Disaggregation"},
      {"--decode-ep", &SimSpec::decode_ep, "Expert parallelism of each decode engine: 1 or tp x dp [1]", "Disaggregation"},
  };
  return kFields;
}

}  // namespace frontier::sim
