// v9: v4's successor (issue 15), v4's tiling and arithmetic with the step's sums in 32-bit
// integers, for the presets whose terms and sums fit them (narrow_sum_fits, which the launcher's
// choice checks: the Hopper FP8 step, 32 terms in a 13-bit window, does; v4 takes the others). A
// GPU does a 64-bit add, shift or compare as two or more 32-bit instructions, and the step's loop
// is those; the integer_step<int> it runs is the one the fast CPU path runs (its lanes are tested
// against it, and the fast path against the oracle). v4 stays the reference until v9 passes
// conform on a GPU: `--backend cuda` does not pick v9 yet. Built with -fmad=false, every FP32
// operation an explicit _rn intrinsic; no CUDA header.
#include "epilogue.h"
#include "integer_step.h"
#include "k_slices.h"
#include "scaled_mm_params.h"
#include "special_rows.h"

namespace {

constexpr int kTile = 64;            // outputs per block side
constexpr int kSide = 16;            // threads per block side
constexpr int kPer = kTile / kSide;  // outputs per thread side
constexpr int kMaxTerms = 64;        // the widest step the fast path computes
constexpr int kStride = kMaxTerms + 1;

}  // namespace

extern "C" __global__ void __launch_bounds__(kSide* kSide, 1) v9_scaled_mm(ScaledMmParams p) {
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
          c[q] = block_step<int>(
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
#pragma unroll
  for (int q = 0; q < kPer * kPer; ++q) {
    const long long i = row0 + ty + kSide * (q / kPer), j = col0 + tx + kSide * (q % kPer);
    if (i < p.m && j < p.n) store_element(p, i, j, total[q], flag[q]);
  }
}
