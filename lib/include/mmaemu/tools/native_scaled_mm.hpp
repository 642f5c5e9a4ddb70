// torch._scaled_mm as cuBLASLt runs it on a live GPU (the CUDA driver and libcublasLt loaded at
// run time), timed: the native side of `mmaemu bench`, beside the emulation backends.
#pragma once

#include <string>
#include <vector>

#include "mmaemu/error.hpp"
#include "mmaemu/tools/record.hpp"

namespace mmaemu {

struct NativeTiming {
  std::vector<uint8_t> out;     // the first run's output
  bool deterministic = true;    // every run gave the same bits
  AlgorithmChoice choice;       // what the heuristic chose (split-K count among it)
  std::vector<double> seconds;  // each run: the matmul alone, launch to synchronise (host clock)
  std::string gpu;
  size_t cublaslt_version = 0;
};

// Runs `call` `runs` times with torch's cuBLASLt setup on GPU `device`; the session (library,
// handle) is opened once per process.
Result<NativeTiming> time_native_scaled_mm(const RecordCall& call,
                                           const std::string& cublaslt_library,
                                           int64_t workspace_bytes, int runs, int device = 0);

}  // namespace mmaemu
