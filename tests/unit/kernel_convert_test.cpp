// The kernels' host-compilable helpers equal the library's exact code: the integer float
// conversions (kernels/common/output_convert.h) equal the exact codec: f32 to f16 (nearest even,
// overflow to infinity) and to FP8 (nearest even, saturating) on every f32 exponent with edge and
// random fractions, both signs; the bias's widening of bf16 and f16 to f32 on every code; the
// NaN/Inf test and the special class of every product of two FP8 codes
// (kernels/common/fp8_special.h) equals the format table on every code.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <random>

#include "common/fp8_special.h"
#include "common/output_convert.h"
#include "mmaemu/exact.hpp"

using namespace mmaemu;

TEST_CASE("kernel conversions equal the exact codec", "[kernels][convert]") {
  std::mt19937 rng(5);
  int64_t checked = 0;
  for (uint32_t exponent = 0; exponent < 255; ++exponent) {
    for (int trial = 0; trial < 600; ++trial) {
      uint32_t fraction;
      switch (trial) {
        case 0:
          fraction = 0;
          break;
        case 1:
          fraction = 0x7FFFFF;
          break;
        case 2:
          fraction = 0x1000;
          break;  // f16 ties
        case 3:
          fraction = 0x3000;
          break;
        case 4:
          fraction = 0x80000;
          break;  // FP8 ties
        case 5:
          fraction = 0x180000;
          break;
        case 6:
          fraction = 0x100000;
          break;
        case 7:
          fraction = 0x300000;
          break;
        default:
          fraction = rng() & 0x7FFFFF;
      }
      for (uint32_t sign : {0u, 0x80000000u}) {
        const uint32_t x = sign | exponent << 23 | fraction;
        INFO(std::hex << x);
        CHECK(f32_to_f16_bits(x) ==
              convert(Format::f32, x, Format::f16, {Rounding::nearest_even, Overflow::ieee, -1}));
        CHECK(f32_to_fp8_bits(x, true) ==
              convert(Format::f32, x, Format::f8_e4m3,
                      {Rounding::nearest_even, Overflow::saturate, -1}));
        CHECK(f32_to_fp8_bits(x, false) ==
              convert(Format::f32, x, Format::f8_e5m2,
                      {Rounding::nearest_even, Overflow::saturate, -1}));
        ++checked;
      }
    }
  }
  // Infinities: f16 keeps them; the FP8 conversion saturates them as the codec does (the kernels'
  // epilogue still leaves FP8 outputs of an infinity to the host's codec).
  CHECK(f32_to_f16_bits(0x7F800000) == 0x7C00);
  CHECK(f32_to_f16_bits(0xFF800000) == 0xFC00);
  for (uint32_t x : {0x7F800000u, 0xFF800000u})
    for (Format f : {Format::f8_e4m3, Format::f8_e5m2})
      CHECK(f32_to_fp8_bits(x, f == Format::f8_e4m3) ==
            convert(Format::f32, x, f, {Rounding::nearest_even, Overflow::saturate, -1}));
  std::cout << checked << " f32 values checked\n";
}

TEST_CASE("the kernels' bias widening equals the exact codec", "[kernels][convert]") {
  int checked = 0;
  for (uint32_t h = 0; h < 0x10000; ++h)
    for (Format f : {Format::bf16, Format::f16}) {
      const uint32_t got = bias_bits_to_f32(h, f == Format::f16);
      const uint32_t want = convert(f, h, Format::f32);
      INFO(describe(f).name << " bits " << std::hex << h << " got " << got << " want " << want);
      // NaNs: the class is what the epilogue keeps (a NaN sum converts to the canonical NaN).
      if ((want & 0x7F800000u) == 0x7F800000u && (want & 0x7FFFFFu)) {
        CHECK((got & 0x7F800000u) == 0x7F800000u);
        CHECK((got & 0x7FFFFFu) != 0);
      } else {
        CHECK(got == want);
      }
      ++checked;
    }
  CHECK(checked == 2 * 65536);
}

TEST_CASE("the kernels' NaN/Inf test equals the format table", "[kernels][specials]") {
  int specials = 0;
  for (Format f : {Format::f8_e4m3, Format::f8_e5m2})
    for (uint32_t code = 0; code < 256; ++code) {
      const ExactValue v = decode(f, code);
      INFO(describe(f).name << " code " << code);
      CHECK(special_code(static_cast<unsigned char>(code), f == Format::f8_e5m2) ==
            (v.is_nan() || v.is_infinity()));
      specials += v.is_nan() || v.is_infinity();
    }
  CHECK(specials == 2 + 8);  // e4m3: two NaNs; e5m2: two infinities and six NaNs
}

TEST_CASE("the kernels' special product classes equal exact multiplication",
          "[kernels][specials]") {
  int pairs = 0, special = 0;
  for (Format fx : {Format::f8_e4m3, Format::f8_e5m2})
    for (Format fy : {Format::f8_e4m3, Format::f8_e5m2})
      for (uint32_t x = 0; x < 256; ++x)
        for (uint32_t y = 0; y < 256; ++y) {
          const ExactValue p = exact_multiply(decode(fx, x), decode(fy, y));
          const unsigned want = p.is_nan() ? kProductNaN
                                : p.is_infinity()
                                    ? (p.negative ? kProductMinusInfinity : kProductPlusInfinity)
                                    : 0u;
          INFO(describe(fx).name << " " << x << " x " << describe(fy).name << " " << y);
          CHECK(special_product(static_cast<unsigned char>(x), fx == Format::f8_e5m2,
                                static_cast<unsigned char>(y), fy == Format::f8_e5m2) == want);
          ++pairs, special += want != 0;
        }
  CHECK(pairs == 4 * 65536);
  CHECK(special > 0);
  // Sums: NaN absorbs, infinities of both signs make NaN, one sign stays.
  CHECK(special_sum_bits(kProductNaN | kProductPlusInfinity) == 0x7FC00000u);
  CHECK(special_sum_bits(kProductPlusInfinity | kProductMinusInfinity) == 0x7FC00000u);
  CHECK(special_sum_bits(kProductPlusInfinity) == 0x7F800000u);
  CHECK(special_sum_bits(kProductMinusInfinity) == 0xFF800000u);
}
