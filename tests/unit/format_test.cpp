// The format codecs: exhaustive over every 8- and 16-bit code, and checked against the CPU's own
// IEEE arithmetic (_Float16 and float) where the CPU has the format.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "mmaemu/exact.hpp"
#include "mmaemu/tools/selftest.hpp"

using namespace mmaemu;

namespace {

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t half_bits(_Float16 h) {
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}

// Random f32 bit patterns spread over every exponent, subnormals and specials included.
std::vector<uint32_t> random_f32(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(count);
  for (auto& x : v) x = rng();
  for (uint32_t special : {0u, 0x80000000u, 1u, 0x007FFFFFu, 0x00800000u, 0x7F7FFFFFu, 0x7F800000u,
                           0xFF800000u, 0x7FC00000u, 0x3F800000u, 0x477FE000u, 0x477FF000u})
    v.push_back(special);
  return v;
}

}  // namespace

TEST_CASE("every 8- and 16-bit code round-trips", "[format]") {
  const SelftestCheck check = check_format_round_trips();
  INFO(check.detail);
  CHECK(check.passed);
}

TEST_CASE("f16 decode equals the CPU's _Float16 for all 65536 codes", "[format]") {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    uint16_t h16 = static_cast<uint16_t>(bits);
    _Float16 h;
    std::memcpy(&h, &h16, 2);
    const ExactValue v = decode(Format::f16, bits);
    const float f = static_cast<float>(h);
    if (std::isnan(f)) {
      REQUIRE(v.is_nan());
      continue;
    }
    REQUIRE(encode(Format::f32, v) == float_bits(f));
  }
}

TEST_CASE("f32 -> f16 nearest-even equals the CPU's conversion", "[format]") {
  for (uint32_t bits : random_f32(400000, 7)) {
    const float f = bits_float(bits);
    const uint32_t ours = convert(Format::f32, bits, Format::f16);
    if (std::isnan(f)) {
      REQUIRE(ours == 0x7FFF);
      continue;
    }
    INFO(std::hex << bits);
    REQUIRE(ours == half_bits(static_cast<_Float16>(f)));
  }
}

TEST_CASE("f32 -> bf16 nearest-even equals the bit formula", "[format]") {
  for (uint32_t bits : random_f32(400000, 8)) {
    if (std::isnan(bits_float(bits))) continue;
    const uint32_t rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16;
    INFO(std::hex << bits);
    REQUIRE(convert(Format::f32, bits, Format::bf16) == rounded);
  }
}

TEST_CASE("exact f32 add and multiply equal the CPU's IEEE arithmetic", "[format]") {
  const auto a = random_f32(300000, 9);
  const auto b = random_f32(300000, 10);
  for (size_t i = 0; i < a.size(); ++i) {
    // Bring the exponents close half of the time, so that cancellation and carries happen.
    const uint32_t bi = (i % 2) ? b[i] : ((a[i] & 0xFF800000u) ^ (b[i] & 0x807FFFFFu));
    const float sum = bits_float(a[i]) + bits_float(bi);
    const float product = bits_float(a[i]) * bits_float(bi);
    INFO(std::hex << a[i] << " " << bi);
    if (std::isnan(sum))
      REQUIRE(f32_add_rne(a[i], bi) == 0x7FFFFFFF);
    else
      REQUIRE(f32_add_rne(a[i], bi) == float_bits(sum));
    if (std::isnan(product))
      REQUIRE(f32_multiply_rne(a[i], bi) == 0x7FFFFFFF);
    else
      REQUIRE(f32_multiply_rne(a[i], bi) == float_bits(product));
  }
}

