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
// The band measures the error on the GPUs calibration fitted (sim/validation.h,
// the rule of calibration). A flag says where the band may not hold:
//   gpu        the GPU is a validation GPU: no result on it was ever fitted
//   precision  no calibrated result of this vendor ran this weight format
//   deployment no calibrated result of this vendor ran this deployment kind
// `frontier validate`'s transfer table measures how often the band holds on
// the validation GPUs.
//
// Thread safety: a loaded BandTable is immutable.
#pragma once

#include <string>
#include <vector>

#include "core/prediction_band.h"
#include "core/status.h"
#include "sim/validation.h"

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
};

// The band of a prediction: plain fields in core (core/prediction_band.h), so
// a simulated RunResult carries it to the result JSON, the store and reports.
using frontier::PredictionBand;

struct CalibratedError {
  std::string id;
  BandKey key;
  double loo_error = 0;
};

class BandTable {
 public:
  // Joins every stack file's recorded leave-one-out errors with the
  // published results they were fitted to. Fails naming a stack file that
  // does not parse.
  static Result<BandTable> Load(const ValidationSet& set, const std::string& data_dir = DefaultDataDir());
  // From errors given directly (tests).
  static BandTable FromErrors(std::vector<CalibratedError> errors);
  // The validation set and every stack file's errors under `data_dir`: what a
  // command loads once per run, before its first simulated point. Fails as
  // LoadValidation or Load does.
  static Result<BandTable> LoadFrom(const std::string& data_dir = DefaultDataDir());

  PredictionBand For(const BandKey& key) const;
  const std::vector<CalibratedError>& errors() const { return errors_; }

 private:
  std::vector<CalibratedError> errors_;
};

// The band key of a published result (its model, hardware and stack looked up
// in the catalogs).
Result<BandKey> KeyOf(const PublishedResult& r, const std::string& data_dir = DefaultDataDir());
// The band key of a simulated deployment.
BandKey KeyOf(const SimConfig& config);

}  // namespace frontier::sim
