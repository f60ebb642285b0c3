// hardware.h: the accelerator catalog (data/hardware/*.json).
//
// One file per accelerator; every number carries its public source in the
// file. A user adds hardware by dropping another file there (see
// docs/simulate.md for the fields).
//
//   Result<Hardware> h = LoadHardware("h200");
//   double usd = h->price.neocloud;      // $/GPU-hour
//
// Scale-up topology matters for collectives: behind an NVLink switch every GPU
// reaches any set of peers at its full per-GPU bandwidth; in AMD's full mesh
// each GPU has seven point-to-point links to its seven peers, so a group of n
// GPUs only uses n-1 of them (two GPUs talk over one link, a seventh of the
// aggregate).
//
// Thread safety: values; loading reads files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "sim/engine/data_dir.h"
#include "sim/engine/precision.h"

namespace frontier::sim {

enum class Topology { kSwitch, kFullMesh };

struct GpuPrices {            // $ per GPU-hour; 0 when no public price was found
  double hyperscaler = 0;     // on-demand at a large cloud
  double neocloud = 0;        // on-demand at a GPU cloud
  double three_year = 0;      // committed three-year rate
};

struct Hardware {
  std::string name;           // catalog key, e.g. "h200"
  std::vector<std::string> aliases;
  std::string display_name;   // "NVIDIA H200 SXM 141GB"
  std::string vendor;         // "nvidia" or "amd"
  double bf16_tflops = 0;     // dense (no sparsity) peak
  double fp8_tflops = 0;      // dense peak; 0 = unsupported
  double fp4_tflops = 0;      // dense peak; 0 = unsupported
  // Capacity in the vendors' gigabytes, which are binary (2^30 bytes): HBM
  // stacks hold power-of-two dies, and the drivers report just under the
  // figure in GiB (H200 "141 GB": 143,771 MiB = 140.4 GiB; B200 "180 GB":
  // 183,359 MiB = 179.1 GiB; MI300X "192 GB": 206,141,652,992 bytes = 191.98
  // GiB; sources in docs/simulate.md, "GPU memory").
  double hbm_gb = 0;
  double hbm_tbps = 0;        // peak bandwidth, 1e12 bytes/s
  Topology topology = Topology::kSwitch;
  // kSwitch: per-GPU bandwidth to the switch, one direction (GB/s).
  // kFullMesh: one link's bandwidth, one direction (GB/s); `links` links per GPU.
  double link_gbps = 0;
  int links = 1;
  int scale_up_gpus = 8;      // GPUs in one scale-up domain (NVL72: 72)
  // Scale-out: RDMA NIC bandwidth per GPU, one direction (GB/s; 400 Gb/s =
  // 50 GB/s). 0 = none catalogued: nothing may span scale-up domains.
  double nic_gbps = 0;
  double tdp_w = 0;
  GpuPrices price;
  std::string file;           // where it was loaded from

  // Peak dense TFLOPS a GEMM with `p` operands runs at. A format the hardware
  // cannot compute in runs in the next wider one it can (FP4 weights on H100
  // are dequantised to FP8): `*effective` gets that format when non-null.
  double PeakTflops(Precision p, Precision* effective = nullptr) const;
  // Bandwidth (GB/s, one direction) one GPU can use in a collective over a
  // group of `group` GPUs in one scale-up domain. 0 for group <= 1.
  double CollectiveGBps(int group) const;
  // Of a group of `group` GPUs spread over whole scale-up domains, how many of
  // one GPU's peers sit in its own domain and how many outside it.
  int PeersInDomain(int group) const { return (group < scale_up_gpus ? group : scale_up_gpus) - 1; }
  int PeersOutsideDomain(int group) const { return group > scale_up_gpus ? group - scale_up_gpus : 0; }
  double HbmBytes() const { return hbm_gb * 1073741824.0; }
};

// Loads by catalog name or alias (case-insensitive). An unknown name fails
// with NotFound listing the known names.
Result<Hardware> LoadHardware(std::string_view name, const std::string& data_dir = DefaultDataDir());
// Parses one hardware file.
Result<Hardware> LoadHardwareFile(const std::string& path);
// Catalog names, sorted.
std::vector<std::string> ListHardware(const std::string& data_dir = DefaultDataDir());

}  // namespace frontier::sim
