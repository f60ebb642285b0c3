#include "sim/engine/model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <optional>

#include "core/ascii.h"
#include "sim/engine/catalog_json.h"

namespace frontier::sim {
namespace {

using nlohmann::json;

// Largest sizes a config may give (docs/limits.md): far above any published
// model, low enough that every product of them the simulator forms is finite.
constexpr int64_t kMaxWidth = 1'000'000;      // hidden, intermediate and expert widths, ranks, head dims
constexpr int64_t kMaxCount = 100'000;        // layers, heads, experts
constexpr int64_t kMaxVocab = 100'000'000;
constexpr int64_t kMaxContext = 1'000'000'000;

// The integer at j[key] in [min, max]; nullopt when absent or null. A value
// of another type or out of range is an error naming the field.
Result<std::optional<int>> IntField(const json& j, const char* key, int64_t min, int64_t max,
                                    const std::string& origin) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<int>();
  const std::string range = " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  double v = 0;
  if (it->is_number_integer() && !it->is_number_unsigned()) {
    v = static_cast<double>(it->get<int64_t>());
  } else if (it->is_number_unsigned()) {
    v = static_cast<double>(it->get<uint64_t>());
  } else if (it->is_number_float() && it->get<double>() == std::floor(it->get<double>())) {
    v = it->get<double>();
  } else {
    return InvalidArgument(origin + ": field '" + key + "'" + range + ", got " +
                           it->dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 40));
  }
  if (!(v >= static_cast<double>(min) && v <= static_cast<double>(max)))
    return InvalidArgument(origin + ": field '" + key + "'" + range + ", got " + it->dump().substr(0, 40));
  return std::optional<int>(static_cast<int>(v));
}

// An integer field that must be present.
Result<int> Required(const json& j, const char* key, int64_t min, int64_t max, const std::string& origin) {
  FRONTIER_ASSIGN_OR_RETURN(std::optional<int> v, IntField(j, key, min, max, origin));
  if (!v) return InvalidArgument(origin + ": missing field '" + key + "'");
  return *v;
}

Result<int> Optional(const json& j, const char* key, int fallback, int64_t min, int64_t max,
                     const std::string& origin) {
  FRONTIER_ASSIGN_OR_RETURN(std::optional<int> v, IntField(j, key, min, max, origin));
  return v.value_or(fallback);
}

// The first of several synonymous keys that is present, else fallback.
Result<int> OneOf(const json& j, std::initializer_list<const char*> keys, int fallback, int64_t min, int64_t max,
                  const std::string& origin) {
  for (const char* k : keys) {
    FRONTIER_ASSIGN_OR_RETURN(std::optional<int> v, IntField(j, k, min, max, origin));
    if (v) return *v;
  }
  return fallback;
}

