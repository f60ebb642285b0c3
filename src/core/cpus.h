// cpus.h: how many threads this process can run at once.
//
// One answer for every pool that sizes itself to the machine (the load
// generator's workers, the ordered pool of simulated points, the fitting's
// side-by-side tasks), so `taskset -c 0 frontier ...` means one thread to
// all of them.
//
//   unsigned n = UsableCpus();   // 2 on a two-core machine, 1 under taskset -c 0
//
// Thread safety: safe from any thread.
#pragma once

namespace frontier {

// The CPUs this process may run on (its affinity mask), or the machine's
// hardware threads when the mask cannot be read; at least one.
unsigned UsableCpus();

}  // namespace frontier
