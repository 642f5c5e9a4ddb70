// Backends that compute a planned call. The oracle (scaled_mm.hpp) defines the answer; the fast
// CPU path must equal it bit for bit (tests/unit/fast_path_test.cpp), and falls back to the
// oracle, element by element, wherever it does not apply.
#pragma once

#include <string_view>

#include "mmaemu/scaled_mm.hpp"

namespace mmaemu {

enum class Backend : uint8_t {
  oracle,  // exact integer arithmetic, one function per stage: slow, the definition
  cpu,     // the fast CPU path: 64-bit integer steps, native FP32 promotion and epilogue
  cuda,    // the v1 kernel on GPU 0: the fast path's arithmetic, one thread per element
};

std::string_view to_string(Backend backend);

// Whether the fast CPU path covers the plan's preset; if not, `why` says what it lacks.
bool fast_path_supports(const Plan& plan, std::string* why = nullptr);

// Whether the CUDA backend's v1 kernel covers the plan; if not, `why` says what it lacks.
bool cuda_backend_supports(const Plan& plan, std::string* why = nullptr);
// Loads the driver and the v1 module on GPU 0: the GPU's name, or why the CUDA backend cannot run.
Result<std::string> cuda_backend_device();
// The call on GPU 0 (driver loaded at run time); an error says why no GPU path is there.
Result<std::vector<uint8_t>> emulate_cuda(const Plan& plan, const ScaledMmCall& call, int threads = 1);

// Computes the call with a backend; `threads` > 1 spreads rows over threads. The bits do not
// depend on the backend or on the thread count.
Result<std::vector<uint8_t>> emulate(const Plan& plan, const ScaledMmCall& call, Backend backend,
                                     int threads = 1);

}  // namespace mmaemu
