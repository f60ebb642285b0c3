// band.h: how sure a prediction is. Every prediction gets a +/- band from
// the leave-one-out errors of the calibrated published results of its class
// (model class x deployment kind x vendor), and a flag for each way it
// extrapolates beyond what calibration has seen.
//
// The band is the 90th percentile (nearest rank) of |leave-one-out error|
// over the narrowest class with at least kMinBandPoints calibrated results:
// model class x deployment kind x vendor, then model class x vendor, then
// model class, then every calibrated result. The errors are those the stack
// files record at their last fit (data/stacks/*.json, calibration.points),
// so `simulate`, `search`, `sweep` and `validate` read the same bands.
//
// On a GPU no result was ever fitted on, the band adds a transfer part, root
// sum of squares with the class part: rate x distance. The distance is how far
// the GPU's published specifications are from the nearest GPU of its vendor
// that calibration fitted: max(|ln(peak ratio)|, |ln(HBM bandwidth ratio)|),
// the peak at the deployment's weight format (Hardware::PeakTflops). The rate
// is the 90th percentile of excess / distance over the calibrated results
// whose stack was refitted without their GPU (calibration.h: cross-GPU
// refits) and whose model class that refit still saw on another GPU, where
// excess = sqrt(max(0, cross-GPU error^2 - leave-one-out error^2)): what
// leaving out the whole GPU adds to leaving out the result alone, which the
// class part already counts (H100 <-> H200 and MI300X <-> MI325X, the H200
// NVL and GH200 since December 2026); of the vendor when it has at least kMinBandPoints of them,
// else of every vendor. So the transfer part is measured on calibration GPUs
// only and grows with how far the new GPU is from them.
//
// The band measures the error on the GPUs calibration fitted (sim/fit/validation.h,
// the rule of calibration). A flag says where the band may not hold:
//   gpu        the GPU is a validation GPU: no result on it was ever fitted
//   precision  no calibrated result of this vendor ran this weight format
//   deployment no calibrated result of this vendor ran this deployment kind
// `frontier validate`'s transfer table measures how often the band holds on
// the validation GPUs.
//
// Thread safety: a loaded BandTable is immutable.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/prediction_band.h"
#include "core/status.h"
#include "sim/engine/hardware.h"
#include "sim/fit/validation.h"

namespace frontier::sim {

inline constexpr int kMinBandPoints = 5;

// "tp" (tensor/data parallel), "attn-dp+ep" (attention data parallel with
// expert parallel MoE), "ep" (expert parallel without attention DP) or
// "disagg" (prefill and decode on separate pools).
std::string DeploymentKind(bool attention_dp, int ep, bool disaggregated);

struct BandKey {
  std::string model_class;  // dense, MoE, MLA (validation.h, ModelClass)
  std::string deployment;   // DeploymentKind
  std::string vendor;       // nvidia, amd
  std::string precision;    // the weight format's name (precision.h)
  std::string hardware;     // hardware catalog id
  double peak_tflops = 0;   // the GPU's dense peak at `precision` (0: unknown, no transfer part)
  double hbm_tbps = 0;      // the GPU's HBM bandwidth
};

// How far apart two GPUs are for a deployment in weight format `p`:
// max(|ln(peak ratio)|, |ln(HBM bandwidth ratio)|).
double SpecDistance(const Hardware& a, const Hardware& b, Precision p);

// The band of a prediction: plain fields in core (core/prediction_band.h), so
// a simulated RunResult carries it to the result JSON, the store and reports.
using frontier::PredictionBand;

struct CalibratedError {
  std::string id;
  BandKey key;
  double loo_error = 0;
  // The error with the fit that left out every result on this result's GPU,
  // and the distance (SpecDistance) from its GPU to the nearest other GPU of
  // that fit; distance 0: no cross-GPU refit.
  double cross_gpu_error = 0;
  double cross_distance = 0;
};

// Sets, in place, the cross_distance of each result of one stack's fit
// (`fit`, with their cross_gpu_error read): from its GPU to the nearest other
// GPU of the fit with a result of the same model class, 0 (no cross-GPU
// measurement) where there is none. `gpus` holds every GPU the fit's results
// ran on.
Status AssignCrossDistances(std::span<CalibratedError> fit, const std::map<std::string, Hardware>& gpus);

// The transfer part's rate: error per unit of spec distance.
struct TransferRate {
  double rate = 0;    // 90th percentile of excess cross-GPU error / distance
  int points = 0;     // cross-GPU errors it rests on (0: none: no transfer part)
  std::string basis;  // "nvidia" or "all vendors"
};

class BandTable {
 public:
  // Joins every stack file's recorded leave-one-out errors with the
  // published results they were fitted to. Fails naming a stack file that
  // does not parse.
  static Result<BandTable> Load(const ValidationSet& set, const std::string& data_dir = DefaultDataDir());
  // From errors given directly (tests); `gpus`: the calibrated GPUs' specs
  // (none: no transfer part).
  static BandTable FromErrors(std::vector<CalibratedError> errors, std::vector<Hardware> gpus = {});
  // The validation set and every stack file's errors under `data_dir`: what a
  // command loads once per run, before its first simulated point. Fails as
  // LoadValidation or Load does.
  static Result<BandTable> LoadFrom(const std::string& data_dir = DefaultDataDir());

  PredictionBand For(const BandKey& key) const;
  // The transfer part's rate for GPUs of `vendor`.
  TransferRate Transfer(const std::string& vendor) const;
  const std::vector<CalibratedError>& errors() const { return errors_; }

 private:
  std::vector<CalibratedError> errors_;
  std::vector<Hardware> gpus_;  // the GPUs calibrated results ran on
};

// The band key of a published result (its model, hardware and stack looked up
// in the catalogs).
Result<BandKey> KeyOf(const PublishedResult& r, const std::string& data_dir = DefaultDataDir());
// The band key of a simulated deployment.
BandKey KeyOf(const SimConfig& config);

// How sure a prediction of `config` is: the band table of the catalogs under
// `data_dir` ("": the default), loaded once by the caller for its whole run,
// and the band of `config`'s class. When the catalogs cannot be read there is
// no band and *note says why: the prediction stands without it.
std::optional<PredictionBand> BandOf(const SimConfig& config, const std::string& data_dir, std::string* note);
// "prediction band: +/-12% (MLA / tp / nvidia, 30 results); extrapolates: ..."
// or "prediction band: unavailable (<note>)", with a newline.
std::string BandLine(const std::optional<PredictionBand>& band, const std::string& note);

}  // namespace frontier::sim
