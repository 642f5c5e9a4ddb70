// Random and adversarial torch._scaled_mm calls for conformance: every distribution of the truth
// sets and worse (NaN/Inf, subnormals, overflowing scales), odd shapes, K not a multiple of the
// step, tensorwise and rowwise scales, bias, every output dtype. The fast CPU path's test and
// `mmaemu conform` (the GPU kernels against the oracle) draw from the same generator.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "mmaemu/scaled_mm.hpp"

namespace mmaemu {

enum class CallDistribution { normal, wide, small, cancel, special };

struct AdversarialShapes {
  std::vector<int64_t> m = {1, 3, 16, 17}, n = {1, 5, 16},
                       k = {1, 7, 31, 32, 33, 100, 128, 129, 300, 513};
};

OwnedScaledMmCall random_adversarial_call(std::mt19937& rng, CallDistribution dist,
                                          const AdversarialShapes& shapes = {});

}  // namespace mmaemu
