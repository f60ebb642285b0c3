// data_dir.h: where the catalogs (data/hardware, data/models, data/stacks,
// data/validation, data/mlperf) are read from.
//
// Order: the environment variable FRONTIER_DATA_DIR; else the folder compiled
// in as FRONTIER_DEFAULT_DATA_DIR (the source tree's data/, set on
// core/data_dir.cc alone); else "data" relative to the working directory.
//
// Thread safety: reads the environment; call it from one thread or before
// starting others.
#pragma once

#include <string>

namespace frontier {

std::string DefaultDataDir();

}  // namespace frontier
