#include "power/dcgm_scrape.h"

#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace frontier::power {
namespace {

using Key = std::pair<std::string, std::string>;  // (Hostname, gpu)

Key KeyOf(const metrics::PromSample& s) {
  return {std::string(s.Label("Hostname").value_or("")), std::string(s.Label("gpu").value_or(""))};
}

class DcgmSource final : public PowerSource {
 public:
  DcgmSource(FetchFn fetch, std::string url) : fetch_(std::move(fetch)), url_(std::move(url)) {}
  std::string Name() const override { return "scrape"; }
  const std::vector<std::string>& Devices() const override { return names_; }

  Status Read(PowerReading* r) override {
    FRONTIER_ASSIGN_OR_RETURN(metrics::Exposition e, Fetch());
    r->Reset(keys_.size());
    for (const auto& s : e.samples) {
      const bool energy = s.name == kDcgmEnergy, power = s.name == kDcgmPower;
      if (!energy && !power) continue;
      auto it = index_.find(KeyOf(s));
      if (it == index_.end() || !std::isfinite(s.value)) continue;
      if (energy) {
        if (!origin_mj_[it->second]) origin_mj_[it->second] = s.value;
        r->energy_j[it->second] = (s.value - *origin_mj_[it->second]) / 1e3;
      } else {
        r->power_w[it->second] = s.value;
      }
    }
    return Status::Ok();
  }

  // Reads the device list from the first exposition.
  Status Init() {
    FRONTIER_ASSIGN_OR_RETURN(metrics::Exposition e, Fetch());
    std::set<std::string> hosts;
    std::map<Key, std::string> model;
    for (const auto& s : e.samples) {
      if (s.name != kDcgmEnergy && s.name != kDcgmPower) continue;
      const Key k = KeyOf(s);
      hosts.insert(k.first);
      if (!model.count(k)) model[k] = std::string(s.Label("modelName").value_or(""));
    }
    if (model.empty())
      return NotFound("scrape: " + url_ + " has neither " + kDcgmEnergy + " nor " + kDcgmPower +
                      "; point --power-url at a DCGM exporter's /metrics (port 9400 by default)");
    for (const auto& [k, m] : model) {
      index_[k] = keys_.size();
      keys_.push_back(k);
      std::string name = (hosts.size() > 1 ? k.first + "/" : "") + "gpu" + k.second;
      if (!m.empty()) name += " " + m;
      names_.push_back(name);
    }
    origin_mj_.assign(keys_.size(), std::nullopt);
    return Status::Ok();
  }

 private:
  Result<metrics::Exposition> Fetch() {
    Result<std::string> body = fetch_();
    if (!body.ok()) return Unavailable("scrape: " + body.status().message());
    Result<metrics::Exposition> e = metrics::ParsePrometheusText(*body);
    if (!e.ok()) return Unavailable("scrape: GET " + url_ + ": " + e.status().message());
    return e;
  }

  FetchFn fetch_;
  std::string url_;
  std::vector<Key> keys_;
  std::map<Key, size_t> index_;
  std::vector<std::optional<double>> origin_mj_;
  std::vector<std::string> names_;
};

}  // namespace

bool HasDcgmPower(const metrics::Exposition& e) {
  for (const auto& s : e.samples)
    if (s.name == kDcgmEnergy || s.name == kDcgmPower) return true;
  return false;
}

Result<std::unique_ptr<PowerSource>> OpenDcgmScrape(FetchFn fetch, const std::string& url) {
  auto s = std::make_unique<DcgmSource>(std::move(fetch), url);
  FRONTIER_RETURN_IF_ERROR(s->Init());
  return std::unique_ptr<PowerSource>(std::move(s));
}

}  // namespace frontier::power
