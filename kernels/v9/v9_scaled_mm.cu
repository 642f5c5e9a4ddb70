// v9: v4's successor (issue 15), the same step with fewer instructions per emulated product, for
// the presets whose terms fit FP32 exactly (float_sum_fits, which the launcher's choice checks: the
// Hopper FP8 step, 32 terms in a 13-bit window, does; v4 takes the others).
// - The terms are made and summed in FP32 (common/float_terms.h: a multiply, a fused multiply-add
//   rounded toward zero, a subtract, a logic operation and an add per term), not in 32- or 64-bit
//   integers; the largest exponent is one add-and-max per term (__viaddmax_s32), and on sm_90 one
//   per two terms (__viaddmax_s16x2 over two rows' int16 exponents, one DPX instruction).
// - Register blocking: a thread's 4 x 4 outputs are rows 4ty.. and columns 4tx.., and the step's
//   operands sit in shared memory term-major, so one 8-byte load gives a thread four exponents and
//   one 16-byte load four values: 16 products from 4 + 4 loads (v4 loads two operands a product).
// A block of 16 x 16 threads computes 64 x 64 outputs. For each step the block decodes the step's
// 64 rows of A and of B once into shared memory (exponents as int16, values as FP32: 48 KiB for
// the widest step, 64 terms); the codes of the next step are loaded from global memory in 16-byte
// chunks into registers while this one is computed. Promotion, split-K and the epilogue are v4's,
// in the same order; flagged elements (rows with NaN/Inf codes, results the exact encoder must
// make) go to the host's oracle. Built with -fmad=false, every FP32 operation an explicit
// intrinsic; no CUDA header.
#include "epilogue.h"
#include "float_terms.h"
#include "k_slices.h"
#include "scaled_mm_params.h"
#include "special_elements.h"
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

// A step's codes travel in 16-byte chunks: (operand, row, chunk of 16 terms), rows fastest, so
// that a warp's shared-memory stores at decode hit 32 neighbouring rows of one term. Up to 64
// terms: 2 x 64 x 4 chunks, two per thread.
constexpr int kChunksPerThread = 2 * kTile * (kMaxTerms / 16) / (kSide * kSide);

struct StepCodes {
  uint4 chunk[kChunksPerThread];
  bool row_in[kChunksPerThread];  // the chunk's row lies inside the matrix
};

// Loads the thread's chunks of the step's n codes (K from ks) from global memory into registers,
// to be decoded after the step before it is computed: the loads are in flight during that step.
// 16-byte loads where the address allows, else byte by byte; codes past n are not read.
__device__ inline void fetch_step(const ScaledMmParams& p, StepCodes& codes, long long row0,
                                  long long col0, long long ks, int n) {
  const int chunks = (n + 15) / 16;
#pragma unroll
  for (int q = 0; q < kChunksPerThread; ++q) {
    const int id = threadIdx.x + q * kSide * kSide;
    codes.chunk[q] = make_uint4(0, 0, 0, 0);
    codes.row_in[q] = false;
    if (id >= 2 * kTile * chunks) continue;
    const int operand = id / (kTile * chunks), c = id / kTile % chunks, r = id % kTile;
    const long long row = (operand == 0 ? row0 : col0) + r;
    if (row >= (operand == 0 ? p.m : p.n)) continue;
    codes.row_in[q] = true;
    const uint8_t* src = (operand == 0 ? p.a : p.b) + row * p.k + ks + 16 * c;
    if ((reinterpret_cast<unsigned long long>(src) & 15) == 0 && ks + 16 * c + 16 <= p.k) {
      codes.chunk[q] = *reinterpret_cast<const uint4*>(src);
    } else {
      uint32_t word[4] = {0, 0, 0, 0};
#pragma unroll
      for (int x = 0; x < 16; ++x)
        if (16 * c + x < n) word[x / 4] |= uint32_t{src[x]} << 8 * (x % 4);
      codes.chunk[q] = make_uint4(word[0], word[1], word[2], word[3]);
    }
  }
}

