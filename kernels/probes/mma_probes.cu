// Live probes of single tensor-core instructions: each warp (or warpgroup, for wgmma) loads one
// tile of A, B and C from global memory into the instruction's fragments, issues the instruction
// once and stores D. The host crafts the tiles and compares D with the presets (mmaemu probe).
//
// Tile layouts in global memory, per tile t:
//   A: M x K row-major, B: N x K row-major (each column of the product is a row of B),
//   C and D: M x N row-major f32.
// Element sizes: 1 byte (e4m3/e5m2), 2 bytes (f16/bf16), 4 bytes (tf32 given as f32 bits).
#include <cstdint>

namespace {

__device__ uint32_t load_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

struct Fragment {
  int group, lane_in_group;  // groupID = lane / 4, threadID_in_group = lane % 4
};

__device__ Fragment fragment() {
  const int lane = threadIdx.x % 32;
  return {lane / 4, lane % 4};
}

// C/D of m16n8: c0,c1 at row g, columns 2t, 2t+1; c2,c3 at row g+8.
__device__ void load_c(const float* c, Fragment f, float (&r)[4]) {
  r[0] = c[f.group * 8 + f.lane_in_group * 2];
  r[1] = c[f.group * 8 + f.lane_in_group * 2 + 1];
  r[2] = c[(f.group + 8) * 8 + f.lane_in_group * 2];
  r[3] = c[(f.group + 8) * 8 + f.lane_in_group * 2 + 1];
}

__device__ void store_d(float* d, Fragment f, const float (&r)[4]) {
  d[f.group * 8 + f.lane_in_group * 2] = r[0];
  d[f.group * 8 + f.lane_in_group * 2 + 1] = r[1];
  d[(f.group + 8) * 8 + f.lane_in_group * 2] = r[2];
  d[(f.group + 8) * 8 + f.lane_in_group * 2 + 1] = r[3];
}

}  // namespace

// mma.sync m16n8k32 with FP8 operands (sm_89 and later). One warp per tile.
#define MMAEMU_MMA_FP8(NAME, ATYPE, BTYPE)                                                      \
  extern "C" __global__ void NAME(const uint8_t* a, const uint8_t* b, const float* c, float* d, \
                                  int tiles) {                                                  \
    const int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;                         \
    if (tile >= tiles) return;                                                                  \
    MMAEMU_MMA_FP8_BODY(ATYPE, BTYPE)                                                           \
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define MMAEMU_MMA_FP8_BODY(ATYPE, BTYPE)                                           \
  const Fragment f = fragment();                                                    \
  const uint8_t* at = a + size_t(tile) * 16 * 32;                                   \
  const uint8_t* bt = b + size_t(tile) * 8 * 32;                                    \
  const uint32_t a0 = load_u32(at + f.group * 32 + f.lane_in_group * 4);            \
  const uint32_t a1 = load_u32(at + (f.group + 8) * 32 + f.lane_in_group * 4);      \
  const uint32_t a2 = load_u32(at + f.group * 32 + 16 + f.lane_in_group * 4);       \
  const uint32_t a3 = load_u32(at + (f.group + 8) * 32 + 16 + f.lane_in_group * 4); \
  const uint32_t b0 = load_u32(bt + f.group * 32 + f.lane_in_group * 4);            \
  const uint32_t b1 = load_u32(bt + f.group * 32 + 16 + f.lane_in_group * 4);       \
  float r[4];                                                                       \
  load_c(c + size_t(tile) * 128, f, r);                                             \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." ATYPE "." BTYPE             \
               ".f32 "                                                              \
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"              \
               : "+f"(r[0]), "+f"(r[1]), "+f"(r[2]), "+f"(r[3])                     \
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));             \
  store_d(d + size_t(tile) * 128, f, r);
#else
#define MMAEMU_MMA_FP8_BODY(ATYPE, BTYPE) __trap();
#endif

