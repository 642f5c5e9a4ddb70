// A pre-pass each scaled-mm module carries: marks the rows of an operand (rows x k FP8 codes,
// row-major) that hold a NaN or Inf code, one warp per row, so that the main kernel flags those
// rows' elements for the host's oracle without testing every code it reads. 16-byte loads only
// where the rows' addresses allow: a device-resident operand may start at any byte.
#pragma once

#include "fp8_special.h"
#include "scaled_mm_params.h"

extern "C" __global__ void flag_special_rows(const uint8_t* codes, long long rows, long long k,
                                             int e5m2, uint8_t* row_special) {
  const long long row = static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows) return;  // whole warps leave together: blockDim.x is a multiple of 32
  const uint8_t* r = codes + row * k;
  bool special = false;
  if (k % 16 == 0 && (reinterpret_cast<unsigned long long>(codes) & 15) == 0) {  // 16-byte rows
    struct alignas(16) Sixteen {
      uint32_t word[4];
    };
    const Sixteen* row16 = reinterpret_cast<const Sixteen*>(r);
    for (long long x = threadIdx.x % 32; x < k / 16; x += 32) {
      const Sixteen v = row16[x];
      for (int b = 0; b < 16; ++b)
        special |= special_code(static_cast<uint8_t>(v.word[b >> 2] >> (8 * (b & 3))), e5m2);
    }
  } else {
    for (long long x = threadIdx.x % 32; x < k; x += 32) special |= special_code(r[x], e5m2);
  }
  special = __any_sync(0xFFFFFFFFu, special);
  if (threadIdx.x % 32 == 0) row_special[row] = special;
}