Result<ModelSpec> ParseHfJson(const json& j, const std::string& origin) {
  if (!j.is_object()) return InvalidArgument(origin + ": expected a JSON object");
  ModelSpec m;
  FRONTIER_ASSIGN_OR_RETURN(m.hidden, Required(j, "hidden_size", 1, kMaxWidth, origin));
  FRONTIER_ASSIGN_OR_RETURN(m.layers, Required(j, "num_hidden_layers", 1, kMaxCount, origin));
  FRONTIER_ASSIGN_OR_RETURN(m.heads, Required(j, "num_attention_heads", 1, kMaxCount, origin));
  FRONTIER_ASSIGN_OR_RETURN(m.vocab, Required(j, "vocab_size", 1, kMaxVocab, origin));
  FRONTIER_ASSIGN_OR_RETURN(m.kv_heads, Optional(j, "num_key_value_heads", m.heads, 1, m.heads, origin));
  FRONTIER_ASSIGN_OR_RETURN(m.head_dim, Optional(j, "head_dim", std::max(1, m.hidden / m.heads), 1, kMaxWidth, origin));
  FRONTIER_ASSIGN_OR_RETURN(m.intermediate, Optional(j, "intermediate_size", 0, 0, kMaxWidth, origin));
  FRONTIER_ASSIGN_OR_RETURN(m.max_context, Optional(j, "max_position_embeddings", 4096, 2, kMaxContext, origin));
  if (j.contains("tie_word_embeddings") && j["tie_word_embeddings"].is_boolean())
    m.tied_embeddings = j["tie_word_embeddings"].get<bool>();

  // Multi-head latent attention.
  FRONTIER_ASSIGN_OR_RETURN(m.kv_lora_rank, Optional(j, "kv_lora_rank", 0, 0, kMaxWidth, origin));
  if (m.mla()) {
    FRONTIER_ASSIGN_OR_RETURN(m.q_lora_rank, Optional(j, "q_lora_rank", 0, 0, kMaxWidth, origin));
    FRONTIER_ASSIGN_OR_RETURN(m.qk_nope_dim, Required(j, "qk_nope_head_dim", 1, kMaxWidth, origin));
    FRONTIER_ASSIGN_OR_RETURN(m.qk_rope_dim, Required(j, "qk_rope_head_dim", 1, kMaxWidth, origin));
    FRONTIER_ASSIGN_OR_RETURN(m.v_head_dim, Required(j, "v_head_dim", 1, kMaxWidth, origin));
    m.kv_heads = m.heads;
  }

  // Mixture of experts.
  FRONTIER_ASSIGN_OR_RETURN(m.experts, OneOf(j, {"n_routed_experts", "num_experts", "num_local_experts"}, 0, 0,
                                              kMaxCount, origin));
  if (m.moe()) {
    FRONTIER_ASSIGN_OR_RETURN(m.experts_per_token, OneOf(j, {"num_experts_per_tok", "experts_per_token"}, 0, 1,
                                                         m.experts, origin));
    if (m.experts_per_token <= 0)
      return InvalidArgument(origin + ": missing field 'num_experts_per_tok' (the model has " +
                             std::to_string(m.experts) + " experts)");
    FRONTIER_ASSIGN_OR_RETURN(m.shared_experts, OneOf(j, {"n_shared_experts"}, 0, 0, kMaxCount, origin));
    FRONTIER_ASSIGN_OR_RETURN(const int shared_width,
                              Optional(j, "shared_expert_intermediate_size", 0, 0, kMaxWidth, origin));
    if (m.shared_experts == 0 && shared_width > 0) m.shared_experts = 1;
    FRONTIER_ASSIGN_OR_RETURN(m.moe_intermediate,
                              OneOf(j, {"moe_intermediate_size"}, m.intermediate, 1, kMaxWidth, origin));
    if (m.moe_intermediate <= 0)
      return InvalidArgument(origin + ": missing field 'moe_intermediate_size'");
    FRONTIER_ASSIGN_OR_RETURN(m.dense_layers, Optional(j, "first_k_dense_replace", 0, 0, m.layers, origin));
    if (j.contains("mlp_only_layers") && j["mlp_only_layers"].is_array())
      m.dense_layers += static_cast<int>(std::min<size_t>(j["mlp_only_layers"].size(), kMaxCount));
    if (m.dense_layers > m.layers)
      return InvalidArgument(origin + ": first_k_dense_replace exceeds num_hidden_layers");
  }
  if ((!m.moe() || m.dense_layers > 0) && m.intermediate <= 0)
    return InvalidArgument(origin + ": missing field 'intermediate_size'");

  // Sliding-window attention.
  FRONTIER_ASSIGN_OR_RETURN(const int window, Optional(j, "sliding_window", 0, 0, kMaxContext, origin));
  if (window > 0) {
    if (j.contains("layer_types") && j["layer_types"].is_array()) {
      for (const auto& t : j["layer_types"])
        if (t.is_string() && t.get<std::string>() == "sliding_attention") ++m.sliding_layers;
      if (m.sliding_layers > m.layers)
        return InvalidArgument(origin + ": layer_types names " + std::to_string(m.sliding_layers) +
                               " sliding-attention layers, more than num_hidden_layers (" +
                               std::to_string(m.layers) + ")");
    } else if (j.contains("use_sliding_window") && j["use_sliding_window"].is_boolean() &&
               j["use_sliding_window"].get<bool>()) {
      m.sliding_layers = m.layers;
    }
    if (m.sliding_layers > 0) m.sliding_window = window;
  }
  FRONTIER_ASSIGN_OR_RETURN(m.mtp_layers, Optional(j, "num_nextn_predict_layers", 0, 0, 1000, origin));

  // Native weight formats.
  if (j.contains("quantization_config") && j["quantization_config"].is_object()) {
    const std::string method = AsciiLower(catalog::StringOr(j["quantization_config"], "quant_method", ""));
    if (method == "fp8") {
      m.precision = m.ffn_precision = Precision::kFp8;
      // Per-block scales (DeepSeek: 128 x 128) rather than one per tensor.
      const auto& q = j["quantization_config"];
      m.block_scaled_fp8 = q.contains("weight_block_size") && q["weight_block_size"].is_array();
    } else if (method == "fbgemm_fp8") {
      // Meta's FP8 releases: row-wise FP8 feed-forward layers, BF16 attention.
      // The layers left out (modules_to_not_convert) are not read: a catalog
      // entry gives them as ffn_unquantized_layers.
      m.ffn_precision = Precision::kFp8;
    } else if (method == "mxfp4") {
      m.ffn_precision = Precision::kFp4;  // gpt-oss: experts in MXFP4, the rest BF16
    }
  }
  if (m.heads % m.kv_heads != 0)
    return InvalidArgument(origin + ": num_attention_heads must be a multiple of num_key_value_heads");
  return m;
}

}  // namespace

