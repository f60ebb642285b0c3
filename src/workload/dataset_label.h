// dataset_label.h: how a command line's workload is named in stored points.
//
// Thread safety: a function of its argument.
#pragma once

#include <string>

#include "workload/dataset.h"

namespace frontier::workload {

// A command line's workload as its stored points name it (their key and
// `workload`): "<input_len>/<output_len>" for random prompts, else the
// kind's name ("sharegpt", "trace", ...). A plan names its workloads itself.
std::string DatasetLabel(const DatasetOptions& options);

}  // namespace frontier::workload