MMAEMU_MMA_FP8(probe_mma_m16n8k32_e4m3_e4m3, "e4m3", "e4m3")
MMAEMU_MMA_FP8(probe_mma_m16n8k32_e4m3_e5m2, "e4m3", "e5m2")
MMAEMU_MMA_FP8(probe_mma_m16n8k32_e5m2_e4m3, "e5m2", "e4m3")
MMAEMU_MMA_FP8(probe_mma_m16n8k32_e5m2_e5m2, "e5m2", "e5m2")

// mma.sync m16n8k16 with f16 or bf16 operands (sm_80 and later): two elements per register.
#define MMAEMU_MMA_16BIT(NAME, TYPE)                                                            \
  extern "C" __global__ void NAME(const uint8_t* a, const uint8_t* b, const float* c, float* d, \
                                  int tiles) {                                                  \
    const int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;                         \
    if (tile >= tiles) return;                                                                  \
    const Fragment f = fragment();                                                              \
    const uint8_t* at = a + size_t(tile) * 16 * 16 * 2;                                         \
    const uint8_t* bt = b + size_t(tile) * 8 * 16 * 2;                                          \
    const uint32_t a0 = load_u32(at + (f.group * 16 + f.lane_in_group * 2) * 2);                \
    const uint32_t a1 = load_u32(at + ((f.group + 8) * 16 + f.lane_in_group * 2) * 2);          \
    const uint32_t a2 = load_u32(at + (f.group * 16 + 8 + f.lane_in_group * 2) * 2);            \
    const uint32_t a3 = load_u32(at + ((f.group + 8) * 16 + 8 + f.lane_in_group * 2) * 2);      \
    const uint32_t b0 = load_u32(bt + (f.group * 16 + f.lane_in_group * 2) * 2);                \
    const uint32_t b1 = load_u32(bt + (f.group * 16 + 8 + f.lane_in_group * 2) * 2);            \
    float r[4];                                                                                 \
    load_c(c + size_t(tile) * 128, f, r);                                                       \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TYPE "." TYPE                         \
                 ".f32 "                                                                        \
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                        \
                 : "+f"(r[0]), "+f"(r[1]), "+f"(r[2]), "+f"(r[3])                               \
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));                       \
    store_d(d + size_t(tile) * 128, f, r);                                                      \
  }

MMAEMU_MMA_16BIT(probe_mma_m16n8k16_f16, "f16")
MMAEMU_MMA_16BIT(probe_mma_m16n8k16_bf16, "bf16")

// mma.sync m16n8k8 with tf32 operands (sm_80 and later), given as f32 bits.
extern "C" __global__ void probe_mma_m16n8k8_tf32(const uint8_t* a, const uint8_t* b,
                                                  const float* c, float* d, int tiles) {
  const int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (tile >= tiles) return;
  const Fragment f = fragment();
  const uint8_t* at = a + size_t(tile) * 16 * 8 * 4;
  const uint8_t* bt = b + size_t(tile) * 8 * 8 * 4;
  const uint32_t a0 = load_u32(at + (f.group * 8 + f.lane_in_group) * 4);
  const uint32_t a1 = load_u32(at + ((f.group + 8) * 8 + f.lane_in_group) * 4);
  const uint32_t a2 = load_u32(at + (f.group * 8 + 4 + f.lane_in_group) * 4);
  const uint32_t a3 = load_u32(at + ((f.group + 8) * 8 + 4 + f.lane_in_group) * 4);
  const uint32_t b0 = load_u32(bt + (f.group * 8 + f.lane_in_group) * 4);
  const uint32_t b1 = load_u32(bt + (f.group * 8 + 4 + f.lane_in_group) * 4);
  float r[4];
  load_c(c + size_t(tile) * 128, f, r);
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+f"(r[0]), "+f"(r[1]), "+f"(r[2]), "+f"(r[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  store_d(d + size_t(tile) * 128, f, r);
}

