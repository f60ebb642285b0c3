#include "power/rapl.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/parse.h"
#include "power/integrate.h"

namespace frontier::power {
namespace {

namespace fs = std::filesystem;

Result<std::string> ReadSmall(const fs::path& p) {
  std::ifstream in(p);
  std::string text;
  if (!in || !std::getline(in, text))
    return Unavailable("rapl: cannot read " + p.string() +
                       " (since Linux 5.10 energy_uj is readable by root only; run as root or pick another "
                       "--power source)");
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

Result<double> ReadCounter(const fs::path& p) {
  FRONTIER_ASSIGN_OR_RETURN(std::string text, ReadSmall(p));
  Result<int64_t> v = ParseInt(p.string(), text, 0, std::numeric_limits<int64_t>::max());
  if (!v.ok()) return Unavailable("rapl: " + p.string() + " must hold a non-negative integer, got '" + text + "'");
  return static_cast<double>(*v);
}

class RaplSource final : public PowerSource {
 public:
  struct Zone {
    fs::path dir;
    double max_range_uj = 0;
    double previous_uj = -1;
    double total_uj = 0;
  };
  explicit RaplSource(std::vector<Zone> zones, std::vector<std::string> names)
      : zones_(std::move(zones)), names_(std::move(names)) {}
  std::string Name() const override { return "rapl"; }
  const std::vector<std::string>& Devices() const override { return names_; }
  Status Read(PowerReading* r) override {
    r->Reset(zones_.size());
    for (size_t i = 0; i < zones_.size(); ++i) {
      Zone& z = zones_[i];
      FRONTIER_ASSIGN_OR_RETURN(double uj, ReadCounter(z.dir / "energy_uj"));
      z.total_uj += UnwrapStep(uj, z.max_range_uj, &z.previous_uj);
      r->energy_j[i] = z.total_uj / 1e6;
    }
    return Status::Ok();
  }

 private:
  std::vector<Zone> zones_;
  std::vector<std::string> names_;
};

// "intel-rapl:0" -> true; "intel-rapl:0:1" -> false.
bool TopLevel(const std::string& name) { return std::count(name.begin(), name.end(), ':') == 1; }

}  // namespace

Result<std::unique_ptr<PowerSource>> OpenRapl(const std::string& root_arg) {
  std::string root = root_arg;
  if (root.empty()) {
    const char* env = std::getenv("FRONTIER_POWERCAP_ROOT");
    root = env != nullptr && *env != '\0' ? env : "/sys/class/powercap";
  }
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("intel-rapl:", 0) != 0) continue;
    if (TopLevel(name)) {
      dirs.push_back(it->path());
    } else {
      Result<std::string> zone = ReadSmall(it->path() / "name");
      if (zone.ok() && *zone == "dram") dirs.push_back(it->path());
    }
  }
  if (dirs.empty())
    return NotFound("rapl: no intel-rapl zone under " + root +
                    " (no RAPL on this host, or set FRONTIER_POWERCAP_ROOT to the powercap folder)");
  std::sort(dirs.begin(), dirs.end());
  std::vector<RaplSource::Zone> zones;
  std::vector<std::string> names;
  for (const auto& d : dirs) {
    RaplSource::Zone z;
    z.dir = d;
    FRONTIER_ASSIGN_OR_RETURN(z.max_range_uj, ReadCounter(d / "max_energy_range_uj"));
    FRONTIER_ASSIGN_OR_RETURN(double first, ReadCounter(d / "energy_uj"));
    (void)first;  // readable: checked here so that a permission problem fails at open
    Result<std::string> zone = ReadSmall(d / "name");
    names.push_back(zone.ok() ? *zone + " (" + d.filename().string() + ")" : d.filename().string());
    zones.push_back(std::move(z));
  }
  return std::unique_ptr<PowerSource>(std::make_unique<RaplSource>(std::move(zones), std::move(names)));
}

}  // namespace frontier::power
