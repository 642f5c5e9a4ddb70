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
constexpr int kH4SharedBytes = kH4Stages * kH4StageBytes;        // 160 KiB, dynamic
constexpr int kH4GroupTiles =
    8;  // tile rows per L2 group: the grid walks 8 rows of tiles at a time
