// data_dir.h: the simulator's catalogs are read from core's data directory
// (core/data_dir.h); sim::DefaultDataDir is that function.
#pragma once

#include "core/data_dir.h"

namespace frontier::sim {

using frontier::DefaultDataDir;

}  // namespace frontier::sim
