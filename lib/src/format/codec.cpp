// Decoding and encoding driven by FormatDesc, and the exact IEEE add and multiply.
#include <algorithm>

#include "mmaemu/exact.hpp"

namespace mmaemu {

ExactValue decode(Format format, uint32_t bits) {
  const FormatDesc& d = describe(format);
  const bool negative = (bits & d.sign_mask()) != 0;
  const int ignored = d.container_fraction_bits - d.fraction_bits;
  const uint32_t field = bits & ((uint32_t{1} << d.container_fraction_bits) - 1);
  const uint64_t fraction = field >> ignored;
  const int biased =
      static_cast<int>((bits >> d.container_fraction_bits) & ((1u << d.exponent_bits) - 1));
  const int all_ones = (1 << d.exponent_bits) - 1;
  const uint64_t fraction_all_ones = (uint64_t{1} << d.fraction_bits) - 1;
  if (biased == all_ones) {
    if (d.specials == SpecialEncoding::ieee)
      return fraction == 0 ? ExactValue::infinity(negative) : ExactValue::nan();
    if (fraction == fraction_all_ones) return ExactValue::nan();
  }
  if (biased == 0)
    return ExactValue::finite(negative, fraction, d.min_exponent() - d.fraction_bits);
  return ExactValue::finite(negative, fraction | (uint64_t{1} << d.fraction_bits),
                            biased - d.bias - d.fraction_bits);
}

namespace {

uint32_t pack(const FormatDesc& d, bool negative, int biased, uint64_t container_fraction) {
  const uint32_t sign = negative ? d.sign_mask() : 0;
  return sign | (static_cast<uint32_t>(biased) << d.container_fraction_bits) |
         static_cast<uint32_t>(container_fraction);
}

uint32_t infinity_bits(const FormatDesc& d, bool negative) {
  if (!d.has_infinity()) return d.canonical_nan;
  return pack(d, negative, (1 << d.exponent_bits) - 1, 0);
}

// The largest finite value with `kept` fraction bits, as a container bit pattern.
uint32_t max_finite_bits(const FormatDesc& d, bool negative, int kept) {
  const uint64_t sig = d.max_significand() >> (d.fraction_bits - kept) << (d.fraction_bits - kept);
  const uint64_t fraction = sig & ((uint64_t{1} << d.fraction_bits) - 1);
  return pack(d, negative, d.max_exponent() + d.bias,
              fraction << (d.container_fraction_bits - d.fraction_bits));
}

}  // namespace

uint32_t encode(Format format, const ExactValue& value, const EncodeOptions& options) {
  const FormatDesc& d = describe(format);
  const int kept = options.kept_fraction_bits < 0
                       ? d.fraction_bits
                       : std::min(options.kept_fraction_bits, d.fraction_bits);
  if (value.is_nan()) return d.canonical_nan;
  if (value.is_infinity()) {
    return options.overflow == Overflow::saturate ? max_finite_bits(d, value.negative, kept)
                                                  : infinity_bits(d, value.negative);
  }
  if (value.is_zero()) return value.negative ? d.sign_mask() : 0;

  // Quantum: the weight of the last kept bit, fixed at the subnormal level below min_exponent.
  const int leading = value.leading_exponent();
  const int quantum = std::max(leading, d.min_exponent()) - kept;
  WideUint significand;
  int result_quantum = quantum;
  if (value.exponent >= quantum) {
    significand = value.magnitude.shifted_left(value.exponent - quantum);
  } else {
    const int shift = quantum - value.exponent;
    significand = value.magnitude.shifted_right(shift);
    if (options.rounding == Rounding::nearest_even) {
      const bool half = value.magnitude.bit(shift - 1);
      const bool sticky = value.magnitude.any_bit_below(shift - 1);
      if (half && (sticky || significand.bit(0))) significand = significand + WideUint(1);
    }
  }
  if (significand.bit_length() > kept + 1) {  // rounding carried into a new binade
    significand = significand.shifted_right(1);
    result_quantum += 1;
  }
  const int result_leading = result_quantum + significand.bit_length() - 1;
  const uint64_t sig = significand.low64();
  const uint64_t max_sig_kept = d.max_significand() >> (d.fraction_bits - kept);
  const bool overflow = result_leading > d.max_exponent() ||
                        (result_leading == d.max_exponent() && sig > max_sig_kept);
  if (overflow) {
    const bool to_max =
        options.overflow == Overflow::saturate ||
        (options.overflow == Overflow::ieee && options.rounding == Rounding::toward_zero);
    return to_max ? max_finite_bits(d, value.negative, kept) : infinity_bits(d, value.negative);
  }
  const int widen = d.container_fraction_bits - kept;
  if (sig < (uint64_t{1} << kept))  // subnormal (quantum pinned at min_exponent - kept)
    return pack(d, value.negative, 0, sig << widen);
  const uint64_t fraction = sig - (uint64_t{1} << kept);
  return pack(d, value.negative, result_leading + d.bias, fraction << widen);
}

ExactValue exact_add(const ExactValue& a, const ExactValue& b) {
  if (a.is_nan() || b.is_nan()) return ExactValue::nan();
  if (a.is_infinity() && b.is_infinity()) return a.negative == b.negative ? a : ExactValue::nan();
  if (a.is_infinity()) return a;
  if (b.is_infinity()) return b;
  if (a.is_zero() && b.is_zero()) return ExactValue::zero(a.negative && b.negative);
  if (a.is_zero()) return b;
  if (b.is_zero()) return a;
  const int base = std::min(a.exponent, b.exponent);
  const WideUint ma = a.magnitude.shifted_left(a.exponent - base);
  const WideUint mb = b.magnitude.shifted_left(b.exponent - base);
  ExactValue r;
  r.exponent = base;
  if (a.negative == b.negative) {
    r.negative = a.negative;
    r.magnitude = ma + mb;
    return r;
  }
  const int order = compare(ma, mb);
  if (order == 0) return ExactValue::zero(false);
  r.negative = order > 0 ? a.negative : b.negative;
  r.magnitude = order > 0 ? ma - mb : mb - ma;
  return r;
}

ExactValue exact_multiply(const ExactValue& a, const ExactValue& b) {
  if (a.is_nan() || b.is_nan()) return ExactValue::nan();
  const bool negative = a.negative != b.negative;
  if (a.is_infinity() || b.is_infinity()) {
    if (a.is_zero() || b.is_zero()) return ExactValue::nan();
    return ExactValue::infinity(negative);
  }
  ExactValue r;
  r.negative = negative;
  r.magnitude = a.magnitude * b.magnitude;
  r.exponent = a.exponent + b.exponent;
  return r;
}

uint32_t f32_add_rne(uint32_t a, uint32_t b) {
  return encode(Format::f32, exact_add(decode(Format::f32, a), decode(Format::f32, b)));
}

uint32_t f32_multiply_rne(uint32_t a, uint32_t b) {
  return encode(Format::f32, exact_multiply(decode(Format::f32, a), decode(Format::f32, b)));
}

uint32_t convert(Format from, uint32_t bits, Format to, const EncodeOptions& options) {
  return encode(to, decode(from, bits), options);
}

}  // namespace mmaemu