// wgmma.mma_async m64n8k32 with FP8 operands (sm_90a). One warpgroup (128 threads) per tile; A and
// B go through shared memory in the no-swizzle K-major layout: 8-row x 16-byte core matrices,
// core matrix (row group r, K half h) at byte (r * 2 + h) * 128, so the K-direction stride (LBO)
// is 128 bytes and the row-group stride (SBO) 256. scale_d = 0 asks for D = A*B (C unread).
#define MMAEMU_WGMMA_FP8(NAME, ATYPE, BTYPE)                                                     \
  extern "C" __global__ void __launch_bounds__(128)                                              \
      NAME(const uint8_t* a, const uint8_t* b, const float* c, float* d, int tiles, int scale_d, \
           int lbo, int sbo) {                                                                   \
    MMAEMU_WGMMA_FP8_BODY(ATYPE, BTYPE)                                                          \
  }

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ uint64_t smem_descriptor(const void* p, int lbo, int sbo) {
  const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  return (uint64_t((address >> 4) & 0x3FFF)) | (uint64_t((lbo >> 4) & 0x3FFF) << 16) |
         (uint64_t((sbo >> 4) & 0x3FFF) << 32);  // base offset 0, swizzle mode 0 (none)
}

__device__ int core_matrix_offset(int row, int k) {
  return ((row / 8) * 2 + k / 16) * 128 + (row % 8) * 16 + k % 16;
}

#define MMAEMU_WGMMA_FP8_BODY(ATYPE, BTYPE)                                                        \
  __shared__ __align__(128) uint8_t sa[64 * 32];                                                   \
  __shared__ __align__(128) uint8_t sb[8 * 32];                                                    \
  const int tile = blockIdx.x;                                                                     \
  if (tile >= tiles) return;                                                                       \
  const uint8_t* at = a + size_t(tile) * 64 * 32;                                                  \
  const uint8_t* bt = b + size_t(tile) * 8 * 32;                                                   \
  for (int i = threadIdx.x; i < 64 * 32; i += 128) sa[core_matrix_offset(i / 32, i % 32)] = at[i]; \
  for (int i = threadIdx.x; i < 8 * 32; i += 128) sb[core_matrix_offset(i / 32, i % 32)] = bt[i];  \
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                                     \
  __syncthreads();                                                                                 \
  const int warp = threadIdx.x / 32;                                                               \
  const Fragment f = fragment();                                                                   \
  const float* ct = c + size_t(tile) * 64 * 8 + warp * 16 * 8;                                     \
  float r[4];                                                                                      \
  load_c(ct, f, r);                                                                                \
  const uint64_t da = smem_descriptor(sa, lbo, sbo), db = smem_descriptor(sb, lbo, sbo);           \
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");                                          \
  asm volatile(                                                                                    \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"                                                  \
      "wgmma.mma_async.sync.aligned.m64n8k32.f32." ATYPE "." BTYPE                                 \
      " {%0,%1,%2,%3}, %4, %5, p, 1, 1;\n}"                                                        \
      : "+f"(r[0]), "+f"(r[1]), "+f"(r[2]), "+f"(r[3])                                             \
      : "l"(da), "l"(db), "r"(scale_d));                                                           \
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");                                   \
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");                                   \
  store_d(d + size_t(tile) * 64 * 8 + warp * 16 * 8, f, r);
#else
#define MMAEMU_WGMMA_FP8_BODY(ATYPE, BTYPE) __trap();
#endif

MMAEMU_WGMMA_FP8(probe_wgmma_m64n8k32_e4m3_e4m3, "e4m3", "e4m3")
MMAEMU_WGMMA_FP8(probe_wgmma_m64n8k32_e4m3_e5m2, "e4m3", "e5m2")
MMAEMU_WGMMA_FP8(probe_wgmma_m64n8k32_e5m2_e4m3, "e5m2", "e4m3")
MMAEMU_WGMMA_FP8(probe_wgmma_m64n8k32_e5m2_e5m2, "e5m2", "e5m2")
