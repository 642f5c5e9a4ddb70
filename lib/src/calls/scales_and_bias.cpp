// Calibration-like scales and a normal bias (mmaemu/tools/calls.hpp), shared by the grid and
// live recipes.
#include <cmath>

#include "mmaemu/exact.hpp"
#include "mmaemu/tools/calls.hpp"

namespace mmaemu {

uint32_t draw_calibrated_scale(std::mt19937_64& rng, int min_exp, int max_exp) {
  // The exponent first: the order the committed logs' calls were drawn in.
  const int e = min_exp + static_cast<int>(rng() % static_cast<uint64_t>(max_exp - min_exp + 1));
  const double v = std::ldexp(1.0 + static_cast<double>(rng() % 8) / 8.0, e);
  return encode(Format::f32, ExactValue::from_double(v));
}

std::vector<uint8_t> draw_normal_bias(std::mt19937_64& rng, Format format, int64_t n) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<uint8_t> bias(static_cast<size_t>(n) * 2);
  for (int64_t j = 0; j < n; ++j)
    store_bits(format, bias, static_cast<size_t>(j),
               encode(format, ExactValue::from_double(normal(rng))));
  return bias;
}

}  // namespace mmaemu
