// text.cc: a probe's figures as `frontier probe` prints them.
#include "probe/text.h"

#include <cstdio>

#include "core/append_printf.h"

namespace frontier::probe {
namespace {

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

std::string ProbeResultText(const ProbeResult& r) {
  std::string out;
  AppendPrintf(out, "device: %s (%s, %s, %d GPU%s) against the catalog's %s\n",
               r.device.name.c_str(), r.device.backend.c_str(), r.device.arch.c_str(),
               r.device.devices, r.device.devices == 1 ? "" : "s", r.hardware.c_str());
  AppendPrintf(out, "%-14s %-8s %-5s %6s %6s %6s  %10s %10s %7s %7s  %s\n", "model", "layer",
               "prec", "M", "N", "K", "default TF", "tuned TF", "of peak", "gain",
               "tuned algorithm (rank)");
  for (const auto& g : r.gemm) {
    const double gain = g.tuned_seconds > 0 ? g.default_seconds / g.tuned_seconds - 1 : 0;
    AppendPrintf(
        out, "%-14s %-8s %-5s %6lld %6lld %6lld  %10.1f %10.1f %6.1f%% %+6.1f%%  %s (%d of %d)\n",
        g.model.c_str(), g.layer.c_str(), GemmPrecisionName(g.precision),
        static_cast<long long>(g.m), static_cast<long long>(g.n), static_cast<long long>(g.k),
        g.DefaultTflops(), g.TunedTflops(), 100 * g.TunedFraction(), 100 * gain,
        g.tuned_algo.c_str(), g.tuned_rank, g.candidates);
  }
  for (const auto& s : r.stream)
    AppendPrintf(out, "HBM %-6s %8.1f GB/s  %5.1f%% of %.0f GB/s (%lld MiB per array)\n",
                 s.kernel.c_str(), s.Gbps(), 100 * s.Fraction(), s.peak_gbps,
                 static_cast<long long>(s.bytes_per_array >> 20));
  for (const auto& d : r.decode)
    AppendPrintf(
        out,
        "decode attention %s: batch %d x %d tokens, %d/%d heads: %.1f GB/s, %.1f%% of HBM peak, "
        "max |error| %s vs host reference\n",
        d.model.c_str(), d.problem.batch, d.problem.context, d.problem.heads, d.problem.kv_heads,
        d.Gbps(), 100 * d.Fraction(), Fixed(d.max_abs_error, 5).c_str());
  for (const auto& c : r.collectives)
    AppendPrintf(out, "%s over %d GPUs: %.1f GB/s bus bandwidth (%.0f MiB)\n", c.op.c_str(),
                 c.result.gpus, c.result.bus_gbps, c.result.bytes / 1048576);
  for (const auto& n : r.notes) AppendPrintf(out, "note: %s\n", n.c_str());
  return out;
}

}  // namespace frontier::probe
