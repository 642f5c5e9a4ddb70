// Exact values and the format codecs. An ExactValue is (-1)^negative * magnitude * 2^exponent with
// an integer magnitude, or an infinity, or NaN: no floating point is involved, so decoding,
// rounding and the few FP32 operations that the GEMM algorithms perform are exact by construction.
#pragma once

#include <cstdint>

#include "mmaemu/format.hpp"
#include "mmaemu/wide_uint.hpp"

namespace mmaemu {

struct ExactValue {
  enum class Kind : uint8_t { finite, infinity, nan };
  Kind kind = Kind::finite;
  bool negative = false;
  WideUint magnitude;  // finite values only
  int exponent = 0;    // of the magnitude's least significant bit

  static ExactValue zero(bool negative = false);
  static ExactValue infinity(bool negative);
  static ExactValue nan();
  static ExactValue finite(bool negative, uint64_t magnitude, int exponent) {
    ExactValue v;
    v.negative = negative;
    v.magnitude = WideUint(magnitude);
    v.exponent = exponent;
    return v;
  }
  static ExactValue from_double(double value);  // exact: every double is a dyadic rational

  bool is_finite() const { return kind == Kind::finite; }
  bool is_nan() const { return kind == Kind::nan; }
  bool is_infinity() const { return kind == Kind::infinity; }
  bool is_zero() const { return is_finite() && magnitude.is_zero(); }
  // Exponent of the leading bit, floor(log2|v|); only for finite non-zero values.
  int leading_exponent() const { return exponent + magnitude.bit_length() - 1; }
  double to_double() const;  // for display only: truncates beyond 53 bits
};

struct EncodeOptions {
  Rounding rounding = Rounding::nearest_even;
  Overflow overflow = Overflow::ieee;
  // Fraction bits kept, fewer than the format has (e.g. 13 for Hopper's e8m13 accumulator held in
  // an f32 register); -1 keeps them all. The subnormal quantum shrinks with it: 2^(emin - kept).
  int kept_fraction_bits = -1;
};

// Bits -> exact value. tf32 ignores the low 13 bits of its f32 container, as the hardware does.
ExactValue decode(Format format, uint32_t bits);
// Exact value -> bits, rounded once as the options say. NaN becomes the format's canonical NaN.
uint32_t encode(Format format, const ExactValue& value, const EncodeOptions& options = {});

// IEEE operations on exact values, each exact: the caller rounds the result with encode().
// The sign of an exact zero sum follows IEEE round-to-nearest: -0 only for (-0) + (-0).
ExactValue exact_add(const ExactValue& a, const ExactValue& b);
ExactValue exact_multiply(const ExactValue& a, const ExactValue& b);

// One IEEE binary32 operation, round-to-nearest-even, subnormals kept (no flush to zero).
uint32_t f32_add_rne(uint32_t a, uint32_t b);
uint32_t f32_multiply_rne(uint32_t a, uint32_t b);
// Converts between formats with round-to-nearest-even (or as options say).
uint32_t convert(Format from, uint32_t bits, Format to, const EncodeOptions& options = {});

}  // namespace mmaemu
