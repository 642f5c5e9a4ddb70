// The block step of kernels/common/integer_step.h for kLanes output elements at once: one row of A
// against kLanes columns of B, each lane one element's chain, so that the step needs no horizontal
// reduction (the largest exponent and the sum are per lane). Written with GCC's vector extensions
// so that it vectorises the same way on every target the caller is compiled for (no vector
// comparison or `?:`: beyond the target's vector width GCC makes those scalar, while it splits
// arithmetic, shifts, min and max into native vectors); 32-bit lanes, for the models whose sums
// fit an int (narrow_sum_fits). It is integer_step<int>'s arithmetic lane by
// lane, with one exception it leaves to the caller: a result the exact encoder must make (subnormal
// or overflowing) comes back as a flagged lane. fast_path_test checks the fast path, which runs
// every narrow call through these lanes, against the oracle.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/integer_step.h"

// The lane types are 64 bytes wide; GCC notes that passing them would change the ABI without
// AVX-512, but every function here is inlined into its caller (the clones keep one ABI:
// fast_gemm.cpp).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace mmaemu {

constexpr int kLanes = 16;

using LaneInt = int32_t __attribute__((vector_size(4 * kLanes)));
using LaneUint = uint32_t __attribute__((vector_size(4 * kLanes)));
using LaneFloat = float __attribute__((vector_size(4 * kLanes)));

// kLanes columns of B as a panel: element (t, lane) of K index t at [t * kLanes + lane], each
// operand's exponent and significand packed into one int32 (exponent << 16 | significand as 16
// bits), so that one load serves both: measured faster than two arrays of int16 (whose widening
// costs more than the shifts) at the same memory; two arrays of int32 are faster still but double
// it.
struct LanePanel {
  const int32_t* packed;
};

[[gnu::always_inline]] inline int32_t pack_operand(int16_t significand, int16_t exponent) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint16_t>(exponent)) << 16 |
                              static_cast<uint16_t>(significand));
}

