// mmaemu selftest --live: live parity between cuBLASLt on this GPU and the emulator.
#pragma once

#include <cstdint>
#include <string>

#include "mmaemu/error.hpp"

namespace mmaemu::cli {

struct LiveSelftestOptions {
  int calls = 48;
  uint64_t seed = 1;
  int jobs = 0;
  int64_t workspace = 1 << 20;
  std::string cublaslt = "libcublasLt.so.13", keep, json_path, profile;
};

Result<int> run_live_selftest(const LiveSelftestOptions& options);

}  // namespace mmaemu::cli
