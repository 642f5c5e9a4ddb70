// What the Hopper modules (h1, h4) share to feed wgmma from shared memory: the shared-window
// address of a pointer, and the matrix descriptor of the no-swizzle K-major layout the probes
// established (8-row x 16-byte core matrices, core matrix (row group r, K half h) at byte
// (r * 2 + h) * 128: LBO 128 bytes from K half to K half, SBO 256 bytes from row group to row
// group). sm_90a only.
#pragma once

#include "scaled_mm_params.h"

__device__ inline uint32_t shared_address(const void* p) {
  uint32_t address;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(address) : "l"(p));
  return address;
}

__device__ inline uint64_t descriptor(uint32_t address) {
  return static_cast<uint64_t>((address >> 4) & 0x3FFF) | (static_cast<uint64_t>(128 >> 4) << 16) |
         (static_cast<uint64_t>(256 >> 4) << 32);
}

// The descriptor of a K-major operand stored with the 128-byte swizzle (rows of 128 bytes,
// eight-row groups 1024 bytes apart: SBO 1024; LBO unused for K-major swizzled layouts, set to 1 by
// convention; layout type 1 in bits 62-63). The address may start inside a row (the K offset of a
// step); the groups must be 1024-byte aligned.
__device__ inline uint64_t swizzled_descriptor(uint32_t address) {
  return static_cast<uint64_t>((address >> 4) & 0x3FFF) | (static_cast<uint64_t>(1) << 16) |
         (static_cast<uint64_t>(1024 >> 4) << 32) | (static_cast<uint64_t>(1) << 62);
}

// The byte offset of (row, byte k of a 32-byte step) in that layout.
__device__ inline int core_matrix_offset(int row, int k) {
  return ((row >> 3) * 2 + (k >> 4)) * 128 + (row & 7) * 16 + (k & 15);
}
