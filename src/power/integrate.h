// integrate.h: the energy of a time window from a source's readings.
//
//   Result<EnergyMeasurement> e = Integrate(readings, devices, a_ns, b_ns);
//
// Per device, over [a, b] (the sampler's clock):
//   - with an energy counter in every reading: E(b) - E(a), E linearly
//     interpolated between the readings around each end ("energy counter");
//   - else power P(t) linear between readings, integrated by the trapezoid
//     rule from P(a) to P(b), the ends interpolated ("power integrated").
// Mean power = joules / (b - a); peak = the largest power reading inside the
// window (a counter-only device: the largest slope between two readings).
// The totals sum the devices; the total's peak is the largest sum at one
// reading.
//
// Fails (FailedPrecondition) when b <= a, when fewer than two readings are
// given, or when the readings do not cover [a, b]: the sampler starts before
// the window and reads once more after it, so that means it was not running.
//
// Thread safety: pure.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/run_result.h"
#include "core/status.h"
#include "power/source.h"

namespace frontier::power {

Result<EnergyMeasurement> Integrate(std::span<const PowerReading> readings, const std::vector<std::string>& devices,
                                    Nanos a_ns, Nanos b_ns);

// Adds `value` (a counter reading in its own unit) to an unwrapped total:
// a reading below the previous one means the counter passed `max_range` and
// started again from 0, so the step is (max_range - previous) + value.
// `*previous` < 0 means "no previous reading" (the total starts at 0).
// Returns the step added.
double UnwrapStep(double value, double max_range, double* previous);

}  // namespace frontier::power
