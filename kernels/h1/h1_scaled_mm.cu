// h1: torch._scaled_mm on Hopper (sm_90a) with the real tensor-core step. One warpgroup per
// 64 x 64 output tile issues wgmma.m64n64k32 FP8 for every 32 elements of K: the hardware's own
// block step (mmaemu probe showed it equals hopper_fp8_wgmma_k32 on 98,304 of 98,304 probed
// elements per operand pair, specials included), chained in the tensor core within a promotion
// block (scale-d 0 at the block's first step, 1 after), then the library's accumulation in
// software: blocks of promotion_interval elements added in FP32 round-to-nearest, split-K slices
// added in order, the epilogue of v1. K past a block's end is zero-filled: zero products change no
// step. Elements whose rows hold NaN/Inf codes (marked by the flag_special_rows pre-pass) and FP8
// outputs of an infinity are flagged and finished by the host's oracle.
// A and B go through shared memory in the no-swizzle K-major layout the probes used
// (common/wgmma_smem.h).
// Simple by design: synchronous loads of 128 elements of K, then up to four steps back to back;
// no pipelining of loads against steps.
// No CUDA header: NVRTC compiles it for sm_90a when the fatbin cannot be loaded.
#include "epilogue.h"
#include "k_slices.h"
#include "scaled_mm_params.h"
#include "special_elements.h"
#include "special_rows.h"
#include "wgmma_smem.h"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define MMAEMU_H1_WGMMA 1
#endif

namespace {

constexpr int kTileRows = 64;  // of A (M) and of B (N)
constexpr int kStepK = 32;     // K of one wgmma
constexpr int kLoadK = 128;  // K loaded into shared memory at a time: up to four steps per barrier
constexpr int kSubTileBytes = kTileRows * kStepK;

struct alignas(16) CoreRow {
  uint32_t word[4];
};

#ifdef MMAEMU_H1_WGMMA
// 64 rows x 128 codes of an operand (rows x k, row-major) from (row0, ks) into four 32-code
// sub-tiles of kSubTileBytes each; codes at or past `stop` (and rows past `rows`) are zeros.
// Thread t fills one 16-byte core-matrix row of each sub-tile.
__device__ inline void load_tile(uint8_t* tile, const uint8_t* src, long long rows, long long k,
                                 long long row0, long long ks, long long stop) {
  const int r = threadIdx.x >> 1, half = threadIdx.x & 1;
  const long long row = row0 + r;
#pragma unroll
  for (int q = 0; q < kLoadK / kStepK; ++q) {
    const long long col = ks + q * kStepK + half * 16;
    CoreRow v = {{0u, 0u, 0u, 0u}};
    if (row < rows && col < stop) {
      const uint8_t* s = src + row * k + col;
      if (col + 16 <= stop && (reinterpret_cast<unsigned long long>(s) & 15ull) == 0) {
        v = *reinterpret_cast<const CoreRow*>(s);
      } else {
        for (int b = 0; b < 16; ++b)
          if (col + b < stop) v.word[b >> 2] |= static_cast<uint32_t>(s[b]) << (8 * (b & 3));
      }
    }
    *reinterpret_cast<CoreRow*>(tile + q * kSubTileBytes + core_matrix_offset(r, half * 16)) = v;
  }
}

// One operand per register, as PTX lists them: kept as written.
// clang-format off
#define MMAEMU_H1_STEP(TYPES)                                                                  \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                   \
               "wgmma.mma_async.sync.aligned.m64n64k32.f32." TYPES " {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1;\n}" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])                                                                          \
               : "l"(da), "l"(db), "r"(scale_d))
// clang-format on

// One wgmma step: d = A_tile * B_tile (+ d when scale_d is 1). Pair: 0 e4m3.e4m3, 1 e4m3.e5m2,
// 2 e5m2.e4m3, 3 e5m2.e5m2.
template <int Pair>
__device__ inline void wgmma_step(float (&d)[32], uint64_t da, uint64_t db, int scale_d) {
  if constexpr (Pair == 0)
    MMAEMU_H1_STEP("e4m3.e4m3");
  else if constexpr (Pair == 1)
    MMAEMU_H1_STEP("e4m3.e5m2");
  else if constexpr (Pair == 2)
    MMAEMU_H1_STEP("e5m2.e4m3");
  else
    MMAEMU_H1_STEP("e5m2.e5m2");
}

