// The few intrinsics the shared step arithmetic (integer_step.h) needs, spelled once for the GPU
// and once for the host. The host's FP32 add is IEEE round-to-nearest-even: the library compiles
// with -ffp-contract=off.
#pragma once

#include "host_device.h"

// MMAEMU_HD_INLINE: inlined into each caller. On the host always, so that the fast CPU path's
// per-ISA clones (target_clones) compile the step for their ISA.
#if defined(__CUDACC__)
#define MMAEMU_HD_INLINE __host__ __device__ inline
#else
#define MMAEMU_HD_INLINE [[gnu::always_inline]] inline
#endif

MMAEMU_HD_INLINE int leading_zeros32(unsigned int x) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(x));
#else
  return __builtin_clz(x);
#endif
}

MMAEMU_HD_INLINE int leading_zeros64(unsigned long long x) {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));
#else
  return __builtin_clzll(x);
#endif
}

MMAEMU_HD_INLINE float float_from_bits(unsigned int u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  return __builtin_bit_cast(float, u);
#endif
}

MMAEMU_HD_INLINE unsigned int bits_of_float(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  return __builtin_bit_cast(unsigned int, f);
#endif
}

MMAEMU_HD_INLINE float add_f32_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
