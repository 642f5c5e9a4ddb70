// The calls `conform` checks (mmaemu/tools/calls.hpp).
#include "mmaemu/tools/calls.hpp"

namespace mmaemu {

ConformanceCalls::ConformanceCalls(uint64_t seed, int calls_per_distribution)
    : rng_(static_cast<std::mt19937::result_type>(seed)),
      calls_per_distribution_(calls_per_distribution) {
  for (const auto& p : builtin_presets())
    if (p.accepts(Format::f8_e4m3)) presets_.push_back(&p);
  shapes_.m = {1, 3, 16, 17, 64, 129};
  shapes_.n = {1, 5, 16, 48, 130};
  shapes_.k = {1, 7, 16, 31, 32, 33, 48, 100, 128, 129, 160, 300, 480, 513, 1000, 1024, 2048, 4096};
}

std::optional<ConformanceCall> ConformanceCalls::next() {
  if (trial_ == calls_per_distribution_) {
    trial_ = 0;
    ++distribution_;
  }
  if (distribution_ == std::size(kCallDistributionNames) || calls_per_distribution_ <= 0 ||
      presets_.empty())
    return std::nullopt;
  ConformanceCall c;
  c.distribution = static_cast<CallDistribution>(distribution_);
  c.trial = trial_;
  c.call = random_adversarial_call(rng_, c.distribution, shapes_);
  c.preset = presets_[static_cast<size_t>(trial_) % presets_.size()];
  c.split_k = rng_() % 2 ? 1 : 2 + static_cast<int>(rng_() % 4);
  ++trial_;
  return c;
}

}  // namespace mmaemu
