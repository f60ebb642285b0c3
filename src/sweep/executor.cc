#include "sweep/executor.h"

namespace frontier::sweep {
namespace {

class LocalExecutor final : public Executor {
 public:
  explicit LocalExecutor(SessionFactory factory) : factory_(std::move(factory)) {}
  std::string Name() const override { return "local"; }
  Result<SweepOutcome> Run(const Plan& plan, store::Store& store, const SweepOptions& options) override {
    return RunSweep(plan, store, factory_, options);
  }

 private:
  SessionFactory factory_;
};

}  // namespace

std::unique_ptr<Executor> MakeLocalExecutor(SessionFactory factory) {
  return std::make_unique<LocalExecutor>(std::move(factory));
}

Result<Plan> PlanForSystem(const Plan& plan, const std::string& system) {
  std::string names;
  for (const auto& s : plan.systems) {
    if (s.name == system) {
      Plan one = plan;
      one.systems = {s};
      return one;
    }
    names += (names.empty() ? "" : ", ") + s.name;
  }
  return NotFound("--system " + system + ": the plan " + plan.file + " has no such system; it has: " + names);
}

}  // namespace frontier::sweep
