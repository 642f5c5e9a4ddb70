// The step's product terms in FP32 instead of integers (v9, issue 15): integer_step's term x is
// the exact product P_x of the two operands in units of 2^unit, truncated toward zero,
//   t_x = trunc(P_x * 2^-unit)   (the integer (|s_a s_b| << left) >> right, the same number),
// and FP32 holds it exactly: P_x is a product of two FP8 values (at most 8 significant bits, its
// exponent far inside FP32's range), one fused multiply-add rounded toward zero onto 2^23 leaves
// trunc(P_x 2^-unit) in the low bits while |P_x 2^-unit| < 2^23, and the sum of the terms stays an
// integer below 2^24 (float_sum_fits). A GPU issues FP32 multiply-adds at twice its 32-bit integer
// rate and needs no shifts, sign masks or clamps for them: five instructions a term, not ten.
// The largest exponent, the unit, c and the result are integer_step's (step_max_exponent,
// step_unit, finish_step below).
#pragma once

#include "integer_step.h"

// integer_step's pieces around its term loop, as functions: the largest term exponent, c aligned,
// the unit, and the sum made a result. integer_step keeps them inline, written the same, so that
// v4's kernels (validated on GPUs) compile as before; the test "v9's FP32 terms step equals the
// kernels' integer step" (tests/unit/fast_path_test.cpp) holds the two equal. One source once v9
// replaces v4 (issue 15).

// The running maximum of the terms' exponents, with the pair (a, b) taken in.
template <class OperandA, class OperandB>
MMAEMU_HD_INLINE int step_max_exponent(const OperandA& a, const OperandB& b, int max_exponent) {
  const int e = a.exponent + b.exponent;
  return e > max_exponent ? e : max_exponent;
}

// c (f32 bits, finite) as a significand and the exponent of its unit bit (0 and 0 for a zero).
struct AlignedC {
  long long significand;
  int exponent;
};

MMAEMU_HD_INLINE AlignedC align_c(uint32_t c) {
  const uint32_t c_field = c & 0x7FFFFFFFu;
  AlignedC aligned{0, 0};
  if (c_field != 0) {
    const int biased = static_cast<int>(c_field >> 23);
    aligned.significand = biased ? (c_field & 0x7FFFFF) | 0x800000 : c_field;
    aligned.exponent = biased ? biased - 127 : -126;
  }
  return aligned;
}

constexpr int kNoUnit = -(1 << 30);  // step_unit's answer for a step without terms and c = 0

// The weight of one unit of the step's sum, from the terms' largest exponent, c and the floor;
// kNoUnit where there is no term and c is 0 (the step's result is then +0).
template <class Model>
MMAEMU_HD_INLINE int step_unit(const Model& p, int max_exponent, const AlignedC& c) {
  if (c.significand != 0) max_exponent = c.exponent > max_exponent ? c.exponent : max_exponent;
  if (max_exponent <= kNoTerm) return kNoUnit;
  max_exponent = p.exponent_floor > max_exponent ? p.exponent_floor : max_exponent;
  return max_exponent - p.alignment_bits;
}

// The terms' sum with c added (truncated to the unit), made the step's f32 result: truncated to
// result_bits, or exact()'s where it is subnormal or overflows.
template <class Sum, class Model, class Exact>
MMAEMU_HD_INLINE uint32_t finish_step(const Model& p, Sum sum, const AlignedC& aligned_c,
                                      uint32_t c, int unit, Exact exact) {
  if (aligned_c.significand != 0) {
    const int shift = aligned_c.exponent - 23 - unit;
    const unsigned long long t =
        shift >= 0 ? static_cast<unsigned long long>(aligned_c.significand) << shift
                   : (shift > -64 ? static_cast<unsigned long long>(aligned_c.significand) >> -shift
                                  : 0ull);
    sum += static_cast<Sum>((c >> 31) ? -static_cast<long long>(t) : static_cast<long long>(t));
  }
  if (sum == 0) return 0;
  const bool negative = sum < 0;
  const long long wide_sum = sum;
  unsigned long long magnitude = static_cast<unsigned long long>(negative ? -wide_sum : wide_sum);
  const int top = 63 - leading_zeros64(magnitude);
  const int leading = unit + top;
  if (leading < -126 || leading > 127) return exact(negative, magnitude, unit);
  magnitude =
      top > p.result_bits ? magnitude >> (top - p.result_bits) : magnitude << (p.result_bits - top);
  const uint32_t fraction = static_cast<uint32_t>(magnitude - (1ull << p.result_bits))
                            << (23 - p.result_bits);
  return (negative ? 0x80000000u : 0u) | static_cast<uint32_t>(leading + 127) << 23 | fraction;
}

