#include "cli/sim_flags.h"

#include "core/parse.h"
#include "sim/fit/band.h"

#include <algorithm>
#include <cmath>

namespace frontier::cli {

void AddSimSpecFlags(CLI::App& app, sim::SimSpec* s) {
  app.add_option("--model", s->model, "Catalog name or path to a Hugging Face config.json")->group("System");
  app.add_option("--hardware", s->hardware,
                 "Accelerator from data/hardware (h100-sxm, h200, b200, gb200, mi300x, mi325x, mi355x)")
      ->group("System");
  app.add_option("--gpus", s->gpus, "GPUs in the deployment [tp x dp]")->group("System");
  app.add_option("--tp", s->tp, "Tensor parallelism [1]")->group("System");
  app.add_option("--ep", s->ep, "Expert parallelism: 1 or tp x dp [1]")->group("System");
  app.add_option("--dp", s->dp, "Data parallelism (engine replicas / DP-attention ranks) [gpus / tp]")
      ->group("System");
  app.add_option("--precision", s->precision,
                 "Every weight (attention and feed-forward): bf16, fp8 or fp4 [the model's native formats]")
      ->group("System");
  app.add_option("--kv-precision", s->kv_precision,
                 "KV cache: bf16 or fp8 [fp8 with fp8/fp4 attention weights, else bf16]")
      ->group("System");
  app.add_option("--stack", s->stack,
                 "Serving stack from data/stacks (name@version), or best: the vendor's newest version, of any engine, "
                 "whose own fit saw the model's class [the vendor's default engine's version fitted most recently "
                 "for the class]")
      ->group("System");
  app.add_option_function<std::string>(
         "--max-num-seqs",
         [s](const std::string& v) {
           if (v == "auto") {
             s->max_num_seqs_auto = true;
             s->max_num_seqs.reset();
             return;
           }
           size_t used = 0;
           int n = 0;
           try {
             n = std::stoi(v, &used);
           } catch (const std::exception&) {
             used = 0;
           }
           if (used != v.size() || n < 1 || n > 1'000'000)
             throw CLI::ValidationError("--max-num-seqs",
                                        "must be an integer in [1, 1000000] or 'auto', got '" + v + "'");
           s->max_num_seqs = n;
           s->max_num_seqs_auto = false;
         },
         "Running sequences per DP rank [stack default]; auto: raised to each --concurrency value")
      ->group("Engine");
  app.add_option_function<std::string>(
         "--prefix-caching",
         [s](const std::string& v) {
           if (v != "on" && v != "off")
             throw CLI::ValidationError("--prefix-caching", "must be on or off, got '" + v + "'");
           s->prefix_caching = v == "on";
         },
         "Automatic prefix caching: blocks of a token-id prompt already cached skip prefill; free cached blocks "
         "are evicted LRU [on]")
      ->group("Engine");
  app.add_option("--max-num-batched-tokens", s->max_num_batched_tokens, "Tokens per step per DP rank [stack default]")
      ->group("Engine");
  app.add_option("--gpu-memory-utilization", s->gpu_memory_utilization,
                 "The engine's memory fraction, as the stack reads it (of the device for vLLM, of weights + KV pool "
                 "for SGLang's --mem-fraction-static, of the memory left after loading for TensorRT-LLM) [stack default]")
      ->group("Engine");
  app.add_option("--spec-tokens", s->spec_tokens, "MTP / speculative draft tokens per step [0]")->group("Engine");
  app.add_option("--acceptance", s->acceptance, "Mean tokens emitted per verify step, 1..k+1 [from --acceptance-rate]")
      ->group("Engine");
  app.add_option("--acceptance-rate", s->acceptance_rate,
                 "MTP: chance a draft token is accepted given the previous were; mean per step 1 + r + ... + r^k "
                 "[the model's catalogued rate, else 0.7]")
      ->group("Engine");
  app.add_flag("--attention-dp", s->attention_dp,
               "Attention data-parallel on every GPU, experts spread over all of them (tp 1, dp = ep = --gpus)")
      ->group("System");
  struct Pool {
    const char* name;
    int *workers, *tp, *dp, *ep;
  };
  for (const Pool& p : {Pool{"prefill", &s->prefill_workers, &s->prefill_tp, &s->prefill_dp, &s->prefill_ep},
                        Pool{"decode", &s->decode_workers, &s->decode_tp, &s->decode_dp, &s->decode_ep}}) {
    const std::string n = p.name;
    app.add_option("--" + n + "-workers", *p.workers, "Disaggregated: " + n + " engines [0 = aggregated]")
        ->group("Disaggregation");
    app.add_option("--" + n + "-tp", *p.tp, "Tensor parallelism of each " + n + " engine [1]")->group("Disaggregation");
    app.add_option("--" + n + "-dp", *p.dp, "Data (attention) parallelism inside each " + n + " engine [1]")
        ->group("Disaggregation");
    app.add_option("--" + n + "-ep", *p.ep, "Expert parallelism of each " + n + " engine: 1 or tp x dp [1]")
        ->group("Disaggregation");
  }
}

const std::vector<std::string>& SimSpecFlagNames() {
  static const std::vector<std::string> names = {
      "--model",     "--hardware",     "--gpus",         "--tp",
      "--ep",        "--dp",           "--precision",    "--kv-precision",
      "--stack",     "--max-num-seqs", "--max-num-batched-tokens", "--gpu-memory-utilization",
      "--spec-tokens", "--acceptance", "--acceptance-rate", "--attention-dp", "--prefix-caching",
      "--prefill-workers", "--prefill-tp", "--prefill-dp", "--prefill-ep",
      "--decode-workers", "--decode-tp", "--decode-dp", "--decode-ep"};
  return names;
}

void AddClientRttFlag(CLI::App& app, double* us) {
  app.add_option("--client-rtt-us", *us,
                 "Client round trip: a request reaches the engine this long after it is sent, so a closed-loop "
                 "replacement misses the step that starts as its predecessor finishes; 0 = instantaneous client "
                 "[150]")
      ->group("Load");
}

Result<Nanos> ClientRttNanos(double us) {
  FRONTIER_RETURN_IF_ERROR(CheckRange("--client-rtt-us", us, 0.0, 1e9));
  return static_cast<Nanos>(std::llround(us * kNanosPerMicro));
}

std::optional<PredictionBand> BandOf(const sim::SimConfig& config, const std::string& data_dir, std::string* note) {
  Result<sim::BandTable> bands = sim::BandTable::LoadFrom(data_dir.empty() ? sim::DefaultDataDir() : data_dir);
  if (!bands.ok()) {
    *note = bands.status().message();
    return std::nullopt;
  }
  return bands->For(sim::KeyOf(config));
}

std::string BandLine(const std::optional<PredictionBand>& band, const std::string& note) {
  return "prediction band: " + (band ? band->DescribeWithFlags() : "unavailable (" + note + ")") + "\n";
}

Status UseSimulatedSystem(const sim::SimConfig& config, bool num_gpus_given, ResolvedWorkload* w) {
  if (num_gpus_given && w->summary.num_gpus != config.gpus)
    return InvalidArgument("--num-gpus " + std::to_string(w->summary.num_gpus) + " disagrees with the simulated " +
                           std::to_string(config.gpus) + " GPUs (--gpus / --tp x --dp); leave it out");
  w->summary.num_gpus = config.gpus;
  w->effective["num_gpus"] = std::to_string(config.gpus);
  w->dataset.random.vocab_size = config.model.vocab;
  // Judged before any prompt is drawn: a random workload whose shortest
  // request is longer than the deployment's context would have every request
  // refused by the engine, after its prompts took their memory.
  const int64_t context = config.max_model_len > 0 ? config.max_model_len : config.model.max_context;
  if (w->dataset.kind == workload::DatasetKind::kRandom && context > 0) {
    const workload::RandomDatasetOptions& r = w->dataset.random;
    const auto shortest = [&](int64_t mean) {
      return std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(mean) * (1 - r.range_ratio))));
    };
    const int64_t tokens = int64_t{r.prefix_len} + shortest(r.input_len) + shortest(r.output_len);
    if (tokens > context) {
      const std::string prefix = r.prefix_len > 0 ? " + --prefix-len " + std::to_string(r.prefix_len) : "";
      const std::string ratio = r.range_ratio > 0 ? " (at the least, with --range-ratio)" : "";
      return InvalidArgument("--input-len " + std::to_string(r.input_len) + prefix + " + --output-len " +
                             std::to_string(r.output_len) + ratio + ": every request would be " +
                             std::to_string(tokens) + " tokens or more, longer than the max context of " +
                             std::to_string(context) + " tokens of " + config.model.name +
                             " (--max-model-len, the model's max_position_embeddings); lower --input-len or "
                             "--output-len");
    }
  }
  return Status::Ok();
}

std::map<std::string, std::string> GivenFlags(const CLI::App& app, const std::vector<std::string>& names) {
  std::map<std::string, std::string> out;
  for (const std::string& flag : names)
    if (app.count(flag)) out[flag.substr(2)] = app[flag]->as<std::string>();
  return out;
}

}  // namespace frontier::cli
