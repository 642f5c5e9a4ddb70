// The CUDA C++ that the portable kernels (v1, v4, v9) are written in, for the host compiler: the
// kernels compile unchanged as C++ and run on the CPU, every CUDA thread of a block an OS thread,
// __syncthreads a barrier, one block at a time (so that a block's shared memory can be the one
// static array). With the fake driver of host_driver.hpp the whole CUDA backend (launcher, pre-
// passes, kernels, special pass) runs on a machine without a GPU, and tests compare its bits with
// the oracle's. Written by hand: no library emulates CUDA's dialect on the host.
//
// Included before a module's .cu; it defines __CUDACC__ and __CUDA_ARCH__ (the kernels' device
// branches, not the host reference branches of the shared helpers), and MMAEMU_HOST_SHARED is
// set to `static` for a module whose kernels declare block-local __shared__ arrays, or to nothing
// for one that takes its shared memory from `extern __shared__` (host_module.cpp's array).
#pragma once

#include <atomic>
#include <barrier>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>

// The kernels' device branches: the target sets MMAEMU_HOST_CUDA_ARCH (900: sm_90's DPX paths).
#define __CUDACC__ 1
#define __CUDA_ARCH__ MMAEMU_HOST_CUDA_ARCH
#define __host__
#define __device__
#define __global__
#define __forceinline__ inline
#define __constant__
#define __shared__ MMAEMU_HOST_SHARED
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
};
struct alignas(8) uint2 {
  unsigned int x, y;
};
struct alignas(16) uint4 {
  unsigned int x, y, z, w;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) {
  return {x, y, z, w};
}

// The running thread's coordinates (set by the block runner before the kernel starts).
inline thread_local uint3 threadIdx, blockIdx;
inline thread_local dim3 blockDim, gridDim;

namespace host_simt {

// The running block's barrier and its warps' vote words (the block runner sets them).
struct BlockSync {
  std::barrier<>* block = nullptr;
  std::deque<std::barrier<>>* warps = nullptr;  // one per warp of 32 threads
  std::atomic<unsigned>* votes = nullptr;       // one per warp
};
inline thread_local BlockSync sync;

}  // namespace host_simt

inline void __syncthreads() {
  host_simt::sync.block->arrive_and_wait();
}

// Every lane of the warp calls it (the kernels do): each ORs its predicate into the warp's word,
// all read it, then lane 0 clears it for the next vote.
inline int __any_sync(unsigned int, int predicate) {
  const unsigned warp = threadIdx.x / 32;
  auto& word = host_simt::sync.votes[warp];
  auto& barrier = (*host_simt::sync.warps)[warp];
  if (predicate) word.fetch_or(1u);
  barrier.arrive_and_wait();
  const int any = word.load() != 0;
  barrier.arrive_and_wait();
  if (threadIdx.x % 32 == 0) word.store(0u);
  barrier.arrive_and_wait();
  return any;
}

inline unsigned int atomicAdd(unsigned int* at, unsigned int v) {
  return std::atomic_ref<unsigned int>(*at).fetch_add(v);
}
inline unsigned int atomicSub(unsigned int* at, unsigned int v) {
  return std::atomic_ref<unsigned int>(*at).fetch_sub(v);
}

// CUDA's overloads of min and max for the integer types the kernels mix.
inline int min(int a, int b) {
  return a < b ? a : b;
}
inline int max(int a, int b) {
  return a > b ? a : b;
}
inline long long min(long long a, long long b) {
  return a < b ? a : b;
}
inline long long max(long long a, long long b) {
  return a > b ? a : b;
}
inline unsigned int min(unsigned int a, unsigned int b) {
  return a < b ? a : b;
}
inline unsigned int max(unsigned int a, unsigned int b) {
  return a > b ? a : b;
}

// Byte n of the result is byte (s >> 4n) & 7 of the eight bytes y:x.
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long bytes = static_cast<unsigned long long>(y) << 32 | x;
  unsigned int out = 0;
  for (int n = 0; n < 4; ++n)
    out |= static_cast<unsigned int>(bytes >> 8 * ((s >> 4 * n) & 7) & 0xFF) << 8 * n;
  return out;
}

inline float __uint_as_float(unsigned int u) {
  return std::bit_cast<float>(u);
}
inline unsigned int __float_as_uint(float f) {
  return std::bit_cast<unsigned int>(f);
}
inline int __clz(int x) {
  return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x));
}
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}

// FP32 arithmetic in round-to-nearest-even: the translation unit compiles with
// -ffp-contract=off, so each is one rounded operation.
inline float __fadd_rn(float a, float b) {
  return a + b;
}
inline float __fsub_rn(float a, float b) {
  return a - b;
}
inline float __fmul_rn(float a, float b) {
  return a * b;
}
inline int __float2int_rz(float f) {  // the kernels convert integers below 2^24: exact
  return static_cast<int>(f);
}

// a x b + c rounded once toward zero, for finite operands and a result in FP32's normal range:
// a x b is exact in double (48 significant bits), and TwoSum gives the sum s rounded to nearest
// and its exact error e; the FP32 nearest to s, stepped once toward zero where it lies beyond
// s + e, is the sum truncated. (No rounding mode is changed: GCC's binary128 ignores it.)
inline float __fmaf_rz(float a, float b, float c) {
  const double product = static_cast<double>(a) * static_cast<double>(b), addend = c;
  const double sum = product + addend, virtual_addend = sum - product;
  const double error = (product - (sum - virtual_addend)) + (addend - virtual_addend);
  float rounded = static_cast<float>(sum);
  const double beyond = static_cast<double>(rounded) - sum;  // exact: the two are that close
  if (sum > 0 || (sum == 0 && error > 0) ? beyond > error : beyond < error)
    rounded = std::nextafter(rounded, 0.0f);
  return rounded;
}

// sm_90's DPX instructions: max(a + b, c), on ints and on two int16 lanes (each lane's sum
// wrapped to 16 bits, as the hardware's).
inline int __viaddmax_s32(int a, int b, int c) {
  const int s = static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b));
  return s > c ? s : c;
}
inline unsigned int __viaddmax_s16x2(unsigned int a, unsigned int b, unsigned int c) {
  unsigned int out = 0;
  for (int lane = 0; lane < 2; ++lane) {
    const int shift = 16 * lane;
    const auto half = [shift](unsigned int w) { return static_cast<int16_t>(w >> shift); };
    const int16_t s = static_cast<int16_t>(half(a) + half(b)), m = half(c);
    out |= static_cast<unsigned int>(static_cast<uint16_t>(s > m ? s : m)) << shift;
  }
  return out;
}
