// --backend for gemm, replay, conform and bench: the name checked, and for a CUDA backend the GPU
// opened up front, so that a machine without one hears why before any work starts.
#pragma once

#include <spdlog/spdlog.h>

#include <string>

#include "mmaemu/emulate.hpp"

namespace mmaemu::cli {

inline constexpr const char* kBackendHelp =
    "cpu (fast path), oracle (the exact definition), cuda (GPU 0: h4, else h1, where they apply, "
    "else v4), "
    "cuda-v1, cuda-v4, cuda-h1, cuda-h4";

inline Result<Backend> open_backend(const std::string& name) {
  const auto backend = backend_named(name);
  if (!backend)
    return Error(
        Errc::invalid_argument,
        "--backend " + name + ": expected cpu, oracle, cuda, cuda-v1, cuda-v4, cuda-h1 or cuda-h4");
  if (is_cuda(*backend)) {
    auto gpu = cuda_backend_device();
    if (!gpu) return Error(gpu.error().code(), "--backend " + name + ": " + gpu.error().message());
    spdlog::info("--backend {}: {}", name, *gpu);
  }
  return *backend;
}

}  // namespace mmaemu::cli
