// The kernels' host-compilable helpers equal the library's exact code: the integer float
// conversions (kernels/common/output_convert.h) equal the exact codec: f32 to f16 (nearest even,
// overflow to infinity) and to FP8 (nearest even, saturating) on every f32 exponent with edge and
// random fractions, both signs; the NaN/Inf test (kernels/common/fp8_special.h) equals the format
// table on every code.
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
  // Infinities: f16 keeps them (the FP8 kernels leave infinities to the host's codec).
  CHECK(f32_to_f16_bits(0x7F800000) == 0x7C00);
  CHECK(f32_to_f16_bits(0xFF800000) == 0xFC00);
  std::cout << checked << " f32 values checked\n";
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
