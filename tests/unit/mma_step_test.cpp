// The step oracle on crafted inputs: the probe set of ../shared/notes/tensor-core-models.md §6.2,
// whose expected Hopper wgmma FP8 results were computed by an independent implementation of the
// same model. Each probe isolates one parameter of hopper_fp8_wgmma_k32.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <vector>

#include "mmaemu/mma_step.hpp"

using namespace mmaemu;

namespace {

// E4M3 codes of the values the probes use.
constexpr uint32_t kOne = 0x38, kMinusOne = 0xB8, kMinusHalf = 0xB0, kMinusThreeQuarters = 0xB4,
                   k1_875 = 0x3F, kTwoPowMinus6 = 0x08, kTwoPowMinus7 = 0x04, kTwoPowMinus8 = 0x02,
                   kTwoPowMinus9 = 0x01, k1_5TwoPowMinus6 = 0x0C, k1_5TwoPowMinus7 = 0x06,
                   kMinus1_5TwoPowMinus7 = 0x86, kNan = 0x7F;

struct Probe {
  std::vector<uint32_t> a = std::vector<uint32_t>(32, 0), b = std::vector<uint32_t>(32, 0);
  uint32_t c = 0;
  Format format = Format::f8_e4m3;
  void slot(size_t i, uint32_t x, uint32_t y) {
    if (a.size() <= i) a.resize(i + 1, 0), b.resize(i + 1, 0);
    a[i] = x;
    b[i] = y;
  }
  uint32_t run(const Preset& p = *find_preset("hopper_fp8_wgmma_k32")) const {
    return oracle_mma_chain(p, p.f32_result, {format, format, a, b, c});
  }
};

}  // namespace

TEST_CASE("P1: c enters the 13-bit datapath, truncated toward zero", "[step][probe]") {
  Probe p;
  p.c = 0x3FFFFFFF;
  CHECK(p.run() == 0x3FFFFC00);
  p.c = 0xBFFFFFFF;
  CHECK(p.run() == 0xBFFFFC00);
}

TEST_CASE("P2: 13 fraction bits are kept below the largest exponent", "[step][probe]") {
  Probe p;
  p.slot(0, kOne, kOne);
  p.slot(1, kMinusHalf, kOne);
  p.slot(2, kTwoPowMinus7, kTwoPowMinus6);  // 2^-13
  CHECK(p.run() == 0x3F000800);
  p.slot(2, kTwoPowMinus8, kTwoPowMinus6);  // 2^-14: below the window
  CHECK(p.run() == 0x3F000000);
}

TEST_CASE("P3/P4: each term is truncated toward zero before the sum", "[step][probe]") {
  Probe p;
  p.slot(0, kOne, kOne);
  p.slot(1, kMinusHalf, kOne);
  for (size_t i = 2; i <= 4; ++i) p.slot(i, k1_5TwoPowMinus7, kTwoPowMinus7);
  CHECK(p.run() == 0x3F000000);
  for (size_t i = 2; i <= 4; ++i) p.slot(i, kMinus1_5TwoPowMinus7, kTwoPowMinus7);
  CHECK(p.run() == 0x3F000000);
}

TEST_CASE("P5/P5': one instruction fuses 32 products", "[step][probe]") {
  for (size_t k = 2; k <= 64; ++k) {
    Probe p;
    p.c = 0x3F800400;  // 1 + 2^-13
    p.slot(63, 0, 0);  // K = 64
    p.slot(0, kOne, kOne);
    p.slot(k - 1, kTwoPowMinus7, kTwoPowMinus6);
    // Two k32 instructions chained, as a K = 64 GEMM issues them.
    const Preset& preset = *find_preset("hopper_fp8_wgmma_k32");
    uint32_t c = p.c;
    for (size_t s = 0; s < 64; s += 32)
      c = oracle_mma_chain(
          preset, preset.f32_result,
          {p.format, p.format, std::span(p.a).subspan(s, 32), std::span(p.b).subspan(s, 32), c});
    INFO("k = " << k);
    CHECK(c == (k <= 32 ? 0x40000400u : 0x40000000u));
  }
  for (size_t j = 2; j < 64; ++j) {
    Probe p;
    p.slot(63, 0, 0);  // K = 64
    p.slot(0, kOne, kOne);
    p.slot(1, kMinusOne, kOne);
    p.slot(j, kTwoPowMinus7, kTwoPowMinus7);
    const Preset& preset = *find_preset("hopper_fp8_wgmma_k32");
    uint32_t c = 0;
    for (size_t s = 0; s < 64; s += 32)
      c = oracle_mma_chain(
          preset, preset.f32_result,
          {p.format, p.format, std::span(p.a).subspan(s, 32), std::span(p.b).subspan(s, 32), c});
    INFO("j = " << j);
    CHECK(c == (j <= 31 ? 0u : 0x38800000u));
  }
}

