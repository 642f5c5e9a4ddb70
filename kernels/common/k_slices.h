// Split-K slice bounds, one source for the kernels and the library (split_k_slice in
// lib/src/profile/algorithm.cpp). Slices of ceil(ceil(K / grain) / splits) * grain elements, the
// last one running to K. One exception, measured on the H200 with cuBLASLt 13.1 (sixth session of
// validation_logs/2026-12-03/split-k): when K = 16 mod grain and those slices leave the last one
// empty, the last 16 elements of K are never added (the recorded outputs equal the sum without
// them, and miss by thousands of ulp with them): the slice holding them ends at K - 16.
#pragma once

#include "host_device.h"
#include "scaled_mm_params.h"

MMAEMU_HD inline void split_k_bounds(long long k, int splits, int grain, int slice, long long& begin,
                                     long long& end) {
  const long long grains = (k + grain - 1) / grain;
  const long long chunk = (grains + splits - 1) / splits * grain;
  begin = chunk * slice < k ? chunk * slice : k;
  end = slice == splits - 1 ? k : (chunk * (slice + 1) < k ? chunk * (slice + 1) : k);
  const bool last_slice_empty = chunk * (splits - 1) >= k;
  if (k % grain == 16 && last_slice_empty && begin < k && end == k) end = k - 16;
}

#if defined(__CUDACC__)
__device__ inline void k_slice(const ScaledMmParams& p, int s, long long& begin, long long& end) {
  split_k_bounds(p.k, p.split_k, p.split_grain, s, begin, end);
}
#endif
