// The h4 tiling, shared by the kernel (kernels/h4/h4_scaled_mm.cu) and its launcher
// (lib/src/device/cuda_backend.cpp), which sizes the grid and the dynamic shared memory from it.
#pragma once

constexpr int kH4TileM = 128, kH4TileN = 128;  // outputs per block: two warpgroups of 64 x 128
constexpr int kH4SlabK = 128;  // K per pipeline stage: one promotion block of four steps
#ifndef MMAEMU_H4_STAGES       // overridden only by scripts/device/h4-anatomy builds
#define MMAEMU_H4_STAGES 5
#endif
constexpr int kH4Stages = MMAEMU_H4_STAGES;                      // shared-memory ring depth
constexpr int kH4StageBytes = (kH4TileM + kH4TileN) * kH4SlabK;  // 32 KiB
constexpr int kH4SharedBytes = kH4Stages * kH4StageBytes;        // 160 KiB: the ring
// The ring and one mbarrier per stage after it: the kernel's dynamic shared memory.
constexpr int kH4DynamicSharedBytes = kH4SharedBytes + 8 * kH4Stages;
#ifndef MMAEMU_H4_GROUP_TILES  // overridden only by scripts/device/h4-anatomy builds
#define MMAEMU_H4_GROUP_TILES 8
#endif
// Tile rows per L2 group: the grid walks 8 rows of tiles at a time.
constexpr int kH4GroupTiles = MMAEMU_H4_GROUP_TILES;
#ifndef MMAEMU_H4_CLUSTER  // candidate (scripts/device/h4-anatomy): 2 shares B within a cluster
#define MMAEMU_H4_CLUSTER 1
#endif
// Blocks per cluster: the blocks of a cluster compute tiles of consecutive rows of tiles with the
// same columns, and each copies its share of the B box into all of them (TMA multicast).
constexpr int kH4Cluster = MMAEMU_H4_CLUSTER;
constexpr int kH4BoxRowsB = kH4TileN / kH4Cluster;  // rows of B's box, per block
// Split-K slices per tile: one block each, the tile's blocks one cluster (8: the largest cluster
// every sm_90 GPU schedules). The B-sharing candidate (kH4Cluster > 1) runs one slice only.
constexpr int kH4MaxSplits = kH4Cluster == 1 ? 8 : 1;

// The blocks of h4's grid for an m x n output in `splits` split-K slices: whole clusters (a tile
// past the last row of tiles computes nothing that is stored), times one block per slice. Host
// only: NVRTC, compiling the kernel, refuses a function without an execution space.
#ifndef __CUDACC_RTC__
inline long long h4_grid_blocks(long long m, long long n, int splits = 1) {
  const long long tiles_m = (m + kH4TileM - 1) / kH4TileM, tiles_n = (n + kH4TileN - 1) / kH4TileN;
  return (tiles_m + kH4Cluster - 1) / kH4Cluster * kH4Cluster * tiles_n * splits;
}
#endif

// The kernel's second parameter: a CUtensorMap for A (k x m bytes, innermost first) and one for B
// (k x n), read in boxes of 128 bytes of K by 128 rows (B: kH4BoxRowsB) with the 128-byte swizzle.
// Opaque here (NVRTC builds the kernel without CUDA's headers); the launcher fills them with
// cuTensorMapEncodeTiled and checks that the layouts agree.
struct alignas(64) H4TensorMap {
  unsigned long long opaque[16];
};
struct H4TensorMaps {
  H4TensorMap a, b;
};
