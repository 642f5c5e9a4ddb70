// v1: the simplest correct GPU emulation of torch._scaled_mm under a plan: one thread per output
// element, the same arithmetic as the fast CPU path (lib/src/cpu/fast_gemm.cpp): 64-bit integer
// block steps (alignment window, truncation toward zero, a truncated f32 result), promotion and
// split-K reduction in FP32 with round-to-nearest-even, then the epilogue. Elements the integer
// step cannot finish (subnormal or overflowing step results, FP8 outputs of an infinity) are
// flagged and the host computes them with the oracle, as it does for elements whose rows hold
// NaN/Inf codes (marked by the flag_special_rows pre-pass).
// Built with -fmad=false, and every FP32 operation is an explicit _rn intrinsic: no contraction.
// No CUDA header: the same source builds with nvcc (the fatbin) and with NVRTC (the fallback).
#include "epilogue.h"
#include "integer_step.h"
#include "k_slices.h"
#include "scaled_mm_params.h"
#include "special_elements.h"
#include "special_rows.h"

namespace {

// Steps over [begin, end) of a row of A and a row of B, each step from the previous one's result.
__device__ uint32_t chain(const ScaledMmParams& p, const uint8_t* a, const uint8_t* b,
                          long long begin, long long end, uint32_t c, bool& flag) {
  for (long long s = begin; s < end; s += p.terms) {
    const int n = static_cast<int>(min(static_cast<long long>(p.terms), end - s));
    const uint8_t *ca = a + s, *cb = b + s;
    c = block_step(
        p, [&](int x) { return p.table_a[ca[x]]; }, [&](int x) { return p.table_b[cb[x]]; }, n, c,
        FlagForHost{flag});
  }
  return c;
}

}  // namespace

extern "C" __global__ void v1_scaled_mm(ScaledMmParams p) {
  const long long index = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= p.m * p.n) return;
  const long long i = index / p.n, j = index % p.n;
  const uint8_t* row_a = p.a + i * p.k;
  const uint8_t* row_b = p.b + j * p.k;
  bool flag = p.special_rows_a[i] | p.special_rows_b[j];
  float total = 0.0f;
  for (int s = 0; s < p.split_k; ++s) {
    long long begin, end;
    k_slice(p, s, begin, end);
    float partial;
    if (p.single_chain) {
      partial = __uint_as_float(chain(p, row_a, row_b, begin, end, 0, flag));
    } else {
      partial = 0.0f;
      for (long long start = begin; start < end; start += p.promotion_interval)
        partial = __fadd_rn(
            partial, __uint_as_float(chain(p, row_a, row_b, start,
                                           min(start + p.promotion_interval, end), 0, flag)));
    }
    total = s == 0 ? partial : __fadd_rn(total, partial);
  }
  store_element(p, tensorwise_alpha(p), i, j, total, flag);
}
