// --backend for gemm, replay, conform and bench: the name checked, and for a CUDA backend the GPU
// opened up front, so that a machine without one hears why before any work starts.
#pragma once

#include <spdlog/spdlog.h>

#include <string>

#include "mmaemu/emulate.hpp"
#include "mmaemu/tools/cuda_backend.hpp"
#include "mmaemu/tools/emulation_modules.hpp"

namespace mmaemu::cli {

// The --backend names, the CUDA modules' from their descriptors: "cpu, oracle, cuda, cuda-v1, ...".
inline std::string backend_names() {
  std::string names = "cpu, oracle, cuda";
  for (const EmulationModule& m : emulation_modules()) names += ", " + std::string(m.backend_name);
  return names;
}

inline std::string backend_help() {
  std::string help =
      "cpu (fast path), oracle (the exact definition), cuda (GPU 0: h4, else h1, else v9, "
      "where they apply, else v4)";
  for (const EmulationModule& m : emulation_modules())
    help += ", " + std::string(m.backend_name) + " (" + std::string(m.summary) + ")";
  return help;
}

inline Result<Backend> open_backend(const std::string& name) {
  const auto backend = backend_named(name);
  if (!backend)
    return Error(Errc::invalid_argument,
                 "--backend " + name + ": expected one of " + backend_names());
  if (is_cuda(*backend)) {
    auto gpu = cuda_backend_device();
    if (!gpu) return Error(gpu.error().code(), "--backend " + name + ": " + gpu.error().message());
    spdlog::info("--backend {}: {}", name, *gpu);
  }
  return *backend;
}

}  // namespace mmaemu::cli
