// Backends that compute a planned call. The oracle (scaled_mm.hpp) defines the answer; the fast
// CPU path must equal it bit for bit (tests/unit/fast_path_test.cpp), and falls back to the
// oracle, element by element, wherever it does not apply.
#pragma once

#include <optional>
#include <string_view>

#include "mmaemu/scaled_mm.hpp"

namespace mmaemu {

enum class Backend : uint8_t {
  oracle,   // exact integer arithmetic, one function per stage: slow, the definition
  cpu,      // the fast CPU path: 64-bit integer steps, native FP32 promotion and epilogue
  cuda,     // GPU 0, the best kernel module for the call and the GPU: h4, else h1, else v9, else
            // v4
  cuda_v1,  // kernel module v1: the fast path's arithmetic, one thread per element, any GPU
  cuda_v4,  // kernel module v4: v1's arithmetic tiled (64 x 64 per block, 4 x 4 per thread), any
            // GPU
  cuda_h1,  // kernel module h1: the real wgmma step on Hopper (sm_90), hopper_fp8_wgmma_k32 only
  cuda_h4,  // kernel module h4: h1 pipelined at a 128 x 128 tile; up to 8 split-K slices, K % 16 ==
            // 0
  cuda_v9,  // kernel module v9: v4's step with its terms made and summed in FP32 where they fit
            // (float_sum_fits), any GPU
};

// "oracle", "cpu", "cuda", "cuda-v1", "cuda-v4", "cuda-h1", "cuda-h4", "cuda-v9".
std::string_view to_string(Backend backend);
std::optional<Backend> backend_named(std::string_view name);
bool is_cuda(Backend backend);

// Whether the fast CPU path covers the plan's preset; if not, `why` says what it lacks.
bool fast_path_supports(const Plan& plan, std::string* why = nullptr);

// The CUDA backends' own calls (the GPU and its modules, which module runs a call, run statistics)
// are tools: mmaemu/tools/cuda_backend.hpp.
// Computes the call with a backend; `threads` > 1 spreads rows over threads. The bits do not
// depend on the backend or on the thread count.
Result<std::vector<uint8_t>> emulate(const Plan& plan, const ScaledMmCall& call, Backend backend,
                                     int threads = 1);

}  // namespace mmaemu
