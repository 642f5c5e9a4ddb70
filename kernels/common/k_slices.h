// Split-K slice s of the call: K range [begin, end), slices of ceil(ceil(K / grain) / splits) *
// grain elements, the last one running to K (as split_k_slice in lib/src/profile/algorithm.cpp).
#pragma once

#include "scaled_mm_params.h"

__device__ inline void k_slice(const ScaledMmParams& p, int s, long long& begin, long long& end) {
  const long long grains = (p.k + p.split_grain - 1) / p.split_grain;
  const long long chunk = (grains + p.split_k - 1) / p.split_k * p.split_grain;
  begin = min(p.k, chunk * s);
  end = s == p.split_k - 1 ? p.k : min(p.k, chunk * (s + 1));
}
