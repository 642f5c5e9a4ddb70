// One call of `mmaemu record`'s grid (mmaemu/tools/calls.hpp).
#include <fmt/format.h>

#include "mmaemu/tools/calls.hpp"

namespace mmaemu {

RecordCall grid_call(const GridCallSpec& g) {
  RecordCall c;
  c.id = fmt::format("rec_{}x{}x{}_{}_{}_{}_{}{}_{}", g.m, g.n, g.k, g.pair, g.dist, g.out_name,
                     g.scale_mode, g.bias ? "_bias" : "", g.fast ? "fast" : "promoted");
  std::mt19937_64 rng(g.seed * 7919 + g.index);
  if (g.scale_mode == "rowwise") {
    c.rowwise = true;
    for (int64_t i = 0; i < g.m; ++i) c.scale_a.push_back(draw_calibrated_scale(rng, -4, 4));
    for (int64_t j = 0; j < g.n; ++j) c.scale_b.push_back(draw_calibrated_scale(rng, -4, 4));
  } else if (g.scale_mode == "tensorwise") {
    c.scale_a = {draw_calibrated_scale(rng, -4, 4)};
    c.scale_b = {draw_calibrated_scale(rng, -4, 4)};
  } else {
    c.scale_a = {0x3F800000};
    c.scale_b = {0x3F800000};
  }
  if (g.bias) {
    c.bias_dtype = g.out_dtype;
    c.bias = draw_normal_bias(rng, g.out_dtype, g.n);
  }
  c.m = g.m;
  c.n = g.n;
  c.k = g.k;
  c.a_dtype = g.a_dtype;
  c.b_dtype = g.b_dtype;
  c.out_dtype = g.out_dtype;
  c.use_fast_accum = g.fast;
  c.dist = g.dist;
  c.seed = g.seed;
  return c;
}

}  // namespace mmaemu
