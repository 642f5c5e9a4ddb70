#include <cmath>
#include <cstring>

#include "mmaemu/exact.hpp"

namespace mmaemu {

ExactValue ExactValue::zero(bool negative) {
  ExactValue v;
  v.negative = negative;
  return v;
}

ExactValue ExactValue::infinity(bool negative) {
  ExactValue v;
  v.kind = Kind::infinity;
  v.negative = negative;
  return v;
}

ExactValue ExactValue::nan() {
  ExactValue v;
  v.kind = Kind::nan;
  return v;
}

ExactValue ExactValue::from_double(double value) {
  if (std::isnan(value)) return nan();
  if (std::isinf(value)) return infinity(std::signbit(value));
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const bool negative = bits >> 63;
  const int biased = static_cast<int>((bits >> 52) & 0x7FF);
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  if (biased == 0) return finite(negative, fraction, -1074);
  return finite(negative, fraction | (uint64_t{1} << 52), biased - 1075);
}

double ExactValue::to_double() const {
  if (is_nan()) return std::nan("");
  if (is_infinity()) return negative ? -HUGE_VAL : HUGE_VAL;
  const int length = magnitude.bit_length();
  if (length == 0) return negative ? -0.0 : 0.0;
  // Display only: bits beyond the 53rd are truncated.
  const int drop = length > 53 ? length - 53 : 0;
  const double significand = static_cast<double>(magnitude.shifted_right(drop).low64());
  double v = std::ldexp(significand, exponent + drop);
  return negative ? -v : v;
}

}  // namespace mmaemu
