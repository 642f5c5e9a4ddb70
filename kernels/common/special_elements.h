// A pass each scaled-mm module carries, after its main kernel: the elements whose row of a or b
// holds a NaN or Inf code (flag_special_rows marked them; the main kernel flagged them for the
// host), finished on the device. Their FP32 sum is NaN or an infinity whatever the finite products
// are, under every preset the kernels cover: a step with a NaN or infinite product, or with such a
// c, gives NaN, or the infinity when all are of one sign (the oracle's mma_step); the FP32 adds of
// blocks and slices combine them as IEEE does; and no FP32 sum of FP8 products overflows (e5m2's
// largest product is below 2^32, so 2^63 of them stay below 2^96). So the sum is NaN where any
// product is NaN (a NaN code, an infinity times zero) or infinities of both signs meet, else the
// products' infinity. The epilogue then runs as for any element; its flag (an FP8 output of an
// infinity, left to the exact codec) replaces the main kernel's, and the flagged count drops by
// the elements finished here.
#pragma once

#include "epilogue.h"
#include "fp8_special.h"
#include "scaled_mm_params.h"
#include "special_rows.h"

// Blocks walk the lines (a's m rows, then b's n rows) and skip those not marked. A marked row i of
// a finishes every element (i, j); a marked row j of b the elements (i, j) whose row i of a is not
// marked (those are row i's). One thread per element, K walked whole.
extern "C" __global__ void finish_special_elements(ScaledMmParams p, int a_e5m2, int b_e5m2) {
  const float alpha = tensorwise_alpha(p);
  unsigned finished = 0;
  for (long long line = blockIdx.x; line < p.m + p.n; line += gridDim.x) {
    const bool of_a = line < p.m;
    const long long row = of_a ? line : line - p.m;
    if (!(of_a ? p.special_rows_a : p.special_rows_b)[row]) continue;
    for (long long other = threadIdx.x; other < (of_a ? p.n : p.m); other += blockDim.x) {
      if (!of_a && p.special_rows_a[other]) continue;
      const long long i = of_a ? row : other, j = of_a ? other : row;
      const uint8_t* ra = p.a + i * p.k;
      const uint8_t* rb = p.b + j * p.k;
      unsigned classes = 0;
      for (long long x = 0; x < p.k; ++x) classes |= special_product(ra[x], a_e5m2, rb[x], b_e5m2);
      bool flag = false;
      const uint32_t bits =
          element_bits(p, alpha, i, j, __uint_as_float(special_sum_bits(classes)), flag);
      const long long index = i * p.n + j;
      const int bytes = output_bytes(p.out_format);
      for (int q = 0; q < bytes; ++q)
        p.out[index * bytes + q] = static_cast<uint8_t>(bits >> (8 * q));
      p.fallback[index] = flag;
      finished += !flag;
    }
  }
  if (finished) atomicSub(p.flagged, finished);
}
