// Split-K slice bounds, one source for the kernels and the library (split_k_slice in
// lib/src/profile/algorithm.cpp). Slices of ceil(ceil(K / grain) / splits) * grain elements, the
// last one running to K. One exception, measured on the H200 with cuBLASLt 13.1
// (validation_logs/2026-12-04/split-k): when K = 16 mod grain, the whole grains of K (all but the
// partial last one) divide evenly among 17 splits or more, the slices are those whole grains in
// equal parts and the last 16 elements of K are never added (the recorded outputs equal that sum,
// bit for bit with fast accumulation too, where the slice boundaries show). At 16 splits or fewer,
// with a remainder, or at K = 32..112 mod grain, the rule above holds.
#pragma once

#include "host_device.h"
#include "scaled_mm_params.h"

MMAEMU_HD inline void split_k_bounds(long long k, int splits, int grain, int slice,
                                     long long& begin, long long& end) {
  const long long grains = (k + grain - 1) / grain;
  if (k % grain == 16 && splits >= 17 && (grains - 1) % splits == 0) {
    const long long whole = (grains - 1) / splits * grain;
    begin = whole * slice;
    end = whole * (slice + 1);  // the last slice ends at K - 16
    return;
  }
  const long long chunk = (grains + splits - 1) / splits * grain;
  begin = chunk * slice < k ? chunk * slice : k;
  end = slice == splits - 1 ? k : (chunk * (slice + 1) < k ? chunk * (slice + 1) : k);
}

#if defined(__CUDACC__)
__device__ inline void k_slice(const ScaledMmParams& p, int s, long long& begin, long long& end) {
  split_k_bounds(p.k, p.split_k, p.split_grain, s, begin, end);
}
#endif
