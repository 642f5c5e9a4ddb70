// v4: the fast portable kernel (any NVIDIA GPU from sm_75): v1's arithmetic, tiled
// (common/tiled_scaled_mm.h), the step's sums in 64-bit integers.
// Built with -fmad=false, every FP32 operation an explicit _rn intrinsic; no CUDA header.
#define MMAEMU_TILED_KERNEL v4_scaled_mm
#define MMAEMU_STEP_SUM long long
#include "tiled_scaled_mm.h"
