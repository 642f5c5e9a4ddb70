// The parameters of a scaled-mm kernel (v1, h1), shared by the kernels and the host launcher
// (lib/src/device/cuda_backend.cpp): one struct passed by value.
#pragma once

#if defined(__CUDACC_RTC__)
// NVRTC compiles without the C library's headers.
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
#include <stdint.h>
#endif

struct DecodedOperand {
  int16_t significand;  // signed; 0 for zeros (and for NaN/Inf, whose rows the host computes)
  int16_t exponent;     // alignment exponent (min_exponent for subnormals); -1000 for zeros
};

struct ScaledMmParams {
  const uint8_t* a;               // m x k codes
  const uint8_t* b;               // n x k codes
  const DecodedOperand* table_a;  // 256 entries: the decoded codes of a's format (v1)
  const DecodedOperand* table_b;
  const uint32_t* scale_a;  // f32 bits: m values (rowwise), else one (tensorwise)
  const uint32_t* scale_b;  // n values (rowwise), else one
  const float* bias;        // n values widened to f32 on the device (widen_bias), or null
  uint8_t* out;             // m x n in out_format
  uint8_t* fallback;        // m x n flags: the host computes these elements with the oracle
  unsigned int* flagged;    // how many elements are flagged (the host reads the flags only if any)
  const uint8_t* special_rows_a;  // m flags: rows of a holding NaN/Inf codes (flag_special_rows)
  const uint8_t* special_rows_b;  // n flags: rows of b
  long long m, n, k;
  int rowwise, column_first;
  int out_format;  // 0 f32, 1 bf16, 2 f16, 3 f8_e4m3, 4 f8_e5m2
  int terms, alignment_bits, product_fraction_bits, result_bits, exponent_floor;
  int single_chain, promotion_interval, split_k, split_grain;
  int late_c;  // c enters after the block: fl32_rne(block + c) (blackwell_fp8_mma_k32)
};
