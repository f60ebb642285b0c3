// Fuzzes the Prometheus text parser (metrics/prometheus.h) that reads a
// server's GET /metrics during a run: arbitrary bytes must parse or fail
// cleanly, never crash or hang; a parsed exposition's samples and their
// labels must come from the input (none longer than it), and every query the
// scraper makes must work on it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "metrics/prometheus.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto e = frontier::metrics::ParsePrometheusText(input);
  if (!e.ok()) return 0;
  for (const auto& s : e->samples) {
    if (s.name.empty() || s.name.size() > size) __builtin_trap();
    for (const auto& [k, v] : s.labels)
      if (k.empty() || k.size() + v.size() > size) __builtin_trap();
    (void)e->FamilyOf(s.name);
    (void)e->Sum(s.name);
  }
  (void)e->Sum("vllm:prefix_cache_queries_total");
  return 0;
}
