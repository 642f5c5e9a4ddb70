// Float to f16 and FP8 conversion (and the bias's widening to f32) in integer arithmetic (round to
// nearest even; FP8 saturating), so that the kernels need no CUDA header and build with NVRTC
// alone. Compiled for the host too: tests/unit/kernel_convert_test.cpp checks them against the
// exact codec.
#pragma once

#include "f32_bits.h"
#include "host_device.h"

// f32 bits (not NaN) to f16 bits.
MMAEMU_HD inline unsigned int f32_to_f16_bits(unsigned int x) {
  const unsigned int sign = (x >> 16) & 0x8000u, ax = x & 0x7FFFFFFFu;
  if (ax >= 0x477FF000u) return sign | 0x7C00u;  // from 65520 (the tie above 65504) up: infinity
  if (ax >= 0x38800000u) {                       // normal f16: at least 2^-14
    const unsigned int rounded = ax + 0xFFFu + ((ax >> 13) & 1u);
    return sign | ((rounded - 0x38000000u) >> 13);
  }
  const int e = static_cast<int>(ax >> 23);
  if (e < 102) return sign;  // below 2^-25: zero
  const unsigned int m = (ax & 0x7FFFFFu) | 0x800000u;
  const int shift = 126 - e;  // 14..24: units of 2^-24
  unsigned int r = m >> shift;
  const unsigned int rest = m & ((1u << shift) - 1u), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (r & 1u))) ++r;
  return sign | r;
}

// f32 bits (finite) to FP8 bits, saturating at the largest finite value: e4m3 (exponent_bits 4,
// bias 7, largest 0x7E) or e5m2 (5, 15, 0x7B).
MMAEMU_HD inline unsigned int f32_to_fp8_bits(unsigned int x, bool e4m3) {
  const int mantissa_bits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const unsigned int largest = e4m3 ? 0x7Eu : 0x7Bu;
  const unsigned int sign = (x >> 24) & 0x80u, ax = x & 0x7FFFFFFFu;
  if (ax < 0x00800000u) return sign;  // zero and f32 subnormals: far below FP8's range
  const int e = static_cast<int>(ax >> 23) - 127;
  if (e > 15 + 1) return sign | largest;
  const unsigned long long m = (ax & 0x7FFFFFu) | 0x800000u;
  const int min_exponent = 1 - bias;
  int shift = 23 - mantissa_bits;
  if (e < min_exponent) shift += min_exponent - e;
  if (shift > 40) return sign;
  unsigned long long r = m >> shift;
  const unsigned long long rest = m & ((1ull << shift) - 1ull), half = 1ull << (shift - 1);
  if (rest > half || (rest == half && (r & 1ull))) ++r;
  unsigned long long code;
  if (e < min_exponent)
    code = r;  // subnormal (r = 2^mantissa_bits is the smallest normal)
  else
    code = (static_cast<unsigned long long>(e + bias) << mantissa_bits) +
           (r - (1ull << mantissa_bits));
  return sign | static_cast<unsigned int>(code > largest ? largest : code);
}

// A bias element's bits widened to f32 bits, exactly: bf16 (the upper half of an f32) or f16
// (subnormals normalised; infinities and NaNs keep their class, NaNs quieted). The kernels read the
// bias in its own format (widen_bias.h) so that a resident call brings nothing to the host.
MMAEMU_HD inline unsigned int bias_bits_to_f32(unsigned int h, bool f16) {
  if (!f16) return h << 16;
  const unsigned int sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, f = h & 0x3FFu;
  if (e == 0x1F) return sign | 0x7F800000u | (f ? 0x400000u | f << 13 : 0u);
  if (e != 0) return sign | (e + 112u) << 23 | f << 13;
  // Zero or subnormal: f x 2^-24, exact in f32 (f has 10 bits).
  return sign | bits_of_float(static_cast<float>(f) * 5.9604644775390625e-8f);
}
