#include "client/models.h"

#include <curl/curl.h>

#include <mutex>
#include <nlohmann/json.hpp>

namespace frontier::client {

Result<ModelInfo> ParseModels(const std::string& body, const std::string& model) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("data") || !j["data"].is_array() || j["data"].empty())
    return InvalidArgument("/v1/models did not list any model");
  const nlohmann::json* entry = &j["data"][0];
  for (const auto& m : j["data"]) {
    if (m.is_object() && m.contains("id") && m["id"].is_string() && m["id"].get<std::string>() == model) {
      entry = &m;
      break;
    }
  }
  ModelInfo info;
  if (!entry->is_object()) return InvalidArgument("/v1/models lists a model that is not an object");
  if (entry->contains("id") && (*entry)["id"].is_string()) info.id = (*entry)["id"].get<std::string>();
  if (entry->contains("meta") && (*entry)["meta"].is_object()) {
    const auto& meta = (*entry)["meta"];
    if (meta.contains("n_vocab") && meta["n_vocab"].is_number_integer()) {
      const int64_t v = meta["n_vocab"].get<int64_t>();
      if (v < 2 || v > (int64_t{1} << 31) - 1)
        return InvalidArgument("/v1/models gives meta.n_vocab " + std::to_string(v) +
                               ", outside [2, 2^31 - 1]");
      info.n_vocab = v;
    }
  }
  return info;
}

namespace {

struct Body {
  std::string text;
  size_t max = 0;
  bool over = false;
};

size_t Append(char* p, size_t size, size_t n, void* userp) {
  auto* out = static_cast<Body*>(userp);
  if (out->text.size() + size * n > out->max) {
    out->over = true;
    return 0;  // stops a runaway body
  }
  out->text.append(p, size * n);
  return size * n;
}

}  // namespace

Result<std::string> HttpGet(const ClientOptions& o, const std::string& url, Nanos timeout, size_t max_bytes) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  CURL* e = curl_easy_init();
  if (!e) return Unavailable("cannot set up an HTTP request for " + url);
  Body body;
  body.max = max_bytes;
  curl_slist* headers = nullptr;
  if (!o.api_key.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + o.api_key).c_str());
  for (const auto& h : o.headers) headers = curl_slist_append(headers, h.c_str());
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Append);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<Nanos>(1, timeout / kNanosPerMilli)));
  if (o.insecure) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  const CURLcode rc = curl_easy_perform(e);
  long status = 0;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(e);
  curl_slist_free_all(headers);
  if (body.over)
    return Unavailable("GET " + url + ": the body exceeds the bound of " + std::to_string(max_bytes) + " bytes");
  if (rc != CURLE_OK) return Unavailable("GET " + url + ": " + curl_easy_strerror(rc));
  if (status != 200) return Unavailable("GET " + url + ": HTTP " + std::to_string(status));
  return std::move(body.text);
}

Result<ModelInfo> QueryModel(const ClientOptions& o, Nanos timeout) {
  std::string base = o.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  // A model list is small: 4 MiB bounds a runaway body.
  FRONTIER_ASSIGN_OR_RETURN(std::string body, HttpGet(o, base + "/v1/models", timeout, 4u << 20));
  return ParseModels(body, o.model);
}

}  // namespace frontier::client
