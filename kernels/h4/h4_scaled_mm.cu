// h4: the pipelined Hopper-native kernel (sm_90a): h1's arithmetic (the real wgmma FP8 step,
// chained within a promotion block; blocks added in FP32 round-to-nearest; v1's epilogue) at a
// larger tile with loads overlapped with the tensor core. A block of two warpgroups computes
// 128 x 128 outputs, each warpgroup 64 x 128 with wgmma.m64n128k32. K streams through a
// three-stage shared-memory ring of 64-element slabs filled by cp.async (16-byte copies,
// zero-filled past K and past the last row), so that the next slabs load while the tensor core
// works on this one. Scope, checked by the host: one split-K slice (h1 takes split calls) and K a
// multiple of 16 (16-byte aligned rows). Elements whose rows hold NaN/Inf codes (flag_special_rows)
// and FP8 outputs of an infinity go to the host's oracle. No CUDA header: NVRTC builds it for sm_90a.
#include "epilogue.h"
#include "scaled_mm_params.h"
#include "special_rows.h"
#include "wgmma_smem.h"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define MMAEMU_H4_WGMMA 1
#endif

namespace {

constexpr int kTileM = 128, kTileN = 128;  // outputs per block
constexpr int kStepK = 32;                 // K of one wgmma
constexpr int kSlabK = 64;                 // K per pipeline stage: two steps
constexpr int kStages = 3;
constexpr int kSubTileA = kTileM * kStepK;  // bytes of one 32-element step of A (core-matrix layout)
constexpr int kSubTileB = kTileN * kStepK;
constexpr int kStageBytes = (kSubTileA + kSubTileB) * (kSlabK / kStepK);  // 16 KiB

#ifdef MMAEMU_H4_WGMMA
// Starts the copies of slab `slab` (K from slab * 64) into stage `stage`: 1024 16-byte core-matrix
// rows (A's 128 rows and B's 128 rows, four 16-byte columns each), four per thread.
__device__ inline void load_slab(const ScaledMmParams& p, uint32_t stage_base, long long slab, long long row0,
                                 long long col0) {
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int chunk = threadIdx.x + u * 256;  // 0..1023
    const bool is_b = chunk >= 512;
    const int r = (chunk & 511) >> 2, column = chunk & 3;  // row in the tile, 16-byte column in the slab
    const long long row = (is_b ? col0 : row0) + r;
    const long long rows = is_b ? p.n : p.m;
    const long long col = slab * kSlabK + column * 16;
    const uint8_t* base = is_b ? p.b : p.a;
    const bool inside = row < rows && col < p.k;  // K is a multiple of 16: a row is all in or all out
    const uint8_t* src = inside ? base + row * p.k + col : base;
    const int step = column >> 1, half = column & 1;
    const uint32_t dst = stage_base + (is_b ? kSubTileA * 2 : 0) + step * (is_b ? kSubTileB : kSubTileA) +
                         core_matrix_offset(r, half * 16);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(inside ? 16 : 0) : "memory");
  }
}

__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ inline void wgmma_commit_and_wait() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

#define MMAEMU_H4_STEP(TYPES)                                                                   \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                    \
               "wgmma.mma_async.sync.aligned.m64n128k32.f32." TYPES " {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1;\n}" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])                                                                           \
               : "l"(da), "l"(db), "r"(scale_d))

// Pair: 0 e4m3.e4m3, 1 e4m3.e5m2, 2 e5m2.e4m3, 3 e5m2.e5m2.
template <int Pair>
__device__ inline void wgmma_step(float (&d)[64], uint64_t da, uint64_t db, int scale_d) {
  if constexpr (Pair == 0) MMAEMU_H4_STEP("e4m3.e4m3");
  else if constexpr (Pair == 1) MMAEMU_H4_STEP("e4m3.e5m2");
  else if constexpr (Pair == 2) MMAEMU_H4_STEP("e5m2.e4m3");
  else MMAEMU_H4_STEP("e5m2.e5m2");
}

