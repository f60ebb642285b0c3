// Sweep plans (YAML) as a careless or hostile user writes them: ParsePlan must
// return a plan or an error for every input, never crash, hang or throw; a
// plan it accepts must expand into its matrix.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sweep/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  frontier::Result<frontier::sweep::Plan> plan = frontier::sweep::ParsePlan(text, "fuzz.yaml");
  if (!plan.ok()) return 0;
  // Small matrices only: the bound (sweep::kMaxMatrixPoints) is for users, not for every input.
  const size_t points = plan->systems.size() * plan->workloads.size() * plan->load.values.size() *
                        static_cast<size_t>(plan->repetitions);
  if (points <= 10'000) {
    const auto matrix = frontier::sweep::ExpandMatrix(*plan);
    if (matrix.size() != points) __builtin_trap();
  }
  return 0;
}