TEST_CASE("P6: c takes part in the max-exponent alignment", "[step][probe]") {
  Probe p;
  p.c = 0x3F800000;
  p.slot(0, kMinusThreeQuarters, kOne);
  p.slot(1, kTwoPowMinus7, kTwoPowMinus7);
  CHECK(p.run() == 0x3E800000);
}

TEST_CASE("P7: the result is truncated to 13 fraction bits", "[step][probe]") {
  Probe p;
  p.slot(0, k1_875, kOne);
  p.slot(1, kOne, kOne);
  p.slot(2, k1_5TwoPowMinus6, kTwoPowMinus6);
  CHECK(p.run() == 0x40380400);
  p.slot(0, k1_875 | 0x80, kOne);
  p.slot(1, kMinusOne, kOne);
  p.slot(2, k1_5TwoPowMinus6 | 0x80, kTwoPowMinus6);
  CHECK(p.run() == 0xC0380400);
}

TEST_CASE("P8: carries out of 32 large products are kept", "[step][probe]") {
  Probe p;
  for (size_t i = 0; i < 32; ++i) p.slot(i, k1_875, k1_875);
  CHECK(p.run() == 0x42E10000);
}

TEST_CASE("P10/P11: subnormal accumulators and inputs", "[step][probe]") {
  Probe p;
  p.c = 0x00000001;  // 2^-149 is below the e8m13 grid
  CHECK(p.run() == 0);
  p.c = 0x00000400;  // 2^-139 is on it
  CHECK(p.run() == 0x00000400);
  Probe q;
  q.slot(0, kTwoPowMinus9, kTwoPowMinus9);
  CHECK(q.run() == 0x36800000);
}

TEST_CASE("P12: special values", "[step][probe]") {
  Probe nan;
  nan.slot(0, kNan, kOne);
  CHECK(nan.run() == 0x7FFFFFFF);
  Probe infinities;
  infinities.format = Format::f8_e5m2;
  infinities.slot(0, 0x7C, 0x3C);  // +inf x 1
  CHECK(infinities.run() == 0x7F800000);
  infinities.slot(1, 0xFC, 0x3C);  // -inf x 1 in the same step
  CHECK(infinities.run() == 0x7FFFFFFF);
  Probe inf_zero;
  inf_zero.format = Format::f8_e5m2;
  inf_zero.slot(0, 0x7C, 0x00);
  CHECK(inf_zero.run() == 0x7FFFFFFF);
}

TEST_CASE("an exactly cancelling step gives +0", "[step]") {
  Probe p;
  p.slot(0, kOne, kOne);
  p.slot(1, kMinusOne, kOne);
  CHECK(p.run() == 0);
  p.c = 0x80000000;  // -0 in, +0 out
  CHECK(p.run() == 0);
}

TEST_CASE("Ada chains two 16-term steps per k32 instruction", "[step]") {
  // 1 + 2^-13 survives a 16-term block boundary only when the small term sits in the first block.
  const Preset& ada = *find_preset("ada_fp8_mma_k32");
  for (size_t j = 1; j < 32; ++j) {
    Probe p;
    p.slot(0, kOne, kOne);
    p.slot(1, kMinusOne, kOne);
    p.slot(j == 1 ? 2 : j, kTwoPowMinus7, kTwoPowMinus7);
    INFO("j = " << j);
    CHECK(p.run(ada) == (j < 16 ? 0u : 0x38800000u));
  }
}
