// spec_fields.cc: the table of SimSpec's command-line fields (spec_fields.h).
#include "sim/spec_fields.h"

#include <exception>

namespace frontier::sim {
namespace {

// "auto" (raised to each offered concurrency) or a cap in [1, 1e6].
Status SetMaxNumSeqs(const std::string& v, SimSpec* s) {
  if (v == "auto") {
    s->max_num_seqs_auto = true;
    s->max_num_seqs.reset();
    return Status::Ok();
  }
  size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || n < 1 || n > 1'000'000)
    return InvalidArgument("must be an integer in [1, 1000000] or 'auto', got '" + v + "'");
  s->max_num_seqs = n;
  s->max_num_seqs_auto = false;
  return Status::Ok();
}

Status SetPrefixCaching(const std::string& v, SimSpec* s) {
  if (v != "on" && v != "off") return InvalidArgument("must be on or off, got '" + v + "'");
  s->prefix_caching = v == "on";
  return Status::Ok();
}

const SpecField kFields[] = {
    {"--model", "Catalog name or path to a Hugging Face config.json", "System", &SimSpec::model},
    {"--hardware", "Accelerator from data/hardware (h100-sxm, h100-pcie, h100-nvl, h200, h200-nvl, gh200, b200, gb200, mi300x, mi325x, mi355x)", "System",
     &SimSpec::hardware},
    {"--gpus", "GPUs in the deployment [tp x dp]", "System", &SimSpec::gpus},
    {"--tp", "Tensor parallelism [1]", "System", &SimSpec::tp},
    {"--ep", "Expert parallelism: 1 or tp x dp [1]", "System", &SimSpec::ep},
    {"--dp", "Data parallelism (engine replicas / DP-attention ranks) [gpus / tp]", "System", &SimSpec::dp},
    {"--precision", "Every weight (attention and feed-forward): bf16, fp8 or fp4 [the model's native formats]",
     "System", &SimSpec::precision},
    {"--kv-precision", "KV cache: bf16 or fp8 [fp8 with fp8/fp4 attention weights, else bf16]", "System",
     &SimSpec::kv_precision},
    {"--stack",
     "Serving stack from data/stacks (name@version), or best: the vendor's newest version, of any engine, whose own "
     "fit saw the model's class [the vendor's default engine's version fitted most recently for the class]",
     "System", &SimSpec::stack},
    {"--max-num-seqs", "Running sequences per DP rank [stack default]; auto: raised to each --concurrency value",
     "Engine", &SetMaxNumSeqs},
    {"--prefix-caching",
     "Automatic prefix caching: blocks of a token-id prompt already cached skip prefill; free cached blocks are "
     "evicted LRU [on]",
     "Engine", &SetPrefixCaching},
    {"--max-num-batched-tokens", "Tokens per step per DP rank [stack default]", "Engine",
     &SimSpec::max_num_batched_tokens},
    {"--gpu-memory-utilization",
     "The engine's memory fraction, as the stack reads it (of the device for vLLM, of weights + KV pool for SGLang's "
     "--mem-fraction-static, of the memory left after loading for TensorRT-LLM) [stack default]",
     "Engine", &SimSpec::gpu_memory_utilization},
    {"--spec-tokens", "MTP / speculative draft tokens per step [0]", "Engine", &SimSpec::spec_tokens},
    {"--acceptance", "Mean tokens emitted per verify step, 1..k+1 [from --acceptance-rate]", "Engine",
     &SimSpec::acceptance},
    {"--acceptance-rate",
     "MTP: chance a draft token is accepted given the previous were; mean per step 1 + r + ... + r^k [the model's "
     "catalogued rate, else 0.7]",
     "Engine", &SimSpec::acceptance_rate},
    {"--attention-dp", "Attention data-parallel on every GPU, experts spread over all of them (tp 1, dp = ep = --gpus)",
     "System", &SimSpec::attention_dp},
    {"--prefill-workers", "Disaggregated: prefill engines [0 = aggregated]", "Disaggregation",
     &SimSpec::prefill_workers},
    {"--prefill-tp", "Tensor parallelism of each prefill engine [1]", "Disaggregation", &SimSpec::prefill_tp},
    {"--prefill-dp", "Data (attention) parallelism inside each prefill engine [1]", "Disaggregation",
     &SimSpec::prefill_dp},
    {"--prefill-ep", "Expert parallelism of each prefill engine: 1 or tp x dp [1]", "Disaggregation",
     &SimSpec::prefill_ep},
    {"--decode-workers", "Disaggregated: decode engines [0 = aggregated]", "Disaggregation", &SimSpec::decode_workers},
    {"--decode-tp", "Tensor parallelism of each decode engine [1]", "Disaggregation", &SimSpec::decode_tp},
    {"--decode-dp", "Data (attention) parallelism inside each decode engine [1]", "Disaggregation",
     &SimSpec::decode_dp},
    {"--decode-ep", "Expert parallelism of each decode engine: 1 or tp x dp [1]", "Disaggregation",
     &SimSpec::decode_ep},
};

}  // namespace

std::span<const SpecField> SimSpecFields() { return kFields; }

}  // namespace frontier::sim