template <int Pair>
__device__ void h1_tile(const ScaledMmParams& p) {
  __shared__ __align__(128) uint8_t tile_a[kTileRows * kLoadK];
  __shared__ __align__(128) uint8_t tile_b[kTileRows * kLoadK];
  const long long row0 = static_cast<long long>(blockIdx.y) * kTileRows;
  const long long col0 = static_cast<long long>(blockIdx.x) * kTileRows;
  const uint32_t sa = shared_address(tile_a), sb = shared_address(tile_b);
  float acc[32], partial[32], total[32];
#pragma unroll
  for (int r = 0; r < 32; ++r) acc[r] = total[r] = 0.0f;
  for (int s = 0; s < p.split_k; ++s) {
    long long begin, end;
    k_slice(p, s, begin, end);
    // A single chain is one block over the whole slice; an empty slice sums to +0.
    const long long block =
        p.single_chain ? max(end - begin, 1ll) : static_cast<long long>(p.promotion_interval);
#pragma unroll
    for (int r = 0; r < 32; ++r) partial[r] = 0.0f;
    for (long long start = begin; start < end; start += block) {
      const long long stop = min(start + block, end);
      for (long long ks = start; ks < stop; ks += kLoadK) {
        __syncthreads();  // every warp's previous steps have read the tiles
        load_tile(tile_a, p.a, p.m, p.k, row0, ks, stop);
        load_tile(tile_b, p.b, p.n, p.k, col0, ks, stop);
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        // The steps of this load, issued back to back: each chains on the previous one's D.
        const int steps = static_cast<int>((min(ks + kLoadK, stop) - ks + kStepK - 1) / kStepK);
        for (int q = 0; q < steps; ++q)
          wgmma_step<Pair>(acc, descriptor(sa + q * kSubTileBytes),
                           descriptor(sb + q * kSubTileBytes), ks == start && q == 0 ? 0 : 1);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      }
#pragma unroll
      for (int r = 0; r < 32; ++r)
        partial[r] = p.single_chain ? acc[r] : __fadd_rn(partial[r], acc[r]);
    }
#pragma unroll
    for (int r = 0; r < 32; ++r) total[r] = s == 0 ? partial[r] : __fadd_rn(total[r], partial[r]);
  }
  // The accumulator fragment: warp w holds rows 16w..16w+15; register 4c + 2h + e is row
  // 16w + lane/4 + 8h, column 8c + 2(lane%4) + e.
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const float alpha = tensorwise_alpha(p);
#pragma unroll
  for (int r = 0; r < 32; ++r) {
    const long long i = row0 + warp * 16 + (lane >> 2) + 8 * ((r >> 1) & 1);
    const long long j = col0 + 8 * (r >> 2) + 2 * (lane & 3) + (r & 1);
    if (i < p.m && j < p.n)
      store_element(p, alpha, i, j, total[r], p.special_rows_a[i] | p.special_rows_b[j]);
  }
}
#endif

}  // namespace

#ifdef MMAEMU_H1_WGMMA
#define MMAEMU_H1_KERNEL(NAME, PAIR)                                         \
  extern "C" __global__ void __launch_bounds__(128) NAME(ScaledMmParams p) { \
    h1_tile<PAIR>(p);                                                        \
  }
#else
#define MMAEMU_H1_KERNEL(NAME, PAIR)                \
  extern "C" __global__ void NAME(ScaledMmParams) { \
    __trap();                                       \
  }
#endif

MMAEMU_H1_KERNEL(h1_scaled_mm_e4m3_e4m3, 0)
MMAEMU_H1_KERNEL(h1_scaled_mm_e4m3_e5m2, 1)
MMAEMU_H1_KERNEL(h1_scaled_mm_e5m2_e4m3, 2)
MMAEMU_H1_KERNEL(h1_scaled_mm_e5m2_e5m2, 3)
