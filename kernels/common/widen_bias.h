// A pre-pass each scaled-mm module carries: the bias (n values, bf16 or f16 bits, where the caller
// keeps them) widened to f32 into the launcher's scratch, which the epilogue reads. On the device,
// so that a resident call brings nothing to the host; exact (output_convert.h's bias_bits_to_f32,
// checked against the exact codec by tests/unit/kernel_convert_test.cpp).
#pragma once

#include "output_convert.h"
#include "scaled_mm_params.h"

extern "C" __global__ void widen_bias(const uint16_t* bias, long long n, int f16, float* widened) {
  const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n) widened[j] = __uint_as_float(bias_bits_to_f32(bias[j], f16 != 0));
}
