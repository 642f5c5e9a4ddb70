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
  std::string workspaces = "1048576";  // each call draws one of these cuBLASLt workspace sizes
  int sm_count = 0;                    // SM_COUNT_TARGET for every call (0: the GPU's own)
  std::string split_k_from =
      "recording";              // or "profile": the profile's count, not the recorded one
  std::string backend = "cpu";  // the emulator's backend for the replays
  std::string cublaslt = "libcublasLt.so.13", keep, json_path, profile;
};

Result<int> run_live_selftest(const LiveSelftestOptions& options);

}  // namespace mmaemu::cli
