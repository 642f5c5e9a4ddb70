// Shared by the backends: the checks a plan and a call must pass, and filling the output by rows
// spread over threads (rows are independent, so the bits do not depend on the thread count).
#pragma once

#include <algorithm>
#include <vector>

#include "mmaemu/scaled_mm.hpp"
#include "threads/parallel_for.hpp"

namespace mmaemu {

// validate(call), and the plan's preset takes the call's operand formats.
Result<void> validate_planned_call(const Plan& plan, const ScaledMmCall& call);

// out[i * n + j] = element(i, j) in out_dtype, rows spread over threads (parallel_for)
template <class Element>
std::vector<uint8_t> fill_output(const ScaledMmCall& call, int threads, const Element& element) {
  std::vector<uint8_t> out(static_cast<size_t>(call.m * call.n) *
                           describe(call.out_dtype).storage_bytes());
  parallel_for(call.m, std::max(threads, 1), [&](int64_t i) {
    for (int64_t j = 0; j < call.n; ++j)
      store_bits(call.out_dtype, out, i * call.n + j, element(i, j));
  });
  return out;
}

}  // namespace mmaemu
