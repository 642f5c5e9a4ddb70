// The oracle of one tensor-core step and of a chain of steps: deliberately simple exact integer
// arithmetic that defines what every faster path must return.
#pragma once

#include <cstdint>
#include <span>

#include "mmaemu/preset.hpp"

namespace mmaemu {

struct StepInputs {
  Format a_format;
  Format b_format;
  std::span<const uint32_t> a;  // up to terms_per_step codes; the rest of the step is zero
  std::span<const uint32_t> b;
  uint32_t c;  // the incoming accumulator, in result.format
};

// One block FMA: returns the step's result bits in result.format.
uint32_t oracle_mma_step(const Preset& preset, const StepResult& result, const StepInputs& in);

// d = the chain of ceil(k / terms_per_step) steps over a[0..k), b[0..k), starting from c, as one
// instruction (or an mma_block recording) composes them.
uint32_t oracle_mma_chain(const Preset& preset, const StepResult& result, const StepInputs& in);

}  // namespace mmaemu
