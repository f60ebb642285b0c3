// model.h: the model catalog (data/models/*.json) and Hugging Face
// config.json parsing.
//
// A catalog file wraps a model's Hugging Face config.json ("hf_config") with
// its source and its native weight formats; any config.json given by path
// parses the same way. Supported shapes: dense decoders with grouped-query
// attention (Llama, Mistral, Qwen), mixture-of-experts with routed and shared
// experts and leading dense layers (DeepSeek-V3/R1, Qwen3-MoE, gpt-oss,
// Mixtral), multi-head latent attention (DeepSeek), alternating sliding-window
// layers (gpt-oss) and multi-token-prediction layers.
//
// Parameter counts are of the linear layers and embeddings (norms, biases and
// attention sinks are under 0.1 % and left out).
//
// Thread safety: values; loading reads files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "sim/engine/data_dir.h"
#include "sim/engine/precision.h"

namespace frontier::sim {

struct ModelSpec {
  std::string name;            // catalog key or the config's path
  std::string source;          // where the shape came from
  int layers = 0;              // decoder layers (not counting MTP layers)
  int hidden = 0;
  int heads = 0;               // query heads
  int kv_heads = 0;            // key/value heads (GQA); for MLA equal to heads
  int head_dim = 0;
  int intermediate = 0;        // dense MLP width (0 if every layer is MoE)
  int vocab = 0;
  bool tied_embeddings = false;
  int max_context = 0;         // max_position_embeddings

  // Multi-head latent attention (DeepSeek). kv_lora_rank > 0 turns it on.
  int q_lora_rank = 0;         // 0: queries projected directly
  int kv_lora_rank = 0;
  int qk_nope_dim = 0;
  int qk_rope_dim = 0;
  int v_head_dim = 0;

  // Mixture of experts. experts > 0 turns it on.
  int experts = 0;             // routed experts per MoE layer
  int experts_per_token = 0;   // top-k
  int shared_experts = 0;
  int moe_intermediate = 0;    // one expert's MLP width
  int dense_layers = 0;        // layers whose MLP is dense (the first ones in DeepSeek)

  int sliding_window = 0;      // tokens; 0 = none
  int sliding_layers = 0;      // layers that use the window

  int mtp_layers = 0;          // multi-token-prediction modules shipped with the model
  double mtp_acceptance_rate = 0;  // catalogued acceptance of a draft token (0 = not known)

  // Native weight formats. `ffn_precision` is that of every feed-forward
  // weight: a dense model's MLPs, an MoE model's routed and shared experts and
  // its leading dense MLPs. `precision` is that of the other linear layers
  // (attention projections). Embeddings, LM head and routers stay BF16.
  Precision precision = Precision::kBf16;
  Precision ffn_precision = Precision::kBf16;
  // Layers whose MLP stays in `precision` (dense models only): Meta's FP8
  // Llama 3.1 405B keeps the first and last layers' FFN in BF16.
  int ffn_unquantized_layers = 0;
  bool block_scaled_fp8 = false;  // native FP8 weights carry per-block scales (quantization_config.weight_block_size)

  bool mla() const { return kv_lora_rank > 0; }
  bool moe() const { return experts > 0; }
  int moe_layers() const { return moe() ? layers - dense_layers : 0; }
  int full_attention_layers() const { return layers - sliding_layers; }

  // Parameters of one layer's attention projections.
  double AttentionParams() const;
  // Parameters of one dense MLP (gate, up, down).
  double DenseMlpParams() const { return 3.0 * hidden * intermediate; }
  // Parameters of one routed expert.
  double ExpertParams() const { return 3.0 * hidden * moe_intermediate; }
  double RouterParams() const { return static_cast<double>(hidden) * experts; }
  double EmbeddingParams() const { return static_cast<double>(vocab) * hidden; }
  // One MTP module: an MoE (or dense) decoder layer plus its input projection.
  double MtpParams() const;
  // All parameters (without MTP modules); `active` counts only the top-k experts.
  double TotalParams() const;
  double ActiveParams() const;
  // KV-cache elements one token keeps in one layer (both K and V; MLA's latent).
  double KvElementsPerTokenLayer() const;
};

// Loads a catalog name / alias (case-insensitive), or a path to a Hugging Face
// config.json (anything containing '/' or ending in ".json"). Unknown names
// fail with NotFound listing the known ones.
Result<ModelSpec> LoadModel(std::string_view name_or_path, const std::string& data_dir = DefaultDataDir());

// The model class results and stacks are grouped by: "dense", "MoE" or "MLA"
// (MLA models, DeepSeek's, are also MoE; they report as MLA).
std::string ModelClass(const ModelSpec& m);
// Parses config.json text. `origin` names it in errors; a missing required
// field is named ("config.json: missing field 'num_attention_heads'").
Result<ModelSpec> ParseHfConfig(const std::string& json_text, const std::string& origin);
std::vector<std::string> ListModels(const std::string& data_dir = DefaultDataDir());

}  // namespace frontier::sim
