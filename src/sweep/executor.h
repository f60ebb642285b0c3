// executor.h: where a sweep's points run.
//
//   * local: this process runs every point (runner.h's RunSweep with the
//     sessions of sessions.h). The default.
//   * slurm: each system's points become one Slurm batch job that runs
//     `frontier sweep PLAN --system NAME --executor local` under srun on a
//     node of the cluster and writes into the same database (slurm.h).
//
// Both fill the same SweepOutcome, and both resume from what the store holds:
// a point is stored whole or not at all, once, whichever process ran it.
//
//   std::unique_ptr<Executor> ex = MakeLocalExecutor(DefaultSessionFactory(so));
//   Result<SweepOutcome> out = ex->Run(plan, store, options);
//
// Thread safety: one thread per executor.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "store/store.h"
#include "sweep/plan.h"
#include "sweep/runner.h"

namespace frontier::sweep {

class Executor {
 public:
  virtual ~Executor() = default;
  // "local" or "slurm".
  virtual std::string Name() const = 0;
  // Runs the plan's matrix into `store`. Errors are the store's, or (slurm) a
  // scheduler that cannot be reached; a broken system is an outcome, not an error.
  virtual Result<SweepOutcome> Run(const Plan& plan, store::Store& store, const SweepOptions& options) = 0;
};

// Runs the points in this process with sessions from `factory`.
std::unique_ptr<Executor> MakeLocalExecutor(SessionFactory factory);

// The plan restricted to the system named `system` (name, hash and text kept,
// so its points land in the same run as a whole-plan sweep's); NotFound
// listing the plan's systems when there is none of that name.
Result<Plan> PlanForSystem(const Plan& plan, const std::string& system);

}  // namespace frontier::sweep