// Decodes the fetched chunks into the step's shared operands (exponents, values); rows past the
// matrix hold zeros; terms past n are left as they are (the step reads only n).
__device__ inline void decode_step(const ScaledMmParams& p, const StepCodes& codes, StepOperands& s,
                                   int n) {
  const int chunks = (n + 15) / 16;
  const DecodedOperand zero = {0, -1000};
#pragma unroll
  for (int q = 0; q < kChunksPerThread; ++q) {
    const int id = threadIdx.x + q * kSide * kSide;
    if (id >= 2 * kTile * chunks) continue;
    const int operand = id / (kTile * chunks), c = id / kTile % chunks, r = id % kTile;
    const uint32_t word[4] = {codes.chunk[q].x, codes.chunk[q].y, codes.chunk[q].z,
                              codes.chunk[q].w};
#pragma unroll
    for (int x = 0; x < 16; ++x) {
      const int term = 16 * c + x;
      if (term >= n) continue;
      const uint8_t code = static_cast<uint8_t>(word[x / 4] >> 8 * (x % 4));
      if (operand == 0) {
        const DecodedOperand d = codes.row_in[q] ? p.table_a[code] : zero;
        s.exponent_a[term][r] = d.exponent;
        s.value_a[term][r] = operand_value(d, p.product_fraction_bits);  // A carries both
      } else {
        const DecodedOperand d = codes.row_in[q] ? p.table_b[code] : zero;
        s.exponent_b[term][r] = d.exponent;
        s.value_b[term][r] = operand_value(d, 0);
      }
    }
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
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // sm_90 adds and takes the maximum of two int16 lanes in one instruction: rows 2h and 2h + 1
  // of column c share a word (the exponents fit int16: -2000 for two zeros, kNoTerm -500).
  constexpr uint32_t kNoTermPair = (static_cast<uint32_t>(kNoTerm) & 0xFFFFu) * 0x10001u;
  uint32_t pair_max[kPer / 2][kPer];
#pragma unroll
  for (int h = 0; h < kPer / 2; ++h)
#pragma unroll
    for (int c = 0; c < kPer; ++c) pair_max[h][c] = kNoTermPair;
#pragma unroll 4
  for (int x = 0; x < n; ++x) {
    const uint2 wa = *reinterpret_cast<const uint2*>(&s.exponent_a[x][kPer * ty]);
    const uint2 wb = *reinterpret_cast<const uint2*>(&s.exponent_b[x][kPer * tx]);
    const uint32_t rows[kPer / 2] = {wa.x, wa.y};
    const uint32_t column[kPer] = {__byte_perm(wb.x, 0, 0x1010), __byte_perm(wb.x, 0, 0x3232),
                                   __byte_perm(wb.y, 0, 0x1010), __byte_perm(wb.y, 0, 0x3232)};
#pragma unroll
    for (int h = 0; h < kPer / 2; ++h)
#pragma unroll
      for (int c = 0; c < kPer; ++c)
        pair_max[h][c] = __viaddmax_s16x2(rows[h], column[c], pair_max[h][c]);
  }
#pragma unroll
  for (int q = 0; q < kPer * kPer; ++q) {
    const uint32_t pair = pair_max[q / kPer / 2][q % kPer];
    max_exponent[q] = static_cast<int16_t>(q / kPer % 2 ? pair >> 16 : pair & 0xFFFFu);
  }
#else
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
#endif
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
                               : finish_narrow_step(p, __float2int_rz(sum[q]), aligned_c[q], c_in,
                                                    unit[q], FlagForHost{flag[q]});
    c[q] = p.late_c ? __float_as_uint(__fadd_rn(__uint_as_float(block), __uint_as_float(c[q])))
                    : block;
  }
}

// The terms of the step at ks in the promotion block that starts at `start` (a step ends at its
// block's end and at the slice's, `end`); 0 where the block starts at or past `end`.
__device__ inline int step_terms(const ScaledMmParams& p, long long start, long long block,
                                 long long end, long long ks) {
  return start < end
             ? static_cast<int>(min(static_cast<long long>(p.terms), min(start + block, end) - ks))
             : 0;
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
  StepCodes codes;
  for (int s = 0; s < p.split_k; ++s) {
    long long begin, end;
    k_slice(p, s, begin, end);
    // A single chain is one block over the whole slice; an empty slice sums to +0.
    const long long block =
        p.single_chain ? max(end - begin, 1ll) : static_cast<long long>(p.promotion_interval);
#pragma unroll
    for (int q = 0; q < kPer * kPer; ++q) partial[q] = 0.0f;
    // The slice's steps, blocks of `block` elements of K cut into steps of p.terms, one after
    // the other: the next step's codes are fetched while this one is computed.
    long long start = begin, ks = begin;
    int n = step_terms(p, start, block, end, ks);
    if (n > 0) fetch_step(p, codes, row0, col0, ks, n);
    while (n > 0) {
      const long long stop = min(start + block, end);
      if (ks == start) {
#pragma unroll
        for (int q = 0; q < kPer * kPer; ++q) c[q] = 0;
      }
      __syncthreads();  // every thread is done with the previous step's operands
      decode_step(p, codes, operands, n);
      __syncthreads();
      const bool block_ends = ks + p.terms >= stop;
      const long long next_start = block_ends ? start + block : start,
                      next_ks = block_ends ? next_start : ks + p.terms;
      const int next_n = step_terms(p, next_start, block, end, next_ks);
      if (next_n > 0) fetch_step(p, codes, row0, col0, next_ks, next_n);
      step_elements(p, operands, n, ty, tx, c, flag);
      if (block_ends) {
#pragma unroll
        for (int q = 0; q < kPer * kPer; ++q)
          partial[q] =
              p.single_chain ? __uint_as_float(c[q]) : __fadd_rn(partial[q], __uint_as_float(c[q]));
      }
      start = next_start, ks = next_ks, n = next_n;
    }
#pragma unroll
    for (int q = 0; q < kPer * kPer; ++q)
      total[q] = s == 0 ? partial[q] : __fadd_rn(total[q], partial[q]);
  }
  const float alpha = tensorwise_alpha(p);
#pragma unroll
  for (int q = 0; q < kPer * kPer; ++q) {
    const long long i = row0 + kPer * ty + q / kPer, j = col0 + kPer * tx + q % kPer;
    if (i < p.m && j < p.n) store_element(p, alpha, i, j, total[q], flag[q]);
  }
}
