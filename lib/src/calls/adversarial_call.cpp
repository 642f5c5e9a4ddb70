// Random and adversarial calls for conformance (mmaemu/tools/calls.hpp).
#include "mmaemu/tools/calls.hpp"

#include <algorithm>

namespace mmaemu {
namespace {

uint8_t fp8_code(Format f, CallDistribution d, std::mt19937& rng) {
  const int exp_bits = f == Format::f8_e4m3 ? 4 : 5, frac_bits = 7 - exp_bits;
  const int bias = (1 << (exp_bits - 1)) - 1;
  const uint32_t sign = (rng() & 1) << 7;
  auto pack = [&](int e) {
    return static_cast<uint8_t>(sign | (std::clamp(e, 0, (1 << exp_bits) - 2) << frac_bits) |
                                (rng() & ((1 << frac_bits) - 1)));
  };
  switch (d) {
    case CallDistribution::normal:
      return pack(bias + static_cast<int>(rng() % 7) - 3);
    case CallDistribution::wide:
      return static_cast<uint8_t>(rng());
    case CallDistribution::small:
      return pack(static_cast<int>(rng() % 3));
    case CallDistribution::cancel:
      return pack(bias + static_cast<int>(rng() % 3) - 1);
    case CallDistribution::special: {
      const uint8_t specials[] = {0x00, 0x80, 0x01, 0x81, 0x7F, 0xFF, 0x7E, 0xFE, 0x7C, 0xFC};
      return rng() % 4 == 0 ? specials[rng() % 10] : pack(bias + static_cast<int>(rng() % 9) - 4);
    }
  }
  return 0;
}

uint32_t random_scale(std::mt19937& rng) {
  const uint32_t picks[] = {0x3F800000, 0x3D17F62B, 0x3FD9999A, 0x00000000,
                            0x00000001, 0x7F7FFFFF, 0x3A000000, 0x4B000000};
  if (rng() % 3 == 0) return picks[rng() % 8];
  return (rng() & 0x807FFFFF) | ((120 + rng() % 16) << 23);
}

}  // namespace

OwnedScaledMmCall random_adversarial_call(std::mt19937& rng, CallDistribution dist,
                                          const AdversarialShapes& shapes) {
  const Format pairs[][2] = {{Format::f8_e4m3, Format::f8_e4m3},
                             {Format::f8_e4m3, Format::f8_e5m2},
                             {Format::f8_e5m2, Format::f8_e4m3}};
  const Format outs[] = {Format::bf16, Format::f16, Format::f32, Format::f8_e4m3, Format::f8_e5m2};
  OwnedScaledMmCall c;
  c.m = shapes.m[rng() % shapes.m.size()];
  c.n = shapes.n[rng() % shapes.n.size()];
  c.k = shapes.k[rng() % shapes.k.size()];
  const auto& pair = pairs[rng() % 3];
  c.a_dtype = pair[0];
  c.b_dtype = pair[1];
  c.a.resize(c.m * c.k);
  c.b.resize(c.n * c.k);
  for (auto& x : c.a) x = fp8_code(c.a_dtype, dist, rng);
  for (auto& x : c.b) x = fp8_code(c.b_dtype, dist, rng);
  if (dist == CallDistribution::cancel)  // make neighbouring products cancel
    for (int64_t i = 0; i + 1 < c.k; i += 2)
      for (int64_t r = 0; r < c.m; ++r) c.a[r * c.k + i + 1] = c.a[r * c.k + i] ^ 0x80;
  if (dist == CallDistribution::cancel)
    for (int64_t i = 0; i + 1 < c.k; i += 2)
      for (int64_t r = 0; r < c.n; ++r) c.b[r * c.k + i + 1] = c.b[r * c.k + i];
  if (rng() % 3 == 0) {
    c.rowwise = true;
    c.scale_a.assign(c.m, 0);
    c.scale_b.assign(c.n, 0);
    for (auto& s : c.scale_a) s = random_scale(rng);
    for (auto& s : c.scale_b) s = random_scale(rng);
  } else {
    c.scale_a = {random_scale(rng)};
    c.scale_b = {random_scale(rng)};
  }
  c.out_dtype = outs[rng() % 5];
  if (rng() % 3 == 0) {
    c.bias_dtype = rng() % 2 ? Format::bf16 : Format::f16;
    c.bias.resize(c.n * 2);
    for (int64_t j = 0; j < c.n; ++j) store_bits(*c.bias_dtype, c.bias, j, rng() & 0xBFFF);
  }
  c.use_fast_accum = rng() % 2;
  return c;
}

}  // namespace mmaemu
