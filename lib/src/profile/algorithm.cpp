#include <algorithm>

#include "mmaemu/algorithm.hpp"

#include "common/k_slices.h"

namespace mmaemu {

const std::vector<Algorithm>& builtin_algorithms() {
  static const std::vector<Algorithm> algorithms = {
      {"cublaslt_nvjet_fast",
       "cuBLASLt nvjet FP8 kernels with CUBLASLT_MATMUL_DESC_FAST_ACCUM = 1: one chain of wgmma "
       "k32 steps over each K slice",
       Accumulation::single_chain, 128, 128, RowwiseScaleOrder::column_first, true, false},
      {"cublaslt_nvjet_promote128",
       "cuBLASLt nvjet FP8 kernels without fast accumulation (algo2): the wgmma chain restarts "
       "every 128 elements of K and is added into an FP32 accumulator",
       Accumulation::promoted, 128, 128, RowwiseScaleOrder::column_first, true, false},
      {"cutlass_sm89_staged_fast",
       "Ada mma.sync m16n8k32 kernels with fast accumulation (experimental, from public CUTLASS "
       "sources): one chain per K slice",
       Accumulation::single_chain, 128, 128, RowwiseScaleOrder::row_first, true, false},
      {"cutlass_sm89_staged_promote128",
       "Ada mma.sync m16n8k32 kernels with staged accumulation every 128 elements of K "
       "(experimental, from public CUTLASS sources)",
       Accumulation::promoted, 128, 128, RowwiseScaleOrder::row_first, true, false},
  };
  return algorithms;
}

const Algorithm* find_algorithm(std::string_view name) {
  for (const auto& a : builtin_algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

std::string_view to_string(Accumulation v) {
  return v == Accumulation::single_chain ? "single_chain" : "promoted";
}

std::string_view to_string(RowwiseScaleOrder v) {
  return v == RowwiseScaleOrder::column_first ? "column_first" : "row_first";
}

// The kernels' rule (kernels/common/k_slices.h), so that the two cannot drift apart.
KRange split_k_slice(int64_t k, int splits, int grain, int slice) {
  long long begin = 0, end = 0;
  split_k_bounds(k, splits, grain, slice, begin, end);
  return {begin, end};
}

}  // namespace mmaemu