double ModelSpec::AttentionParams() const {
  // In double from the first factor: products of two sizes overflow int.
  const double h = hidden, n = heads;
  if (mla()) {
    const double qk = qk_nope_dim + qk_rope_dim;
    const double q = q_lora_rank > 0 ? h * q_lora_rank + 1.0 * q_lora_rank * n * qk : h * n * qk;
    const double kv = h * (kv_lora_rank + qk_rope_dim) + 1.0 * kv_lora_rank * n * (qk_nope_dim + v_head_dim);
    return q + kv + n * v_head_dim * h;
  }
  return h * n * head_dim + 2.0 * h * kv_heads * head_dim + n * head_dim * h;
}

double ModelSpec::MtpParams() const {
  const double mlp = moe() ? experts * ExpertParams() + shared_experts * ExpertParams() + RouterParams()
                           : DenseMlpParams();
  return AttentionParams() + mlp + 2.0 * hidden * hidden;
}

double ModelSpec::TotalParams() const {
  double p = layers * AttentionParams() + dense_layers * DenseMlpParams();
  if (moe()) {
    p += moe_layers() * ((experts + shared_experts) * ExpertParams() + RouterParams());
  } else {
    p += (layers - dense_layers) * DenseMlpParams();
  }
  return p + EmbeddingParams() * (tied_embeddings ? 1 : 2);
}

double ModelSpec::ActiveParams() const {
  if (!moe()) return TotalParams();
  return TotalParams() - moe_layers() * (experts - experts_per_token) * ExpertParams();
}

double ModelSpec::KvElementsPerTokenLayer() const {
  if (mla()) return kv_lora_rank + qk_rope_dim;
  return 2.0 * kv_heads * head_dim;
}

Result<ModelSpec> ParseHfConfig(const std::string& json_text, const std::string& origin) {
  return CatchExceptions(origin, [&]() -> Result<ModelSpec> {
    FRONTIER_ASSIGN_OR_RETURN(json j, catalog::ParseJson(json_text, origin));
    return ParseHfJson(j, origin);
  });
}

