// source.h: one interface over every place power or energy can be read
// from: NVML (nvml.h), the Linux powercap tree (rapl.h) and a DCGM
// exporter's Prometheus text (dcgm_scrape.h).
//
//   Result<std::unique_ptr<PowerSource>> s = OpenPowerSource(options);   // open.h
//   PowerReading r;
//   Status st = (*s)->Read(&r);   // one reading of every device
//
// A reading holds, per device, a cumulative energy in joules (from an
// arbitrary origin, unwrapped: it never decreases) and/or an instantaneous
// power in watts; NaN where the device does not give it. The sampler
// (sampler.h) stamps and keeps readings; integrate.h turns them into the
// energy of a window.
//
// Thread safety: a source is read from one thread at a time (the sampler's).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace frontier::power {

struct PowerReading {
  Nanos t_ns = 0;                 // the sampler's clock, when the reading was taken
  std::vector<double> energy_j;   // per device: cumulative joules, NaN when not given
  std::vector<double> power_w;    // per device: watts now, NaN when not given

  // Sizes both vectors to `devices`, every entry NaN, before a source fills them.
  void Reset(size_t devices) {
    energy_j.assign(devices, std::nan(""));
    power_w.assign(devices, std::nan(""));
  }
};

class PowerSource {
 public:
  virtual ~PowerSource() = default;
  // "nvml", "amdsmi", "rapl" or "scrape": stored with every measurement.
  virtual std::string Name() const = 0;
  // One name per device, fixed when the source opened ("gpu0 NVIDIA H200").
  virtual const std::vector<std::string>& Devices() const = 0;
  // Fills r->energy_j and r->power_w (one entry per device; t_ns is the
  // caller's). An error names the device and what failed; the sampler counts
  // it and goes on.
  virtual Status Read(PowerReading* r) = 0;
};

}  // namespace frontier::power
