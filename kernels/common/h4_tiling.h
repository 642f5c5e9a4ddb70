// The h4 tiling, shared by the kernel (kernels/h4/h4_scaled_mm.cu) and its launcher
// (lib/src/device/cuda_backend.cpp), which sizes the grid and the dynamic shared memory from it.
#pragma once

#include "host_device.h"

// Outputs per block: 128 x 128 (two warpgroups of 64 x 128), or 64 x 128 (one warpgroup), the
// narrow tile for calls whose wide tiles would leave most of the GPU idle (h4_tile_rows).
constexpr int kH4TileM = 128, kH4NarrowTileM = 64, kH4TileN = 128;
constexpr int kH4SlabK = 128;  // K per pipeline stage: one promotion block of four steps
#ifndef MMAEMU_H4_STAGES       // overridden only by scripts/device/h4-anatomy builds
#define MMAEMU_H4_STAGES 5
#endif
constexpr int kH4Stages = MMAEMU_H4_STAGES;  // shared-memory ring depth
// A stage: A's tile_m rows of one slab, then B's 128 (32 KiB for the wide tile, 24 the narrow).
MMAEMU_HD constexpr int h4_stage_bytes(int tile_m) {
  return (tile_m + kH4TileN) * kH4SlabK;
}
// The ring and one mbarrier per stage after it: the kernel's dynamic shared memory.
MMAEMU_HD constexpr int h4_dynamic_shared_bytes(int tile_m) {
  return kH4Stages * h4_stage_bytes(tile_m) + 8 * kH4Stages;
}
// A warpgroup (128 threads) per 64 rows of the tile.
MMAEMU_HD constexpr int h4_threads(int tile_m) {
  return tile_m * 2;
}
constexpr int kH4StageBytes = h4_stage_bytes(kH4TileM);                   // 32 KiB
constexpr int kH4SharedBytes = kH4Stages * kH4StageBytes;                 // 160 KiB: the ring
constexpr int kH4DynamicSharedBytes = h4_dynamic_shared_bytes(kH4TileM);  // the wide tile's
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

// The blocks of h4's grid for an m x n output in `splits` split-K slices at tiles of tile_m rows:
// whole clusters (a tile past the last row of tiles computes nothing that is stored), times one
// block per slice. Host only: NVRTC, compiling the kernel, refuses a function without an
// execution space.
#ifndef __CUDACC_RTC__
inline long long h4_grid_blocks(long long m, long long n, int splits = 1, int tile_m = kH4TileM) {
  const long long tiles_m = (m + tile_m - 1) / tile_m, tiles_n = (n + kH4TileN - 1) / kH4TileN;
  return (tiles_m + kH4Cluster - 1) / kH4Cluster * kH4Cluster * tiles_n * splits;
}

// The tile height for a call on a GPU of `multiprocessors`: the narrow tile where the wide one
// leaves three quarters of the multiprocessors or more without a block and the narrow one has
// more blocks (a few long tiles, as 256 x 512 x 65536). A narrow block's one warpgroup computes
// half the tile in about the time the wide block's two take for all of it (on an H100 SXM,
// validation_logs/2026-12-07/special-on-device-h100): the narrow tile pays only where the wide one
// leaves most of the GPU idle, and never for an m of 64 or less (no more tiles). The bits are the
// same at either height: an element's sum does not depend on the tile that holds it.
inline int h4_tile_rows(long long m, long long n, int splits, int multiprocessors) {
  if (kH4Cluster > 1) return kH4TileM;  // the B-sharing candidate has the wide tile only
  const long long wide = h4_grid_blocks(m, n, splits);
  return 4 * wide <= multiprocessors && h4_grid_blocks(m, n, splits, kH4NarrowTileM) > wide
             ? kH4NarrowTileM
             : kH4TileM;
}
#endif

// The kernel's second parameter: a CUtensorMap for A (k x m bytes, innermost first) and one for B
// (k x n), read in boxes of 128 bytes of K by the tile's rows (B: kH4BoxRowsB) with the 128-byte
// swizzle. Opaque here (NVRTC builds the kernel without CUDA's headers); the launcher fills them
// with cuTensorMapEncodeTiled and checks that the layouts agree.
struct alignas(64) H4TensorMap {
  unsigned long long opaque[16];
};
struct H4TensorMaps {
  H4TensorMap a, b;
};
