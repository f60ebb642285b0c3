#include "sim/model.h"

#include <algorithm>
#include <cctype>

#include "sim/internal/json_util.h"

namespace frontier::sim {
namespace {

using nlohmann::json;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// An integer field that must be present and positive.
Result<int> Required(const json& j, const char* key, const std::string& origin) {
  if (!j.contains(key) || j[key].is_null())
    return InvalidArgument(origin + ": missing field '" + key + "'");
  if (!j[key].is_number_integer() || j[key].get<int64_t>() <= 0)
    return InvalidArgument(origin + ": field '" + key + "' must be a positive integer, got " +
                           j[key].dump());
  return j[key].get<int>();
}

int Optional(const json& j, const char* key, int fallback) {
  if (j.contains(key) && j[key].is_number_integer()) return j[key].get<int>();
  return fallback;
}

// The first of several synonymous keys that is present, else fallback.
int OneOf(const json& j, std::initializer_list<const char*> keys, int fallback) {
  for (const char* k : keys)
    if (j.contains(k) && j[k].is_number_integer()) return j[k].get<int>();
  return fallback;
}

Result<ModelSpec> ParseHfJson(const json& j, const std::string& origin) {
  if (!j.is_object()) return InvalidArgument(origin + ": expected a JSON object");
  ModelSpec m;
  FRONTIER_ASSIGN_OR_RETURN(m.hidden, Required(j, "hidden_size", origin));
  FRONTIER_ASSIGN_OR_RETURN(m.layers, Required(j, "num_hidden_layers", origin));
  FRONTIER_ASSIGN_OR_RETURN(m.heads, Required(j, "num_attention_heads", origin));
  FRONTIER_ASSIGN_OR_RETURN(m.vocab, Required(j, "vocab_size", origin));
  m.kv_heads = Optional(j, "num_key_value_heads", m.heads);
  m.head_dim = Optional(j, "head_dim", m.hidden / m.heads);
  m.intermediate = Optional(j, "intermediate_size", 0);
  m.max_context = Optional(j, "max_position_embeddings", 4096);
  if (j.contains("tie_word_embeddings") && j["tie_word_embeddings"].is_boolean())
    m.tied_embeddings = j["tie_word_embeddings"].get<bool>();

  // Multi-head latent attention.
  m.kv_lora_rank = Optional(j, "kv_lora_rank", 0);
  if (m.mla()) {
    m.q_lora_rank = Optional(j, "q_lora_rank", 0);
    FRONTIER_ASSIGN_OR_RETURN(m.qk_nope_dim, Required(j, "qk_nope_head_dim", origin));
    FRONTIER_ASSIGN_OR_RETURN(m.qk_rope_dim, Required(j, "qk_rope_head_dim", origin));
    FRONTIER_ASSIGN_OR_RETURN(m.v_head_dim, Required(j, "v_head_dim", origin));
    m.kv_heads = m.heads;
  }

  // Mixture of experts.
  m.experts = OneOf(j, {"n_routed_experts", "num_experts", "num_local_experts"}, 0);
  if (m.moe()) {
    m.experts_per_token = OneOf(j, {"num_experts_per_tok", "experts_per_token"}, 0);
    if (m.experts_per_token <= 0)
      return InvalidArgument(origin + ": missing field 'num_experts_per_tok' (the model has " +
                             std::to_string(m.experts) + " experts)");
    m.shared_experts = OneOf(j, {"n_shared_experts"}, 0);
    if (j.contains("shared_expert_intermediate_size") && m.shared_experts == 0 &&
        Optional(j, "shared_expert_intermediate_size", 0) > 0)
      m.shared_experts = 1;
    m.moe_intermediate = OneOf(j, {"moe_intermediate_size"}, m.intermediate);
    if (m.moe_intermediate <= 0)
      return InvalidArgument(origin + ": missing field 'moe_intermediate_size'");
    m.dense_layers = Optional(j, "first_k_dense_replace", 0);
    if (j.contains("mlp_only_layers") && j["mlp_only_layers"].is_array())
      m.dense_layers += static_cast<int>(j["mlp_only_layers"].size());
    if (m.dense_layers > m.layers)
      return InvalidArgument(origin + ": first_k_dense_replace exceeds num_hidden_layers");
  }
  if ((!m.moe() || m.dense_layers > 0) && m.intermediate <= 0)
    return InvalidArgument(origin + ": missing field 'intermediate_size'");

  // Sliding-window attention.
  const int window = Optional(j, "sliding_window", 0);
  if (window > 0) {
    if (j.contains("layer_types") && j["layer_types"].is_array()) {
      for (const auto& t : j["layer_types"])
        if (t.is_string() && t.get<std::string>() == "sliding_attention") ++m.sliding_layers;
    } else if (j.contains("use_sliding_window") && j["use_sliding_window"].is_boolean() &&
               j["use_sliding_window"].get<bool>()) {
      m.sliding_layers = m.layers;
    }
    if (m.sliding_layers > 0) m.sliding_window = window;
  }
  m.mtp_layers = Optional(j, "num_nextn_predict_layers", 0);

  // Native weight formats.
  if (j.contains("quantization_config") && j["quantization_config"].is_object()) {
    const std::string method = Lower(internal::StringOr(j["quantization_config"], "quant_method", ""));
    if (method == "fp8") {
      m.precision = m.expert_precision = Precision::kFp8;
      // Per-block scales (DeepSeek: 128 x 128) rather than one per tensor.
      const auto& q = j["quantization_config"];
      m.block_scaled_fp8 = q.contains("weight_block_size") && q["weight_block_size"].is_array();
    } else if (method == "mxfp4") {
      m.expert_precision = Precision::kFp4;  // gpt-oss: experts in MXFP4, the rest BF16
    }
  }
  if (m.heads % m.kv_heads != 0)
    return InvalidArgument(origin + ": num_attention_heads must be a multiple of num_key_value_heads");
  return m;
}

}  // namespace

double ModelSpec::AttentionParams() const {
  const double h = hidden;
  if (mla()) {
    const double qk = qk_nope_dim + qk_rope_dim;
    const double q = q_lora_rank > 0 ? h * q_lora_rank + q_lora_rank * heads * qk : h * heads * qk;
    const double kv = h * (kv_lora_rank + qk_rope_dim) + kv_lora_rank * heads * (qk_nope_dim + v_head_dim);
    return q + kv + heads * v_head_dim * h;
  }
  return h * heads * head_dim + 2.0 * h * kv_heads * head_dim + heads * head_dim * h;
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
  json j = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument(origin + ": not valid JSON");
  return ParseHfJson(j, origin);
}

namespace {

// A catalog file: {"name", "aliases", "source", "hf_config": {...}, "precision", ...}.
Result<ModelSpec> LoadCatalogFile(const std::string& path, const json& j) {
  FRONTIER_ASSIGN_OR_RETURN(std::string name, internal::String(j, "name", path));
  FRONTIER_ASSIGN_OR_RETURN(ModelSpec m, ParseHfJson(j["hf_config"], path + " (hf_config)"));
  m.name = Lower(name);
  m.source = internal::StringOr(j, "source", path);
  if (j.contains("precision")) {
    FRONTIER_ASSIGN_OR_RETURN(m.precision, ParsePrecision(internal::StringOr(j, "precision", ""), path + ": precision"));
    m.expert_precision = m.precision;
  }
  FRONTIER_ASSIGN_OR_RETURN(m.mtp_acceptance_rate, internal::NumberOr(j, "mtp_acceptance_rate", 0, path));
  if (!(m.mtp_acceptance_rate >= 0 && m.mtp_acceptance_rate < 1))
    return InvalidArgument(path + ": mtp_acceptance_rate must be in [0, 1)");
  if (j.contains("expert_precision")) {
    FRONTIER_ASSIGN_OR_RETURN(m.expert_precision,
                              ParsePrecision(internal::StringOr(j, "expert_precision", ""), path + ": expert_precision"));
  }
  return m;
}

bool Matches(const json& j, const std::string& want) {
  if (Lower(internal::StringOr(j, "name", "")) == want) return true;
  if (j.contains("aliases") && j["aliases"].is_array())
    for (const auto& a : j["aliases"])
      if (a.is_string() && Lower(a.get<std::string>()) == want) return true;
  return false;
}

}  // namespace

std::vector<std::string> ListModels(const std::string& data_dir) {
  std::vector<std::string> names;
  for (const auto& f : internal::JsonFilesIn(data_dir + "/models")) {
    auto j = internal::ReadJsonFile(f);
    if (j.ok() && j->contains("name")) names.push_back(Lower(internal::StringOr(*j, "name", "")));
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<ModelSpec> LoadModel(std::string_view name_or_path, const std::string& data_dir) {
  const std::string arg(name_or_path);
  const bool is_path = arg.find('/') != std::string::npos ||
                       (arg.size() > 5 && arg.substr(arg.size() - 5) == ".json");
  if (is_path) {
    FRONTIER_ASSIGN_OR_RETURN(json j, internal::ReadJsonFile(arg));
    if (j.contains("hf_config")) return LoadCatalogFile(arg, j);
    FRONTIER_ASSIGN_OR_RETURN(ModelSpec m, ParseHfJson(j, arg));
    m.name = arg;
    m.source = arg;
    return m;
  }
  const std::string want = Lower(arg);
  for (const auto& f : internal::JsonFilesIn(data_dir + "/models")) {
    FRONTIER_ASSIGN_OR_RETURN(json j, internal::ReadJsonFile(f));
    if (Matches(j, want)) return LoadCatalogFile(f, j);
  }
  std::string known;
  for (const auto& n : ListModels(data_dir)) known += (known.empty() ? "" : ", ") + n;
  return NotFound("--model: unknown model '" + arg + "'; known: " +
                  (known.empty() ? "(none under " + data_dir + "/models)" : known) +
                  ", or a path to a Hugging Face config.json");
}

}  // namespace frontier::sim
