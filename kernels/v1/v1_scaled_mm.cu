// v1: the simplest correct GPU emulation of torch._scaled_mm under a plan: one thread per output
// element, the same arithmetic as the fast CPU path (lib/src/cpu/fast_gemm.cpp): 64-bit integer
// block steps (alignment window, truncation toward zero, a truncated f32 result), promotion and
// split-K reduction in FP32 with round-to-nearest-even, then the epilogue. Elements the integer
// step cannot finish (subnormal or overflowing step results, FP8 outputs of an infinity) are
// flagged and the host computes them with the oracle, as it does for elements whose rows hold
// NaN/Inf codes (flagged as the codes are read).
// Built with -fmad=false, and every FP32 operation is an explicit _rn intrinsic: no contraction.
// No CUDA header: the same source builds with nvcc (the fatbin) and with NVRTC (the fallback).
#include "epilogue.h"
#include "scaled_mm_params.h"

namespace {

constexpr int kNoTerm = -500;

// One step over the codes ca[0..n), cb[0..n), decoded through the tables as they are read.
__device__ uint32_t fast_step(const ScaledMmParams& p, const uint8_t* ca, const uint8_t* cb, int n, uint32_t c,
                              bool& flag) {
  int max_exponent = kNoTerm;
  for (int i = 0; i < n; ++i)
    max_exponent = max(max_exponent, p.table_a[ca[i]].exponent + p.table_b[cb[i]].exponent);
  const uint32_t c_field = c & 0x7FFFFFFFu;
  long long c_significand = 0;
  int c_exponent = 0;
  if (c_field != 0) {
    const int biased = static_cast<int>(c_field >> 23);
    c_significand = biased ? (c_field & 0x7FFFFF) | 0x800000 : c_field;
    c_exponent = biased ? biased - 127 : -126;
    max_exponent = max(max_exponent, c_exponent);
  }
  if (max_exponent <= kNoTerm) return 0;
  max_exponent = max(max_exponent, p.exponent_floor);
  const int unit = max_exponent - p.alignment_bits;
  const int left = p.alignment_bits - p.product_fraction_bits;
  const int right_base = left + p.product_fraction_bits + unit;
  long long sum = 0;
  for (int i = 0; i < n; ++i) {
    const DecodedOperand a = p.table_a[ca[i]], b = p.table_b[cb[i]];
    const int32_t prod = int32_t{a.significand} * b.significand;
    const int32_t sign = prod >> 31;
    const unsigned long long magnitude = static_cast<uint32_t>((prod ^ sign) - sign);
    const int right = min(right_base - (a.exponent + b.exponent), 63);
    const long long t = static_cast<long long>((magnitude << left) >> right);
    sum += (t ^ sign) - sign;
  }
  if (c_significand != 0) {
    const int shift = c_exponent - 23 - unit;
    const unsigned long long t =
        shift >= 0 ? static_cast<unsigned long long>(c_significand) << shift
                   : (shift > -64 ? static_cast<unsigned long long>(c_significand) >> -shift : 0ull);
    sum += (c >> 31) ? -static_cast<long long>(t) : static_cast<long long>(t);
  }
  if (sum == 0) return 0;
  const bool negative = sum < 0;
  unsigned long long magnitude = static_cast<unsigned long long>(negative ? -sum : sum);
  const int top = 63 - __clzll(static_cast<long long>(magnitude));
  const int leading = unit + top;
  if (leading < -126 || leading > 127) {  // the exact encoder's cases: the host finishes them
    flag = true;
    return 0;
  }
  magnitude = top > p.result_bits ? magnitude >> (top - p.result_bits) : magnitude << (p.result_bits - top);
  const uint32_t fraction = static_cast<uint32_t>(magnitude - (1ull << p.result_bits)) << (23 - p.result_bits);
  return (negative ? 0x80000000u : 0u) | static_cast<uint32_t>(leading + 127) << 23 | fraction;
}

// Steps over [begin, end) of a row of A and a row of B, each step from the previous one's result.
__device__ uint32_t chain(const ScaledMmParams& p, const uint8_t* a, const uint8_t* b, long long begin, long long end,
                          uint32_t c, bool& flag) {
  for (long long s = begin; s < end; s += p.terms) {
    const int n = static_cast<int>(min(static_cast<long long>(p.terms), end - s));
    for (int x = 0; x < n; ++x) flag |= special_code(a[s + x], p.a_e5m2) | special_code(b[s + x], p.b_e5m2);
    c = fast_step(p, a + s, b + s, n, c, flag);
  }
  return c;
}

}  // namespace

extern "C" __global__ void v1_scaled_mm(ScaledMmParams p) {
  const long long index = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= p.m * p.n) return;
  const long long i = index / p.n, j = index % p.n;
  const uint8_t* row_a = p.a + i * p.k;
  const uint8_t* row_b = p.b + j * p.k;
  bool flag = false;
  float total = 0.0f;
  const long long grains = (p.k + p.split_grain - 1) / p.split_grain;
  const long long chunk = (grains + p.split_k - 1) / p.split_k * p.split_grain;
  for (int s = 0; s < p.split_k; ++s) {
    const long long begin = min(p.k, chunk * s);
    const long long end = s == p.split_k - 1 ? p.k : min(p.k, chunk * (s + 1));
    float partial;
    if (p.single_chain) {
      partial = __uint_as_float(chain(p, row_a, row_b, begin, end, 0, flag));
    } else {
      partial = 0.0f;
      for (long long start = begin; start < end; start += p.promotion_interval)
        partial = __fadd_rn(partial, __uint_as_float(chain(p, row_a, row_b, start, min(start + p.promotion_interval, end),
                                                          0, flag)));
    }
    total = s == 0 ? partial : __fadd_rn(total, partial);
  }
  store_element(p, i, j, total, flag);
}
