// Hugging Face config.json files (`frontier simulate --model PATH`): every
// input gives a model or an error, never a crash or an exception, and a model
// it accepts gives finite parameter counts and a finite memory plan on a
// catalogued GPU, and one step of it a finite time (the simulator divides and
// multiplies these sizes).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/engine/config.h"
#include "sim/engine/hardware.h"
#include "sim/engine/model.h"
#include "sim/engine/stack.h"
#include "sim/engine/step_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const frontier::sim::SimConfig kBase = [] {
    frontier::sim::SimSpec spec;
    spec.model = "llama-3.1-8b";
    spec.hardware = "h200";
    auto c = frontier::sim::ResolveSimConfig(spec);
    if (!c.ok()) __builtin_trap();  // the catalog must load (FRONTIER_DATA_DIR)
    return *c;
  }();
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto m = frontier::sim::ParseHfConfig(text, "config.json");
  if (!m.ok()) return 0;
  if (!std::isfinite(m->TotalParams()) || !std::isfinite(m->ActiveParams()) ||
      !std::isfinite(m->KvElementsPerTokenLayer()))
    __builtin_trap();
  frontier::sim::SimConfig c = kBase;
  c.model = *m;
  const frontier::sim::MemoryPlan plan = frontier::sim::PlanMemory(c);
  if (!std::isfinite(plan.weights) || !std::isfinite(plan.kv) || plan.kv_capacity_tokens < 0) __builtin_trap();
  // One step of a prefill chunk and a decode token costs a finite, non-negative time.
  const frontier::sim::StepModel step(c);
  frontier::sim::BatchShape shape;
  shape.AddPrefill(0, 512, m->sliding_window, true);
  shape.AddDecode(4096, 1, m->sliding_window);
  const double t = step.Cost(shape).time_s;
  if (!std::isfinite(t) || t < 0) __builtin_trap();
  return 0;
}