namespace {

// A catalog file: {"name", "aliases", "source", "hf_config": {...}, "precision", ...}.
Result<ModelSpec> LoadCatalogFile(const std::string& path, const json& j) {
  FRONTIER_ASSIGN_OR_RETURN(std::string name, catalog::String(j, "name", path));
  auto hf = j.find("hf_config");
  if (hf == j.end()) return InvalidArgument(path + ": missing field 'hf_config' (the model's config.json)");
  FRONTIER_ASSIGN_OR_RETURN(ModelSpec m, ParseHfJson(*hf, path + " (hf_config)"));
  m.name = AsciiLower(name);
  m.source = catalog::StringOr(j, "source", path);
  if (j.contains("precision")) {
    FRONTIER_ASSIGN_OR_RETURN(m.precision, ParsePrecision(catalog::StringOr(j, "precision", ""), path + ": precision"));
    m.ffn_precision = m.precision;
  }
  FRONTIER_ASSIGN_OR_RETURN(m.mtp_acceptance_rate, catalog::NumberOr(j, "mtp_acceptance_rate", 0, path));
  if (!(m.mtp_acceptance_rate >= 0 && m.mtp_acceptance_rate < 1))
    return InvalidArgument(path + ": mtp_acceptance_rate must be in [0, 1)");
  // The feed-forward format; "expert_precision" is its older name, still read.
  if (j.contains("ffn_precision") && j.contains("expert_precision"))
    return InvalidArgument(path + ": give ffn_precision or its older name expert_precision, not both");
  for (const char* key : {"ffn_precision", "expert_precision"}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_string())
      return InvalidArgument(path + ": " + key + " must be a string (bf16, fp8 or fp4), got " + j[key].dump());
    FRONTIER_ASSIGN_OR_RETURN(m.ffn_precision, ParsePrecision(j[key].get<std::string>(), path + ": " + key));
  }
  if (j.contains("ffn_unquantized_layers")) {
    const json& v = j["ffn_unquantized_layers"];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > m.layers)
      return InvalidArgument(path + ": ffn_unquantized_layers must be an integer in [0, " + std::to_string(m.layers) +
                             "] (layers whose MLP stays in `precision`), got " + v.dump());
    if (m.moe() && v.get<int64_t>() > 0)
      return InvalidArgument(path + ": ffn_unquantized_layers is modelled for dense models only; " + m.name +
                             " is a mixture of experts");
    m.ffn_unquantized_layers = static_cast<int>(v.get<int64_t>());
  }
  return m;
}

bool Matches(const json& j, const std::string& want) {
  if (AsciiLower(catalog::StringOr(j, "name", "")) == want) return true;
  if (j.contains("aliases") && j["aliases"].is_array())
    for (const auto& a : j["aliases"])
      if (a.is_string() && AsciiLower(a.get<std::string>()) == want) return true;
  return false;
}

}  // namespace

std::vector<std::string> ListModels(const std::string& data_dir) {
  std::vector<std::string> names;
  for (const auto& f : catalog::JsonFilesIn(data_dir + "/models")) {
    auto j = catalog::ReadJsonFile(f);
    if (j.ok() && j->contains("name")) names.push_back(AsciiLower(catalog::StringOr(*j, "name", "")));
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<ModelSpec> LoadModel(std::string_view name_or_path, const std::string& data_dir) {
  const std::string arg(name_or_path);
  const bool is_path = arg.find('/') != std::string::npos ||
                       (arg.size() > 5 && arg.substr(arg.size() - 5) == ".json");
  // A Hugging Face id ("meta-llama/Llama-3.1-405B-FP8") looks like a path:
  // anything of that name on disk wins, else the catalog's aliases are searched.
  std::error_code ec;
  if (is_path && std::filesystem::exists(arg, ec)) {
    FRONTIER_ASSIGN_OR_RETURN(json j, catalog::ReadJsonFile(arg));
    if (j.is_object() && j.contains("hf_config")) return LoadCatalogFile(arg, j);
    FRONTIER_ASSIGN_OR_RETURN(ModelSpec m, ParseHfJson(j, arg));
    m.name = arg;
    m.source = arg;
    return m;
  }
  const std::string want = AsciiLower(arg);
  for (const auto& f : catalog::JsonFilesIn(data_dir + "/models")) {
    FRONTIER_ASSIGN_OR_RETURN(json j, catalog::ReadJsonFile(f));
    if (Matches(j, want)) return LoadCatalogFile(f, j);
  }
  std::string known;
  for (const auto& n : ListModels(data_dir)) known += (known.empty() ? "" : ", ") + n;
  const std::string what =
      is_path ? "no file '" + arg + "' and no catalog alias of that name" : "unknown model '" + arg + "'";
  return NotFound("--model: " + what + "; known: " + (known.empty() ? "(none under " + data_dir + "/models)" : known) +
                  ", or a path to a Hugging Face config.json");
}

std::string ModelClass(const ModelSpec& m) {
  if (m.mla()) return "MLA";
  return m.moe() ? "MoE" : "dense";
}

}  // namespace frontier::sim
