// v9: v4's successor (issue 15), v4's tiling and arithmetic (common/tiled_scaled_mm.h) with the
// step's sums in 32-bit integers, for the presets whose terms and sums fit them (narrow_sum_fits,
// which the launcher's choice checks: the Hopper FP8 step, 32 terms in a 13-bit window, does; v4
// takes the others). A GPU does a 64-bit add, shift or compare as two or more 32-bit
// instructions, and the step's loop is those; the integer_step<int> it runs is the one the fast CPU
// path runs (its lanes are tested against it, and the fast path against the oracle). v4 stays the
// reference until v9 passes conform on a GPU: `--backend cuda` does not pick v9 yet. Built with
// -fmad=false, every FP32 operation an explicit _rn intrinsic; no CUDA header.
#define MMAEMU_TILED_KERNEL v9_scaled_mm
#define MMAEMU_STEP_SUM int
#include "tiled_scaled_mm.h"
