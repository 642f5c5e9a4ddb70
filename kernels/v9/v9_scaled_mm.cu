// v9: v4's successor (issue 15), the same step with fewer instructions per emulated product, for
// the presets whose terms fit FP32 exactly (float_sum_fits, which the launcher's choice checks: the
// Hopper FP8 step, 32 terms in a 13-bit window, does; v4 takes the others).
// - The terms are made and summed in FP32 (common/float_terms.h: a multiply, a fused multiply-add
//   rounded toward zero, a subtract and an add per term), not in 32- or 64-bit integers; the
//   largest exponent is one add-and-max (__viaddmax_s32, one DPX instruction on sm_90) per term.
// - Register blocking: a thread's 4 x 4 outputs are rows 4ty.. and columns 4tx.., and the step's
//   operands sit in shared memory term-major, so one 8-byte load gives a thread four exponents and
//   one 16-byte load four values: 16 products from 4 + 4 loads (v4 loads two operands a product).
// A block of 16 x 16 threads computes 64 x 64 outputs. For each step the block decodes the step's
// 64 rows of A and of B once into shared memory (exponents as int16, values as FP32: 48 KiB for
// the widest step, 64 terms). Promotion, split-K and the epilogue are v4's, in the same order;
// flagged elements (rows with NaN/Inf codes, results the exact encoder must make) go to the host's
// oracle. Built with -fmad=false, every FP32 operation an explicit intrinsic; no CUDA header.
#include "epilogue.h"
#include "float_terms.h"
#include "k_slices.h"
#include "scaled_mm_params.h"
#include "special_rows.h"

namespace {

constexpr int kTile = 64;            // outputs per block side
constexpr int kSide = 16;            // threads per block side
constexpr int kPer = kTile / kSide;  // outputs per thread side
constexpr int kMaxTerms = 64;        // the widest step the fast path computes

struct StepOperands {
  short exponent_a[kMaxTerms][kTile], exponent_b[kMaxTerms][kTile];
  float value_a[kMaxTerms][kTile], value_b[kMaxTerms][kTile];
};

// Decodes the step's n terms (K from ks) of the block's 64 rows of A and of B; rows past the
// matrix and terms past n hold zeros. Thread t takes row t % 64 of term t / 64, then every fourth
// term: a warp writes 32 neighbouring rows of one term (no bank conflict).
__device__ inline void load_step(const ScaledMmParams& p, StepOperands& s, long long row0,
                                 long long col0, long long ks, int n) {
  const int r = threadIdx.x % kTile;
  const long long row = row0 + r, col = col0 + r;
  for (int x = threadIdx.x / kTile; x < n; x += kSide * kSide / kTile) {
    const DecodedOperand zero = {0, -1000};
    const DecodedOperand a = row < p.m ? p.table_a[p.a[row * p.k + ks + x]] : zero;
    const DecodedOperand b = col < p.n ? p.table_b[p.b[col * p.k + ks + x]] : zero;
    s.exponent_a[x][r] = a.exponent;
    s.exponent_b[x][r] = b.exponent;
    s.value_a[x][r] = operand_value(a, p.product_fraction_bits);  // A carries both fractions
    s.value_b[x][r] = operand_value(b, 0);
  }
}

// Four int16 exponents from one 8-byte load.
__device__ inline void four_exponents(const short* at, int (&e)[kPer]) {
  const uint2 w = *reinterpret_cast<const uint2*>(at);
  e[0] = static_cast<int>(w.x << 16) >> 16;
  e[1] = static_cast<int>(w.x) >> 16;
  e[2] = static_cast<int>(w.y << 16) >> 16;
  e[3] = static_cast<int>(w.y) >> 16;
}

// One step for the thread's 16 elements: float_terms_step's arithmetic, blocked (the largest
// exponent over the terms, the unit, then the terms' FP32 sum, then finish_step), c[q] in and out
// as f32 bits; late_c: the block from 0, then one FP32 round-to-nearest add of c.
__device__ inline void step_elements(const ScaledMmParams& p, const StepOperands& s, int n, int ty,
                                     int tx, uint32_t (&c)[kPer * kPer],
                                     bool (&flag)[kPer * kPer]) {
  int max_exponent[kPer * kPer];
#pragma unroll
  for (int q = 0; q < kPer * kPer; ++q) max_exponent[q] = kNoTerm;
#pragma unroll 4
  for (int x = 0; x < n; ++x) {
    int ea[kPer], eb[kPer];
    four_exponents(&s.exponent_a[x][kPer * ty], ea);
    four_exponents(&s.exponent_b[x][kPer * tx], eb);
#pragma unroll
    for (int q = 0; q < kPer * kPer; ++q)
      max_exponent[q] = __viaddmax_s32(ea[q / kPer], eb[q % kPer], max_exponent[q]);
  }
  AlignedC aligned_c[kPer * kPer];
  int unit[kPer * kPer];
  float scale[kPer * kPer], sum[kPer * kPer];
#pragma unroll
  for (int q = 0; q < kPer * kPer; ++q) {
    aligned_c[q] = align_c(p.late_c ? 0u : c[q]);
    unit[q] = step_unit(p, max_exponent[q], aligned_c[q]);
    scale[q] = unit_scale(unit[q]);
    sum[q] = 0.0f;
  }
#pragma unroll 2
  for (int x = 0; x < n; ++x) {
    const float4 va = *reinterpret_cast<const float4*>(&s.value_a[x][kPer * ty]);
    const float4 vb = *reinterpret_cast<const float4*>(&s.value_b[x][kPer * tx]);
    const float a[kPer] = {va.x, va.y, va.z, va.w}, b[kPer] = {vb.x, vb.y, vb.z, vb.w};
#pragma unroll
    for (int q = 0; q < kPer * kPer; ++q)
      sum[q] = __fadd_rn(sum[q], truncated_term(__fmul_rn(a[q / kPer], b[q % kPer]), scale[q]));
  }
#pragma unroll
  for (int q = 0; q < kPer * kPer; ++q) {
    const uint32_t c_in = p.late_c ? 0u : c[q];
    const uint32_t block = unit[q] == kNoUnit
                               ? 0u
                               : finish_step<int>(p, __float2int_rz(sum[q]), aligned_c[q], c_in,
                                                  unit[q], FlagForHost{flag[q]});
    c[q] = p.late_c ? __float_as_uint(__fadd_rn(__uint_as_float(block), __uint_as_float(c[q])))
                    : block;
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(kSide* kSide, 1) v9_scaled_mm(ScaledMmParams p) {
  __shared__ __align__(16) StepOperands operands;
  const int tx = threadIdx.x % kSide, ty = threadIdx.x / kSide;
  const long long row0 = static_cast<long long>(blockIdx.y) * kTile,
                  col0 = static_cast<long long>(blockIdx.x) * kTile;
  bool flag[kPer * kPer];
  float partial[kPer * kPer], total[kPer * kPer];
  uint32_t c[kPer * kPer];
#pragma unroll
  for (int q = 0; q < kPer * kPer; ++q) {
    const long long i = row0 + kPer * ty + q / kPer, j = col0 + kPer * tx + q % kPer;
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
        load_step(p, operands, row0, col0, ks, n);
        __syncthreads();
        step_elements(p, operands, n, ty, tx, c, flag);
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
    const long long i = row0 + kPer * ty + q / kPer, j = col0 + kPer * tx + q % kPer;
    if (i < p.m && j < p.n) store_element(p, i, j, total[q], flag[q]);
  }
}
