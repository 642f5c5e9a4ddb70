// Shared by the backends: the checks a plan and a call must pass, and filling the output by rows
// spread over threads (rows are independent, so the bits do not depend on the thread count).
#pragma once

#include <algorithm>
#include <thread>
#include <vector>

#include "mmaemu/scaled_mm.hpp"

namespace mmaemu {

// validate(call), and the plan's preset takes the call's operand formats.
Result<void> validate_planned_call(const Plan& plan, const ScaledMmCall& call);

// out[i * n + j] = element(i, j) in out_dtype, worker w taking rows w, w + threads, ...
template <class Element>
std::vector<uint8_t> fill_output(const ScaledMmCall& call, int threads, const Element& element) {
  std::vector<uint8_t> out(static_cast<size_t>(call.m * call.n) * describe(call.out_dtype).storage_bytes());
  auto rows = [&](int64_t first, int64_t stride) {
    for (int64_t i = first; i < call.m; i += stride)
      for (int64_t j = 0; j < call.n; ++j) store_bits(call.out_dtype, out, i * call.n + j, element(i, j));
  };
  const int64_t workers = std::clamp<int64_t>(threads, 1, call.m);
  std::vector<std::thread> pool;
  for (int64_t w = 1; w < workers; ++w) pool.emplace_back(rows, w, workers);
  rows(0, workers);
  for (auto& t : pool) t.join();
  return out;
}

}  // namespace mmaemu
