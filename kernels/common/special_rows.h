// A pre-pass each scaled-mm module carries: marks the rows of an operand (rows x k FP8 codes,
// row-major) that hold a NaN or Inf code, one warp per row, so that the main kernel flags those
// rows' elements for the host's oracle without testing every code it reads.
#pragma once

#include "fp8_special.h"
#include "scaled_mm_params.h"

extern "C" __global__ void flag_special_rows(const uint8_t* codes, long long rows, long long k, int e5m2,
                                             uint8_t* row_special) {
  const long long row = static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows) return;  // whole warps leave together: blockDim.x is a multiple of 32
  const uint8_t* r = codes + row * k;
  bool special = false;
  for (long long x = threadIdx.x % 32; x < k; x += 32) special |= special_code(r[x], e5m2);
  special = __any_sync(0xFFFFFFFFu, special);
  if (threadIdx.x % 32 == 0) row_special[row] = special;
}
