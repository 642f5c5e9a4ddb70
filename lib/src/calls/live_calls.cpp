// The random calls of `selftest --live` (mmaemu/tools/calls.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "mmaemu/exact.hpp"
#include "mmaemu/tools/calls.hpp"

namespace mmaemu {
namespace {

// A value of [lo, hi] on the step lattice, log-uniformly: small and large sizes alike.
int64_t log_uniform(std::mt19937_64& rng, int64_t lo, int64_t hi, int64_t step) {
  const double v = std::exp(std::uniform_real_distribution<double>(
      std::log(static_cast<double>(lo)), std::log(static_cast<double>(hi + step)))(rng));
  return std::clamp(
      lo + static_cast<int64_t>((v - static_cast<double>(lo)) / static_cast<double>(step)) * step,
      lo, lo + (hi - lo) / step * step);
}

// Tensorwise or (for bf16 and f32 outputs, a third of the time) rowwise scales, powers of two
// times 1..1.875; a bias a third of the time where torch allows one.
void draw_scales_and_bias(std::mt19937_64& rng, RecordCall& c) {
  c.rowwise = (c.out_dtype == Format::bf16 || c.out_dtype == Format::f32) && rng() % 3 == 0;
  if (c.rowwise) {
    for (int64_t r = 0; r < c.m; ++r) c.scale_a.push_back(draw_calibrated_scale(rng, -3, 3));
    for (int64_t r = 0; r < c.n; ++r) c.scale_b.push_back(draw_calibrated_scale(rng, -3, 3));
  } else {
    c.scale_a = {draw_calibrated_scale(rng, -3, 3)};
    c.scale_b = {draw_calibrated_scale(rng, -3, 3)};
  }
  // torch: a bias of the output's dtype for bf16/f16 outputs, bf16 or f16 for FP8 outputs.
  if (c.out_dtype != Format::f32 && rng() % 3 == 0) {
    c.bias_dtype =
        c.out_dtype == Format::f8_e4m3 ? (rng() & 1 ? Format::bf16 : Format::f16) : c.out_dtype;
    c.bias = draw_normal_bias(rng, *c.bias_dtype, c.n);
  }
}

}  // namespace

Result<std::vector<RecordCall>> random_live_calls(int count, uint64_t seed,
                                                  const std::vector<int64_t>& workspaces,
                                                  int threads) {
  if (workspaces.empty()) return Error(Errc::invalid_argument, "no workspace sizes to draw from");
  std::mt19937_64 rng(seed);
  const std::pair<Format, Format> pairs[] = {{Format::f8_e4m3, Format::f8_e4m3},
                                             {Format::f8_e4m3, Format::f8_e5m2},
                                             {Format::f8_e5m2, Format::f8_e4m3}};
  const Format outs[] = {Format::bf16, Format::f16, Format::f32, Format::f8_e4m3};
  const CallDistribution dists[] = {CallDistribution::normal, CallDistribution::wide,
                                    CallDistribution::cancel, CallDistribution::small,
                                    CallDistribution::special};
  constexpr int64_t kMaxMacs = int64_t{1} << 30;  // keeps the CPU replay of one call under a second
  std::vector<RecordCall> calls;
  for (int i = 0; i < count; ++i) {
    RecordCall c;
    const bool splitting = i % 2 == 0;
    do {
      c.m = log_uniform(rng, 1, splitting ? 1024 : 4096, 1);
      c.n = log_uniform(rng, 16, splitting ? 1024 : 4096, 16);
      c.k = splitting ? log_uniform(rng, 4096, 65536, 16) : log_uniform(rng, 16, 16384, 16);
    } while (c.m * c.n * c.k > kMaxMacs);
    std::tie(c.a_dtype, c.b_dtype) = pairs[rng() % 3];
    c.out_dtype = outs[rng() % 4];
    c.use_fast_accum = rng() & 1;
    c.workspace_bytes = workspaces[rng() % workspaces.size()];
    c.dist = distribution_name(dists[rng() % 5]);
    c.seed = seed * 1000 + static_cast<uint64_t>(i);
    draw_scales_and_bias(rng, c);
    c.id = fmt::format(
        "live_{:04}_{}x{}x{}_{}x{}_{}_{}{}{}_{}_ws{}", i, c.m, c.n, c.k, describe(c.a_dtype).name,
        describe(c.b_dtype).name, describe(c.out_dtype).name, c.dist, c.rowwise ? "_rowwise" : "",
        c.bias_dtype ? "_bias" : "", c.use_fast_accum ? "fast" : "promoted", *c.workspace_bytes);
    calls.push_back(std::move(c));
  }
  // The operands last, on every core (drawn on one thread, 2000 calls took longer than a device
  // call lasts): each call's from its own seed, so the calls are the same whatever the threads.
  if (auto drawn = draw_operands(calls, threads); !drawn) return drawn.error();
  return calls;
}

}  // namespace mmaemu
