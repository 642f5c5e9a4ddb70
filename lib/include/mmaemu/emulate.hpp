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
};

std::string_view to_string(Backend backend);

// Whether the fast CPU path covers the plan's preset; if not, `why` says what it lacks.
bool fast_path_supports(const Plan& plan, std::string* why = nullptr);

// Computes the call with a backend; `threads` > 1 spreads rows over threads. The bits do not
// depend on the backend or on the thread count.
Result<std::vector<uint8_t>> emulate(const Plan& plan, const ScaledMmCall& call, Backend backend,
                                     int threads = 1);

}  // namespace mmaemu