[[gnu::always_inline]] inline LaneInt load_lanes(const int32_t* p) {
  LaneInt v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

[[gnu::always_inline]] inline LaneInt lane_min(LaneInt a, LaneInt b) {
  return a < b ? a : b;
}
[[gnu::always_inline]] inline LaneInt lane_max(LaneInt a, LaneInt b) {
  return a > b ? a : b;
}

// The step of n operand pairs: A's (a_significand, a_exponent)[0..n) broadcast against the panel's
// rows 0..n, from c (f32 bits per lane). Lanes whose result the exact encoder must make are set
// (-1) in `exact` and hold 0; the caller recomputes them with the scalar step.
template <class Model>
[[gnu::always_inline]] inline LaneUint integer_step_lanes(const Model& p,
                                                          const int16_t* a_significand,
                                                          const int16_t* a_exponent, LanePanel b,
                                                          int n, LaneUint c, LaneInt& exact) {
  // Four running maxima and sums, so that the loops are not one chain of dependent operations
  // (integer max and sum are associative: the same bits in any order).
  const auto exponent_at = [&](int i) {
    return (load_lanes(b.packed + i * kLanes) >> 16) + a_exponent[i];
  };
  LaneInt m0 = LaneInt{} + kNoTerm, m1 = m0, m2 = m0, m3 = m0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    m0 = lane_max(m0, exponent_at(i));
    m1 = lane_max(m1, exponent_at(i + 1));
    m2 = lane_max(m2, exponent_at(i + 2));
    m3 = lane_max(m3, exponent_at(i + 3));
  }
  for (; i < n; ++i) m0 = lane_max(m0, exponent_at(i));
  LaneInt max_exponent = lane_max(lane_max(m0, m1), lane_max(m2, m3));
  const LaneUint c_field = c & 0x7FFFFFFFu;
  const LaneInt biased = (LaneInt)(c_field >> 23);
  const LaneInt normal = -biased >> 31;           // -1 where c is normal
  const LaneInt has_c = -(LaneInt)c_field >> 31;  // -1 where c is not zero
  const LaneInt c_significand = ((LaneInt)c_field & 0x7FFFFF) | (normal & 0x800000);
  const LaneInt c_exponent = ((biased - 127) & normal) | ((LaneInt{} - 126) & ~normal);
  max_exponent = lane_max(max_exponent, (c_exponent & has_c) | ((LaneInt{} + kNoTerm) & ~has_c));
  // A lane without a term and with c = 0 sums to 0, as integer_step's early return gives.
  max_exponent = lane_max(max_exponent, LaneInt{} + p.exponent_floor);
  const LaneInt unit = max_exponent - p.alignment_bits;
  const int left = p.alignment_bits - p.product_fraction_bits;
  // A term's right shift: integer_step's right_base (= the largest exponent) - (e_a + e_b), at
  // least 0, at most 31 (every magnitude << left is below 2^31, so 31 leaves 0).
  const auto add_term = [&](int i, LaneInt& sum) {
    const LaneInt product = ((load_lanes(b.packed + i * kLanes) << 16) >> 16) * a_significand[i];
    const LaneInt sign = product >> 31;  // 0 or -1
    const LaneUint magnitude = (LaneUint)((product ^ sign) - sign);
    const LaneInt right = lane_min(max_exponent - exponent_at(i), LaneInt{} + 31);
    const LaneInt t = (LaneInt)((magnitude << left) >> (LaneUint)right);
    sum += (t ^ sign) - sign;
  };
  LaneInt s0{}, s1{}, s2{}, s3{};
  for (i = 0; i + 4 <= n; i += 4) {
    add_term(i, s0);
    add_term(i + 1, s1);
    add_term(i + 2, s2);
    add_term(i + 3, s3);
  }
  for (; i < n; ++i) add_term(i, s0);
  LaneInt sum = (s0 + s1) + (s2 + s3);
  {  // c, aligned to the unit (left where the window reaches above c's 24 bits, else right)
    const LaneInt shift = c_exponent - 23 - unit;
    const LaneInt c_left = lane_max(shift, LaneInt{});
    const LaneInt c_right = lane_max(lane_min(-shift, LaneInt{} + 31), LaneInt{});
    const LaneInt t = (LaneInt)(((LaneUint)c_significand << (LaneUint)c_left) >> (LaneUint)c_right);
    const LaneInt sign = -(LaneInt)(c >> 31);  // 0 or -1
    sum += (t ^ sign) - sign;
  }
  const LaneInt zero = ~((sum | -sum) >> 31);  // -1 where the sum is 0 (|sum| < 2^31)
  const LaneInt negative = sum >> 31;
  const LaneInt magnitude_signed = ((sum ^ negative) - negative) | (zero & 1);  // 1 for a 0
  const LaneUint magnitude = (LaneUint)magnitude_signed;
  // The leading bit's position: the exponent of the magnitude as a float, less one where rounding
  // to the float carried into the next power of two.
  const LaneFloat as_float = __builtin_convertvector(magnitude_signed, LaneFloat);
  LaneInt top = (((LaneInt)as_float >> 23) & 0xFF) - 127;
  top += (LaneInt)(magnitude >> (LaneUint)top) - 1;  // the shift leaves 1, or 0 where it carried
  const LaneInt leading = unit + top;
  exact = ~zero & (((leading + 126) | (127 - leading)) >> 31);  // leading < -126 or > 127
  const LaneInt down = lane_max(top - p.result_bits, LaneInt{});
  const LaneInt up = lane_max(p.result_bits - top, LaneInt{});
  const LaneUint normalised = (magnitude >> (LaneUint)down) << (LaneUint)up;
  const LaneUint fraction = (normalised - (1u << p.result_bits)) << (23 - p.result_bits);
  const LaneUint bits = ((LaneUint)negative & 0x80000000u) |
                        ((LaneUint)(leading + 127) & 0xFFu) << 23 | (fraction & 0x7FFFFFu);
  return bits & ~(LaneUint)(zero | exact);
}

// One step as the preset enters c (block_step's lanes): inside the block, or late: the block from
// c = 0, then one FP32 round-to-nearest add per lane. The lanes go in and out by reference: clang
// refuses a 64-byte vector argument or result in a caller compiled for AVX2 without AVX-512 (the
// avx2 clone of fast_gemm.cpp), even where the callee is inlined.
template <class Model>
[[gnu::always_inline]] inline void block_step_lanes(const Model& p, const int16_t* a_significand,
                                                    const int16_t* a_exponent, LanePanel b, int n,
                                                    const LaneUint& c, LaneUint& result,
                                                    LaneInt& exact) {
  if (!p.late_c) {
    result = integer_step_lanes(p, a_significand, a_exponent, b, n, c, exact);
    return;
  }
  const LaneUint block = integer_step_lanes(p, a_significand, a_exponent, b, n, LaneUint{}, exact);
  result = (LaneUint)((LaneFloat)block + (LaneFloat)c);
}

}  // namespace mmaemu
