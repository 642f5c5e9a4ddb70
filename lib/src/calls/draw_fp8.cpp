// FP8 codes from a named distribution (mmaemu/tools/calls.hpp).
#include <random>

#include "mmaemu/exact.hpp"
#include "mmaemu/tools/calls.hpp"

namespace mmaemu {

std::string_view distribution_name(CallDistribution d) {
  return kCallDistributionNames[static_cast<size_t>(d)];
}

std::optional<CallDistribution> distribution_from_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kCallDistributionNames); ++i)
    if (kCallDistributionNames[i] == name) return static_cast<CallDistribution>(i);
  return std::nullopt;
}

Result<std::vector<uint8_t>> draw_fp8(Format format, const std::string& distribution, size_t count,
                                      uint64_t seed) {
  if (format != Format::f8_e4m3 && format != Format::f8_e5m2)
    return Error(Errc::invalid_argument, "draw_fp8: not an FP8 format");
  const auto dist = distribution_from_name(distribution);
  if (!dist)
    return Error(Errc::invalid_argument, "unknown distribution '" + distribution +
                                             "' (normal, wide, cancel, small, special)");
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  const auto round = [&](double v) {
    return static_cast<uint8_t>(encode(format, ExactValue::from_double(v),
                                       {Rounding::nearest_even, Overflow::saturate, -1}));
  };
  std::vector<uint8_t> out(count);
  switch (*dist) {
    case CallDistribution::normal:
      for (auto& x : out) x = round(normal(rng));
      break;
    case CallDistribution::wide:
      for (auto& x : out) {
        do x = static_cast<uint8_t>(rng());
        while (!decode(format, x).is_finite());
      }
      break;
    case CallDistribution::cancel:
      for (size_t i = 0; i < count; ++i) out[i] = i % 2 ? out[i - 1] ^ 0x80 : round(normal(rng));
      break;
    case CallDistribution::small: {
      const int fraction_bits = describe(format).fraction_bits;
      for (auto& x : out)
        x = static_cast<uint8_t>((rng() & 0x80) | ((rng() % 3) << fraction_bits) |
                                 (rng() & ((1 << fraction_bits) - 1)));
      break;
    }
    case CallDistribution::special: {
      const uint8_t specials[] = {0x00, 0x80, 0x01, 0x81, 0x7F, 0xFF,
                                  0x7E, 0xFE, 0x7C, 0xFC, 0x7B, 0xFB};
      for (auto& x : out) x = rng() % 16 == 0 ? specials[rng() % 12] : round(normal(rng));
      break;
    }
  }
  return out;
}

}  // namespace mmaemu
