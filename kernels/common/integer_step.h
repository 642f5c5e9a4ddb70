// The preset's block step in 64-bit integers, shared by the CUDA-core modules (v1, v4): the
// alignment window, truncation toward zero and a truncated f32 result, as the fast CPU path
// computes them, with c inside the block or (late_c) added after it. Operands come through accessors, so that v1 decodes codes as it reads them and
// v4 reads operands it decoded into shared memory.
#pragma once

#include "scaled_mm_params.h"

constexpr int kNoTerm = -500;  // below every product's exponent; zeros carry -1000

// One step over n decoded operand pairs a(0..n), b(0..n) from the accumulator c (f32 bits):
// the 64-bit integer form of the preset's step (the fast CPU path's, lib/src/cpu/fast_gemm.cpp).
// `flag` asks the host to finish results the exact encoder must make (subnormal or overflowing).
template <class OperandA, class OperandB>
__device__ inline uint32_t integer_step(const ScaledMmParams& p, OperandA a_at, OperandB b_at, int n, uint32_t c,
                                        bool& flag) {
  int max_exponent = kNoTerm;
  for (int i = 0; i < n; ++i) max_exponent = max(max_exponent, a_at(i).exponent + b_at(i).exponent);
  const uint32_t c_field = c & 0x7FFFFFFFu;
  long long c_significand = 0;
  int c_exponent = 0;
  if (c_field != 0) {
    const int biased = static_cast<int>(c_field >> 23);
    c_significand = biased ? (c_field & 0x7FFFFF) | 0x800000 : c_field;
    c_exponent = biased ? biased - 127 : -126;
    max_exponent = max(max_exponent, c_exponent);
  }
  if (max_exponent <= kNoTerm) return 0;
  max_exponent = max(max_exponent, p.exponent_floor);
  const int unit = max_exponent - p.alignment_bits;
  const int left = p.alignment_bits - p.product_fraction_bits;
  const int right_base = left + p.product_fraction_bits + unit;
  long long sum = 0;
  for (int i = 0; i < n; ++i) {
    const DecodedOperand a = a_at(i), b = b_at(i);
    const int32_t prod = int32_t{a.significand} * b.significand;
    const int32_t sign = prod >> 31;
    const unsigned long long magnitude = static_cast<uint32_t>((prod ^ sign) - sign);
    const int right = min(right_base - (a.exponent + b.exponent), 63);
    const long long t = static_cast<long long>((magnitude << left) >> right);
    sum += (t ^ sign) - sign;
  }
  if (c_significand != 0) {
    const int shift = c_exponent - 23 - unit;
    const unsigned long long t =
        shift >= 0 ? static_cast<unsigned long long>(c_significand) << shift
                   : (shift > -64 ? static_cast<unsigned long long>(c_significand) >> -shift : 0ull);
    sum += (c >> 31) ? -static_cast<long long>(t) : static_cast<long long>(t);
  }
  if (sum == 0) return 0;
  const bool negative = sum < 0;
  unsigned long long magnitude = static_cast<unsigned long long>(negative ? -sum : sum);
  const int top = 63 - __clzll(static_cast<long long>(magnitude));
  const int leading = unit + top;
  if (leading < -126 || leading > 127) {  // the exact encoder's cases: the host finishes them
    flag = true;
    return 0;
  }
  magnitude = top > p.result_bits ? magnitude >> (top - p.result_bits) : magnitude << (p.result_bits - top);
  const uint32_t fraction = static_cast<uint32_t>(magnitude - (1ull << p.result_bits)) << (23 - p.result_bits);
  return (negative ? 0x80000000u : 0u) | static_cast<uint32_t>(leading + 127) << 23 | fraction;
}

// One step as the preset enters c: inside the block (integer_step from c), or late: the block from
// c = 0, then one FP32 round-to-nearest add (IEEE's, as the oracle's exact add then encode is).
template <class OperandA, class OperandB>
__device__ inline uint32_t block_step(const ScaledMmParams& p, OperandA a_at, OperandB b_at, int n, uint32_t c,
                                      bool& flag) {
  if (!p.late_c) return integer_step(p, a_at, b_at, n, c, flag);
  const uint32_t block = integer_step(p, a_at, b_at, n, 0u, flag);
  return __float_as_uint(__fadd_rn(__uint_as_float(block), __uint_as_float(c)));
}
