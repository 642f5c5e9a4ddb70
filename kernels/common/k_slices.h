// Split-K slice bounds, one source for the kernels and the library (split_k_slice in
// lib/src/profile/algorithm.cpp). Slices of ceil(ceil(K / grain) / splits) * grain elements, the
// last one running to K. One exception, measured on the H200 with cuBLASLt 13.1
// (validation_logs/2026-12-04/split-k): when K = 16 mod grain, the grains of K less the partial one
// divide evenly among the splits, and there are 17 splits or more, the last 16 elements of K are
// never added (the recorded outputs equal the sum without them): the slice holding them ends at
// K - 16. At 16 splits or fewer, with a remainder, or at K = 32..112 mod grain, they are added.
#pragma once

#include "host_device.h"
#include "scaled_mm_params.h"

MMAEMU_HD inline void split_k_bounds(long long k, int splits, int grain, int slice,
                                     long long& begin, long long& end) {
  const long long grains = (k + grain - 1) / grain;
  const long long chunk = (grains + splits - 1) / splits * grain;
  begin = chunk * slice < k ? chunk * slice : k;
  end = slice == splits - 1 ? k : (chunk * (slice + 1) < k ? chunk * (slice + 1) : k);
  const bool drops_tail = k % grain == 16 && splits >= 17 && (grains - 1) % splits == 0;
  if (drops_tail && begin < k && end == k) end = k - 16;
}

#if defined(__CUDACC__)
__device__ inline void k_slice(const ScaledMmParams& p, int s, long long& begin, long long& end) {
  split_k_bounds(p.k, p.split_k, p.split_grain, s, begin, end);
}
#endif