template <int Pair>
__device__ void h4_tile(const ScaledMmParams& p) {
  __shared__ __align__(128) uint8_t ring[kStages * kStageBytes];
  const long long row0 = static_cast<long long>(blockIdx.y) * kTileM, col0 = static_cast<long long>(blockIdx.x) * kTileN;
  const int group = threadIdx.x >> 7;  // warpgroup: rows 64 * group .. of the tile
  const uint32_t ring_base = shared_address(ring);
  const long long slabs = (p.k + kSlabK - 1) / kSlabK;
  // A single chain is one block over all of K (one slice); else blocks of promotion_interval.
  const long long block = p.single_chain ? p.k : static_cast<long long>(p.promotion_interval);
  float acc[64], partial[64];
#pragma unroll
  for (int r = 0; r < 64; ++r) acc[r] = partial[r] = 0.0f;
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < slabs) load_slab(p, ring_base + s * kStageBytes, s, row0, col0);
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
  for (long long slab = 0; slab < slabs; ++slab) {
    asm volatile("cp.async.wait_group %0;" ::"n"(kStages - 2) : "memory");  // this slab has landed
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");             // visible to wgmma
    __syncthreads();  // every thread's copies landed; every warpgroup is done with the slab refilled next
    const long long next = slab + kStages - 1;
    if (next < slabs) load_slab(p, ring_base + (next % kStages) * kStageBytes, next, row0, col0);
    asm volatile("cp.async.commit_group;" ::: "memory");
    const uint32_t stage = ring_base + (slab % kStages) * kStageBytes;
#pragma unroll
    for (int q = 0; q < kSlabK / kStepK; ++q) {
      const long long k0 = slab * kSlabK + q * kStepK;
      if (k0 >= p.k) break;
      const long long offset = k0 % block;  // blocks start at multiples of 32 (checked by the host)
      wgmma_fence();
      wgmma_step<Pair>(acc, descriptor(stage + q * kSubTileA + group * (kSubTileA / 2)),
                       descriptor(stage + kSubTileA * 2 + q * kSubTileB), offset == 0 ? 0 : 1);
      const bool block_ends = offset + kStepK >= block || k0 + kStepK >= p.k;
      wgmma_commit_and_wait();
      if (block_ends) {
#pragma unroll
        for (int r = 0; r < 64; ++r) partial[r] = p.single_chain ? acc[r] : __fadd_rn(partial[r], acc[r]);
      }
    }
  }
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  // Fragment: warp w of the warpgroup holds rows 16w..16w+15; register 4c + 2h + e is row
  // 16w + lane/4 + 8h, column 8c + 2(lane%4) + e.
  const int warp = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31;
#pragma unroll
  for (int r = 0; r < 64; ++r) {
    const long long i = row0 + group * 64 + warp * 16 + (lane >> 2) + 8 * ((r >> 1) & 1);
    const long long j = col0 + 8 * (r >> 2) + 2 * (lane & 3) + (r & 1);
    if (i < p.m && j < p.n) store_element(p, i, j, partial[r], p.special_rows_a[i] | p.special_rows_b[j]);
  }
}
#endif

}  // namespace

#ifdef MMAEMU_H4_WGMMA
#define MMAEMU_H4_KERNEL(NAME, PAIR) \
  extern "C" __global__ void __launch_bounds__(256, 1) NAME(ScaledMmParams p) { h4_tile<PAIR>(p); }
#else
#define MMAEMU_H4_KERNEL(NAME, PAIR) \
  extern "C" __global__ void NAME(ScaledMmParams) { __trap(); }
#endif

MMAEMU_H4_KERNEL(h4_scaled_mm_e4m3_e4m3, 0)
MMAEMU_H4_KERNEL(h4_scaled_mm_e4m3_e5m2, 1)
MMAEMU_H4_KERNEL(h4_scaled_mm_e5m2_e4m3, 2)
MMAEMU_H4_KERNEL(h4_scaled_mm_e5m2_e5m2, 3)
