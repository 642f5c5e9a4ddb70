// The 256 codes of an FP8 format as the integer step paths use them: a signed significand and the
// alignment exponent (min_exponent for subnormals), zeros far below any real exponent, and
// whether the code is a NaN or an infinity. Shared by the fast CPU path and the CUDA backend.
#pragma once

#include <array>
#include <cstdint>

#include "mmaemu/exact.hpp"

namespace mmaemu {

struct Fp8Code {
  int16_t significand;  // signed; 0 for zeros and specials
  int16_t exponent;     // alignment exponent; kZeroExponent for zeros and specials
  bool special;         // NaN or infinity
};

// Zero operands get an exponent far below any real one: their products (zero) never win the
// maximum and shift out entirely, so the step loops need no branches.
constexpr int16_t kZeroExponent = -1000;

inline std::array<Fp8Code, 256> decode_fp8_codes(Format format) {
  std::array<Fp8Code, 256> table{};
  const FormatDesc& d = describe(format);
  for (uint32_t code = 0; code < 256; ++code) {
    const ExactValue v = decode(format, code);
    table[code] = {0, kZeroExponent, !v.is_finite()};
    if (v.is_finite() && !v.is_zero()) {
      const auto s = static_cast<int16_t>(v.magnitude.low64());
      table[code].significand = static_cast<int16_t>(v.negative ? -s : s);
      table[code].exponent = static_cast<int16_t>(v.exponent + d.fraction_bits);
    }
  }
  return table;
}

}  // namespace mmaemu
