// The tiled CUDA-core kernel v4 includes with the kernel's name (MMAEMU_TILED_KERNEL) and the
// step's sum type (MMAEMU_STEP_SUM: long long; int where narrow_sum_fits) defined. A macro rather
// than a template, so that v4's code, which conform validated on the GPUs, compiles to the same PTX
// as before it moved here (v9, its successor, has its own loop: kernels/v9). A block of 16 x 16
// threads computes 64 x 64 outputs, 4 x 4 per thread (rows ty + 16r, columns tx + 16c); for each
// step the block decodes the step's 64 rows of A and of B once into shared memory (padded rows: no
// bank conflicts), and every thread runs the integer step (integer_step.h) for its 16 elements
// from there. K past a chain's end is padded with zeros, which change no step. Promotion, split-K
// and the epilogue are v1's, in the same order; flagged elements (rows with NaN/Inf codes, results
// the exact encoder must make) go to the host's oracle, as in v1.
#pragma once

#include "epilogue.h"
#include "integer_step.h"
#include "k_slices.h"
#include "scaled_mm_params.h"
#include "special_elements.h"
#include "special_rows.h"

namespace {

constexpr int kTile = 64;            // outputs per block side
constexpr int kSide = 16;            // threads per block side
constexpr int kPer = kTile / kSide;  // outputs per thread side
constexpr int kMaxTerms = 64;        // the widest step the fast path computes
constexpr int kStride = kMaxTerms + 1;

}  // namespace

extern "C" __global__ void __launch_bounds__(kSide* kSide, 1)
    MMAEMU_TILED_KERNEL(ScaledMmParams p) {
  __shared__ DecodedOperand tile_a[kTile * kStride], tile_b[kTile * kStride];
  const int tx = threadIdx.x % kSide, ty = threadIdx.x / kSide;
  const long long row0 = static_cast<long long>(blockIdx.y) * kTile,
                  col0 = static_cast<long long>(blockIdx.x) * kTile;
  const DecodedOperand zero = {0, -1000};
  bool flag[kPer * kPer];
  float partial[kPer * kPer], total[kPer * kPer];
  uint32_t c[kPer * kPer];
#pragma unroll
  for (int q = 0; q < kPer * kPer; ++q) {
    const long long i = row0 + ty + kSide * (q / kPer), j = col0 + tx + kSide * (q % kPer);
    flag[q] = i < p.m && j < p.n && (p.special_rows_a[i] | p.special_rows_b[j]);
    total[q] = 0.0f;
  }
  for (int s = 0; s < p.split_k; ++s) {
    long long begin, end;
    k_slice(p, s, begin, end);
    // A single chain is one block over the whole slice; an empty slice sums to +0.
    const long long block =
        p.single_chain ? max(end - begin, 1ll) : static_cast<long long>(p.promotion_interval);
#pragma unroll
    for (int q = 0; q < kPer * kPer; ++q) partial[q] = 0.0f;
    for (long long start = begin; start < end; start += block) {
      const long long stop = min(start + block, end);
#pragma unroll
      for (int q = 0; q < kPer * kPer; ++q) c[q] = 0;
      for (long long ks = start; ks < stop; ks += p.terms) {
        const int n = static_cast<int>(min(static_cast<long long>(p.terms), stop - ks));
        __syncthreads();  // every thread is done with the previous step's operands
        for (int idx = threadIdx.x; idx < kTile * p.terms; idx += kSide * kSide) {
          const int r = idx / p.terms, x = idx % p.terms;
          const long long row = row0 + r, col = col0 + r;
          tile_a[r * kStride + x] = row < p.m && x < n ? p.table_a[p.a[row * p.k + ks + x]] : zero;
          tile_b[r * kStride + x] = col < p.n && x < n ? p.table_b[p.b[col * p.k + ks + x]] : zero;
        }
        __syncthreads();
#pragma unroll
        for (int q = 0; q < kPer * kPer; ++q) {
          const DecodedOperand* ra = tile_a + (ty + kSide * (q / kPer)) * kStride;
          const DecodedOperand* rb = tile_b + (tx + kSide * (q % kPer)) * kStride;
          c[q] = block_step<MMAEMU_STEP_SUM>(
              p, [&](int x) { return ra[x]; }, [&](int x) { return rb[x]; }, n, c[q],
              FlagForHost{flag[q]});
        }
      }
#pragma unroll
      for (int q = 0; q < kPer * kPer; ++q)
        partial[q] =
            p.single_chain ? __uint_as_float(c[q]) : __fadd_rn(partial[q], __uint_as_float(c[q]));
    }
#pragma unroll
    for (int q = 0; q < kPer * kPer; ++q)
      total[q] = s == 0 ? partial[q] : __fadd_rn(total[q], partial[q]);
  }
  const float alpha = tensorwise_alpha(p);
#pragma unroll
  for (int q = 0; q < kPer * kPer; ++q) {
    const long long i = row0 + ty + kSide * (q / kPer), j = col0 + tx + kSide * (q % kPer);
    if (i < p.m && j < p.n) store_element(p, alpha, i, j, total[q], flag[q]);
  }
}