TEST_CASE("FP8 encodings, saturation and overflow", "[format]") {
  auto e4m3 = [](double v, Overflow o = Overflow::ieee, Rounding r = Rounding::nearest_even) {
    return encode(Format::f8_e4m3, ExactValue::from_double(v), {r, o, -1});
  };
  auto e5m2 = [](double v, Overflow o = Overflow::ieee, Rounding r = Rounding::nearest_even) {
    return encode(Format::f8_e5m2, ExactValue::from_double(v), {r, o, -1});
  };
  CHECK(e4m3(1.0) == 0x38);
  CHECK(e4m3(-0.5) == 0xB0);
  CHECK(e4m3(448) == 0x7E);
  CHECK(e4m3(0x1p-9) == 0x01);
  CHECK(e4m3(0x1p-10) == 0x00);  // a tie rounds to even: zero
  CHECK(e4m3(0x1.8p-10) == 0x01);
  CHECK(e4m3(463.9) == 0x7E);
  CHECK(e4m3(464) == 0x7E);  // tie between 448 (even) and 480 (NaN code): 448
  CHECK(e4m3(465) == 0x7F);  // overflow: e4m3 has no infinity, so NaN
  CHECK(e4m3(465, Overflow::saturate) == 0x7E);
  CHECK(e4m3(-1e9, Overflow::saturate) == 0xFE);
  CHECK(e4m3(INFINITY, Overflow::saturate) == 0x7E);
  CHECK(e4m3(NAN, Overflow::saturate) == 0x7F);
  CHECK(e4m3(500, Overflow::ieee, Rounding::toward_zero) == 0x7E);
  CHECK(e5m2(57344) == 0x7B);
  CHECK(e5m2(61440) == 0x7C);  // tie to even past the largest finite: infinity
  CHECK(e5m2(1e6, Overflow::saturate) == 0x7B);
  CHECK(e5m2(-INFINITY) == 0xFC);
  CHECK(decode(Format::f8_e4m3, 0x7F).is_nan());
  CHECK(decode(Format::f8_e4m3, 0xFF).is_nan());
  CHECK(decode(Format::f8_e4m3, 0x7E).to_double() == 448.0);
  CHECK(decode(Format::f8_e5m2, 0x7C).is_infinity());
  CHECK(decode(Format::f8_e5m2, 0x7D).is_nan());
  CHECK(decode(Format::f8_e4m3, 0x80).is_zero());
  CHECK(decode(Format::f8_e4m3, 0x80).negative);
}

TEST_CASE("tf32 ignores the low 13 bits of its f32 container", "[format]") {
  CHECK(decode(Format::tf32, 0x3F801FFF).to_double() == 1.0);
  CHECK(decode(Format::tf32, 0x3F802000).to_double() == 1.0 + 0x1p-10);
  CHECK(encode(Format::tf32, ExactValue::from_double(1.0 + 0x1p-11 + 0x1p-20)) == 0x3F802000);
}

TEST_CASE("an e8m13 result keeps 13 fraction bits and a 2^-139 subnormal quantum", "[format]") {
  const EncodeOptions e8m13{Rounding::toward_zero, Overflow::to_infinity, 13};
  CHECK(encode(Format::f32, decode(Format::f32, 0x3FFFFFFF), e8m13) == 0x3FFFFC00);
  CHECK(encode(Format::f32, decode(Format::f32, 0xBFFFFFFF), e8m13) == 0xBFFFFC00);
  CHECK(encode(Format::f32, decode(Format::f32, 0x00000001), e8m13) == 0x00000000);
  CHECK(encode(Format::f32, decode(Format::f32, 0x00000400), e8m13) == 0x00000400);
  CHECK(encode(Format::f32, decode(Format::f32, 0x000007FF), e8m13) == 0x00000400);
  CHECK(encode(Format::f32, decode(Format::f32, 0x7F7FFFFF), e8m13) == 0x7F7FFC00);
  CHECK(encode(Format::f32, ExactValue::from_double(0x1p128), e8m13) == 0x7F800000);
  CHECK(encode(Format::f32, ExactValue::from_double(0x1p128),
               {Rounding::toward_zero, Overflow::ieee, 13}) == 0x7F7FFC00);
}

TEST_CASE("exact addition keeps IEEE signed zeros", "[format]") {
  CHECK(f32_add_rne(0x80000000, 0x80000000) == 0x80000000);
  CHECK(f32_add_rne(0x80000000, 0x00000000) == 0x00000000);
  CHECK(f32_add_rne(0x3F800000, 0xBF800000) == 0x00000000);
  CHECK(f32_add_rne(0x7F800000, 0xFF800000) == 0x7FFFFFFF);
  CHECK(f32_multiply_rne(0x7F800000, 0x00000000) == 0x7FFFFFFF);
}
