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
// The plan's preset takes these operand formats.
Result<void> validate_plan_takes(const Plan& plan, Format a_dtype, Format b_dtype);
// The parts of validate(call) that read no data, shared with calls whose data lie elsewhere (a
// DeviceScaledMmCall): positive m, n and k; FP8 operands torch takes; a bias and an output dtype
// torch takes.
Result<void> validate_extents(int64_t m, int64_t n, int64_t k);
Result<void> validate_operand_dtypes(Format a_dtype, Format b_dtype);
Result<void> validate_bias_dtype(Format bias_dtype);
Result<void> validate_out_dtype(Format out_dtype);

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