// finish_step for the presets float_sum_fits admits, in 32-bit integers (v9 runs it once per
// element and step): there the unit is at least c's exponent less alignment_bits (<= 21), so c
// truncated to the unit only moves right (below 2^22) and the sum with it stays below 2^25. The
// same result as finish_step there: float_terms_step uses it, and tests/unit/fast_path_test.cpp
// holds float_terms_step equal to the integer step.
template <class Model, class Exact>
MMAEMU_HD_INLINE uint32_t finish_narrow_step(const Model& p, int sum, const AlignedC& aligned_c,
                                             uint32_t c, int unit, Exact exact) {
  if (aligned_c.significand != 0) {
    const int shift = unit + 23 - aligned_c.exponent;  // at least 23 - alignment_bits >= 2
    const int t =
        shift < 31 ? static_cast<int>(static_cast<uint32_t>(aligned_c.significand) >> shift) : 0;
    sum += (c >> 31) ? -t : t;
  }
  if (sum == 0) return 0;
  const bool negative = sum < 0;
  const uint32_t magnitude = static_cast<uint32_t>(negative ? -sum : sum);
  const int top = 31 - leading_zeros32(magnitude);
  const int leading = unit + top;
  if (leading < -126 || leading > 127) return exact(negative, magnitude, unit);
  const uint32_t normal =
      top > p.result_bits ? magnitude >> (top - p.result_bits) : magnitude << (p.result_bits - top);
  const uint32_t fraction = (normal - (1u << p.result_bits)) << (23 - p.result_bits);
  return (negative ? 0x80000000u : 0u) | static_cast<uint32_t>(leading + 127) << 23 | fraction;
}

// Whether float_terms_step is exact for a preset: every term below 2^(alignment_bits + 2) <= 2^23,
// `terms` of them below 2^24, and the sum with c in an int (narrow_sum_fits).
MMAEMU_HD_INLINE bool float_sum_fits(int alignment_bits, int terms) {
  return narrow_sum_fits(alignment_bits, terms) && alignment_bits <= 21 &&
         (static_cast<long long>(terms) << (alignment_bits + 2)) <= (1ll << 24);
}

// An operand's value as FP32, 2^-fraction_bits of its significand's unit in (the A operand takes
// both operands' fraction bits, so that the product of the two values is P exactly): 0 for zeros.
template <class Operand>
MMAEMU_HD_INLINE float operand_value(const Operand& d, int fraction_bits) {
  if (d.significand == 0) return 0.0f;
  const float power =
      float_from_bits(static_cast<unsigned>(d.exponent - fraction_bits + 127) << 23);
  return static_cast<float>(d.significand) * power;  // at most 11 bits: exact
}

// 2^-unit as FP32. A unit below -100 means no product term (every product's exponent is above
// -40): the scale is then held at 2^100, which keeps 0 x scale = 0 and every term 0.
MMAEMU_HD_INLINE float unit_scale(int unit) {
  const int e = unit < -100 ? 100 : -unit;
  return float_from_bits(static_cast<unsigned>(e + 127) << 23);
}

// trunc(product * scale) for |product * scale| < 2^23, exactly: on the GPU |product| x scale is
// added to 2^23 rounding toward zero (its floor then sits in the low bits; the absolute value is
// a free operand modifier), 2^23 taken off, and product's sign put back: four instructions with
// the multiply, one logic operation where a sign-matched 2^23 took two. Its sign on a zero term
// (-0) changes no sum: the sums start at +0 and add integers in round-to-nearest.
MMAEMU_HD_INLINE float truncated_term(float product, float scale) {
#if defined(__CUDA_ARCH__)
  const float magnitude = __fsub_rn(__fmaf_rz(fabsf(product), scale, 8388608.0f), 8388608.0f);
  return __uint_as_float(__float_as_uint(magnitude) | (__float_as_uint(product) & 0x80000000u));
#else
  // The same number: product * scale is exact in double (24 x 24 bits).
  return static_cast<float>(__builtin_trunc(static_cast<double>(product) * scale));
#endif
}

MMAEMU_HD_INLINE float multiply_f32_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

// integer_step<int> with the terms made and summed in FP32, one element: the reference the v9
// kernel's register-blocked loop follows (and that tests compare with integer_step).
template <class Model, class OperandA, class OperandB, class Exact>
MMAEMU_HD_INLINE uint32_t float_terms_step(const Model& p, OperandA a_at, OperandB b_at, int n,
                                           uint32_t c, Exact exact) {
  int max_exponent = kNoTerm;
  for (int i = 0; i < n; ++i) max_exponent = step_max_exponent(a_at(i), b_at(i), max_exponent);
  const AlignedC aligned_c = align_c(c);
  const int unit = step_unit(p, max_exponent, aligned_c);
  if (unit == kNoUnit) return 0;
  const float scale = unit_scale(unit);
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    const float product =
        multiply_f32_rn(operand_value(a_at(i), p.product_fraction_bits), operand_value(b_at(i), 0));
    sum = add_f32_rn(sum, truncated_term(product, scale));  // integers below 2^24: exact
  }
  return finish_narrow_step(p, static_cast<int>(sum), aligned_c, c, unit, exact);
}
