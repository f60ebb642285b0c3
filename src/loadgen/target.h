// target.h: the seam between the load generator's timing core and whatever it
// measures (MLPerf LoadGen's "system under test").
//
// The timing core (RunLoad, runner.h) decides *when* each request is issued
// and keeps the books; a Target only sends requests and reports how each one
// ended. The HTTP client (http_target.h, worker_pool.h) is one Target, on the
// steady clock; the simulator (sim/sim_target.h) is another, on a virtual
// clock it moves itself as its engine steps; tests use fakes on a
// ManualClock. So arrivals, the concurrency cap, warm-up, duration and stop
// are written once, for measured and simulated runs alike.
//
// Times in the records a Target delivers are absolute readings of its
// clock(), which is the clock the timing core reads; the core rebases them to
// the run's start.
//
// Thread safety: a Target is driven from one thread, the timing core's.
#pragma once

#include <cstddef>
#include <string>

#include "core/clock.h"
#include "core/run_result.h"
#include "core/status.h"
#include "workload/load.h"
#include "workload/request_spec.h"

namespace frontier::loadgen {

// Receives finished requests from a Target.
class CompletionSink {
 public:
  virtual ~CompletionSink() = default;
  // `record` has id, ok/failure, tokens and absolute times (sent_ns,
  // first_token_ns, end_ns, events) filled; the sink owns it afterwards.
  virtual void OnComplete(RequestRecord&& record) = 0;
};

class Target {
 public:
  virtual ~Target() = default;

  virtual std::string Name() const = 0;

  // The clock this Target stamps its records with and the timing core reads.
  virtual const Clock& clock() const { return SteadyClock::Get(); }

  // Starts request `id` now, without waiting on the network. The Target takes
  // the send timestamp (RequestRecord::sent_ns) itself. `spec` must stay
  // alive until the request completes.
  virtual void Issue(int64_t id, const workload::RequestSpec& spec) = 0;

  // Waits for and handles I/O until `deadline` (absolute, same clock) or until
  // at least one request completed, whichever is first; completions are
  // handed to `sink` before returning. May return early (spuriously).
  virtual void Poll(Nanos deadline, CompletionSink& sink) = 0;

  // Ends every request in flight as failed with `reason` (a failure:: code);
  // each is handed to `sink` before returning.
  virtual void AbortAll(const char* reason, CompletionSink& sink) = 0;

  // Cancellation (workload/cancel.h). A Target that supports it ends a
  // request whose spec has cancel_after_tokens = K itself, once K output
  // tokens arrived, and ends request `id` at once on Cancel(); either way the
  // record has cancelled = true and goes to `sink`. Cancel returns false when
  // `id` is not in flight or the Target cannot cancel one request.
  virtual bool SupportsCancel() const { return false; }
  virtual bool Cancel(int64_t /*id*/, CompletionSink& /*sink*/) { return false; }

  // Requests issued and not yet completed.
  virtual size_t InFlight() const = 0;

  // The model id the server reported in its responses ("" until one did).
  virtual std::string ServedModel() const { return ""; }

  // Fills what a run's provenance says about this Target: source, host,
  // base_url and endpoint, the settings it resolved to (added to
  // run->effective_settings). Called once per run, after it (point.h).
  virtual void Describe(RunResult* run) const = 0;

  // The bounds this Target puts on a run that are known before it starts
  // (the simulator's request bound): OK, or an error naming the bound and how
  // to ask for less. RunPoint (point.h) checks it before the run.
  virtual Status CheckLoad(const workload::LoadOptions& /*load*/) const { return Status::Ok(); }

  // OK, or why the Target ended the last run early on its own (a bound it
  // reached, ResourceExhausted). A Target with bounds raises a stop flag of
  // its own for the timing core; RunPoint returns this after the run.
  virtual Status RunStatus() const { return Status::Ok(); }
};

}  // namespace frontier::loadgen
