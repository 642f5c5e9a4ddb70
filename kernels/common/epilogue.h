// The epilogue of torch._scaled_mm as the kernels compute it, after the FP32 sum of an element:
// the scales (tensorwise folded into alpha, or rowwise in the algorithm's order), the bias, and
// the output conversion. Every FP32 operation is an explicit _rn intrinsic: no contraction. The
// scales are read as the caller's f32 words and the bias as widen_bias made it, on the device, so
// that a call on resident data never brings them to the host.
#pragma once

#include "output_convert.h"
#include "scaled_mm_params.h"
#include "widen_bias.h"

// The output bits of y in output format Format (0 f32, 1 bf16, 2 f16, 3 f8_e4m3, 4 f8_e5m2);
// `flag` asks the host's exact codec to finish FP8 outputs of an infinity. A kernel that converts
// a whole tile picks the format once (h4), so that its unrolled loop holds one format's code.
template <int Format>
__device__ inline uint32_t output_bits_as(float y, bool& flag) {
  const uint32_t bits = __float_as_uint(y);
  if constexpr (Format == 0) {
    return y != y ? 0x7FFFFFFFu : bits;
  } else if constexpr (Format == 1) {
    return y != y ? 0x7FFFu : (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
  } else if constexpr (Format == 2) {
    return y != y ? 0x7FFFu : f32_to_f16_bits(bits);
  } else {
    if (y != y) return 0x7Fu;
    if ((bits & 0x7FFFFFFFu) == 0x7F800000u) {  // infinity: the exact codec decides
      flag = true;
      return 0;
    }
    return f32_to_fp8_bits(bits, Format == 3);
  }
}

__device__ inline uint32_t output_bits(int format, float y, bool& flag) {
  switch (format) {
    case 0:
      return output_bits_as<0>(y, flag);
    case 1:
      return output_bits_as<1>(y, flag);
    case 2:
      return output_bits_as<2>(y, flag);
    case 3:
      return output_bits_as<3>(y, flag);
    default:
      return output_bits_as<4>(y, flag);
  }
}

// Bytes of one output element in out_format.
__device__ constexpr int output_bytes(int format) {
  return format == 0 ? 4 : format <= 2 ? 2 : 1;
}

// The tensorwise factor fl32(scale_a x scale_b) from the two scale words (0 when rowwise). A
// thread reads it once, before its elements: the loads cannot be hoisted past the output stores
// by the compiler (they may alias).
__device__ inline float tensorwise_alpha(const ScaledMmParams& p) {
  return p.rowwise ? 0.0f : __fmul_rn(__uint_as_float(p.scale_a[0]), __uint_as_float(p.scale_b[0]));
}

// The scales and the bias of element (i, j) whose FP32 sum is `total`, in FP32; alpha: the
// thread's tensorwise_alpha(p).
__device__ inline float scaled_element(const ScaledMmParams& p, float alpha, long long i,
                                       long long j, float total) {
  float y;
  if (!p.rowwise) {
    y = __fmul_rn(total, alpha);
  } else {
    const float sa = __uint_as_float(p.scale_a[i]), sb = __uint_as_float(p.scale_b[j]);
    y = p.column_first ? __fmul_rn(__fmul_rn(total, sb), sa) : __fmul_rn(__fmul_rn(total, sa), sb);
  }
  if (p.bias) y = __fadd_rn(y, p.bias[j]);
  return y;
}

// Scales, bias and conversion of element (i, j) whose FP32 sum is `total`: its output bits (the
// low output_bytes of them); sets `flag` for FP8 outputs of an infinity.
__device__ inline uint32_t element_bits(const ScaledMmParams& p, float alpha, long long i,
                                        long long j, float total, bool& flag) {
  return output_bits(p.out_format, scaled_element(p, alpha, i, j, total), flag);
}

// Stores element (i, j) and its host-fallback flag (set by the caller for rows with NaN/Inf, or by
// element_bits for FP8 infinities).
__device__ inline void store_element(const ScaledMmParams& p, float alpha, long long i, long long j,
                                     float total, bool flag) {
  const uint32_t bits = element_bits(p, alpha, i, j, total, flag);
  const long long index = i * p.n + j;
  const int bytes = output_bytes(p.out_format);
  for (int q = 0; q < bytes; ++q) p.out[index * bytes + q] = static_cast<uint8_t>(bits >> (8 * q));
  p.fallback[index] = flag;
  if (flag) atomicAdd(p.flagged, 1u);
}
