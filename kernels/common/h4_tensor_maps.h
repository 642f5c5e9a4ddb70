// How h4's two tensor maps are laid out (kernels/h4/h4_scaled_mm.cu reads them): boxes of 128
// bytes of K by the tile's rows, the 128-byte swizzle, zeros past the edges. Encoded on the host
// by the launcher (lib/src/device/cuda_backend.cpp) and by the timing anatomy
// (scripts/device/h4-anatomy), from this one place. Host only: it needs cuda.h's types, which the
// kernels do without; `encode` is cuTensorMapEncodeTiled or a pointer to it.
#pragma once

#include <cuda.h>

#include "h4_tiling.h"

// Encodes `map` over a rows x k byte matrix at `base` (row-major, k bytes a row), read in boxes
// of kH4SlabK bytes by box_rows rows.
template <class Encode>
CUresult encode_h4_tensor_map(Encode encode, CUtensorMap* map, const void* base,
                              unsigned long long k, unsigned long long rows, unsigned box_rows) {
  const cuuint64_t dims[2] = {k, rows};
  const cuuint64_t strides[1] = {k};
  const cuuint32_t box[2] = {kH4SlabK, box_rows}, element_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(base), dims, strides, box,
                element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}
