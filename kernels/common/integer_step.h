// The preset's block step in 64-bit integers, one source for the GPU's CUDA-core modules (v1, v4)
// and the fast CPU path (lib/src/cpu/fast_gemm.cpp): the alignment window, truncation toward zero
// and a truncated f32 result, with c inside the block or (late_c) added after it. Operands come
// through accessors, so that v1 decodes codes as it reads them, v4 reads operands it decoded into
// shared memory and the CPU reads its decoded rows.
#pragma once

#include "f32_bits.h"
#include "scaled_mm_params.h"

constexpr int kNoTerm = -500;  // below every product's exponent; zeros carry -1000

// The unsigned type of a step's sum type (no <type_traits> on NVRTC).
template <class Sum>
struct MagnitudeOf;
template <>
struct MagnitudeOf<long long> {
  using type = unsigned long long;
};
template <>
struct MagnitudeOf<int> {
  using type = unsigned int;
};

// Whether a step's terms and their sum fit an int: each term is below 2^(alignment_bits + 2)
// (a product of two significands of at most fraction_bits + 1 bits each, shifted left to
// alignment_bits - product_fraction_bits), c's aligned significand below 2^(alignment_bits + 1),
// and `terms` of them plus c below 2^31.
MMAEMU_HD_INLINE bool narrow_sum_fits(int alignment_bits, int terms) {
  long long bound = (static_cast<long long>(terms) + 1) << (alignment_bits + 2);
  return alignment_bits >= 0 && alignment_bits <= 28 && terms <= 64 && bound < (1ll << 31);
}

// One step over n decoded operand pairs a(0..n), b(0..n) from the accumulator c (f32 bits, finite).
// Model: the step's parameters (terms, alignment_bits, product_fraction_bits, result_bits,
// exponent_floor, late_c): ScaledMmParams on the GPU, the CPU's StepModel. Results the exact
// encoder must make (subnormal or overflowing) are exact(negative, magnitude, unit)'s: the GPU
// flags them for the host, the host encodes them.
// Sum: the products' sum, long long; int where every term and their sum fit 31 bits (the CPU's
// narrow lanes: narrow_sum_fits), twice the lanes per vector for the same bits.
template <class Sum = long long, class Model, class OperandA, class OperandB, class Exact>
MMAEMU_HD_INLINE uint32_t integer_step(const Model& p, OperandA a_at, OperandB b_at, int n,
                                       uint32_t c, Exact exact) {
  int max_exponent = kNoTerm;
  for (int i = 0; i < n; ++i) {
    const int e = a_at(i).exponent + b_at(i).exponent;
    max_exponent = e > max_exponent ? e : max_exponent;
  }
  const uint32_t c_field = c & 0x7FFFFFFFu;
  long long c_significand = 0;
  int c_exponent = 0;
  if (c_field != 0) {
    const int biased = static_cast<int>(c_field >> 23);
    c_significand = biased ? (c_field & 0x7FFFFF) | 0x800000 : c_field;
    c_exponent = biased ? biased - 127 : -126;
    max_exponent = c_exponent > max_exponent ? c_exponent : max_exponent;
  }
  if (max_exponent <= kNoTerm) return 0;
  max_exponent = p.exponent_floor > max_exponent ? p.exponent_floor : max_exponent;
  const int unit = max_exponent - p.alignment_bits;  // the weight of one unit of the sum
  // A product term is |p| * 2^(e_a + e_b - product_fraction_bits - unit), and that exponent is at
  // most alignment_bits - product_fraction_bits: shift left by that, then right by the rest.
  const int left = p.alignment_bits - p.product_fraction_bits;
  const int right_base = left + p.product_fraction_bits + unit;  // right = right_base - (e_a + e_b)
  using Magnitude = typename MagnitudeOf<Sum>::type;
  constexpr int kMaxShift = 8 * static_cast<int>(sizeof(Sum)) - 1;
  Sum sum = 0;
  for (int i = 0; i < n; ++i) {
    const auto a = a_at(i);
    const auto b = b_at(i);
    const int32_t prod = int32_t{a.significand} * b.significand;
    const int32_t sign = prod >> 31;  // 0 or -1
    const Magnitude magnitude = static_cast<uint32_t>((prod ^ sign) - sign);
    const int shift = right_base - (a.exponent + b.exponent);
    const int right = shift < kMaxShift ? shift : kMaxShift;
    const Sum t = static_cast<Sum>((magnitude << left) >> right);
    sum += (t ^ sign) - sign;
  }
  if (c_significand != 0) {
    const int shift = c_exponent - 23 - unit;
    const unsigned long long t =
        shift >= 0
            ? static_cast<unsigned long long>(c_significand) << shift
            : (shift > -64 ? static_cast<unsigned long long>(c_significand) >> -shift : 0ull);
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

// One step as the preset enters c: inside the block (integer_step from c), or late: the block from
// c = 0, then one FP32 round-to-nearest add (IEEE's, as the oracle's exact add then encode is).
template <class Sum = long long, class Model, class OperandA, class OperandB, class Exact>
MMAEMU_HD_INLINE uint32_t block_step(const Model& p, OperandA a_at, OperandB b_at, int n,
                                     uint32_t c, Exact exact) {
  if (!p.late_c) return integer_step<Sum>(p, a_at, b_at, n, c, exact);
  const uint32_t block = integer_step<Sum>(p, a_at, b_at, n, 0u, exact);
  return bits_of_float(add_f32_rn(float_from_bits(block), float_from_bits(c)));
}

// The GPU's exact(): flag the element, which the host then finishes.
struct FlagForHost {
  bool& flag;
  MMAEMU_HD_INLINE uint32_t operator()(bool, unsigned long long, int) const {
    flag = true;
    return 0;
  }
};
