// One kernel module compiled for the host: MMAEMU_HOST_MODULE_SOURCE names its .cu (v1, v4 or v9;
// the CMake target sets it, with MMAEMU_HOST_SHARED and __CUDA_ARCH__), its kernels listed for the
// host driver, and the block runner. See cuda_on_host.hpp.
#include <algorithm>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "host_module.hpp"
// After every standard header: it defines CUDA's keywords as macros.
#include "cuda_on_host.hpp"

// The block's dynamic shared memory (`extern __shared__` in the kernels): blocks run one at a time.
alignas(128) unsigned char shared_memory[228 * 1024];

#include MMAEMU_HOST_MODULE_SOURCE

namespace host_simt {
namespace {

template <class T>
T argument(void** args, int i) {  // a kernel argument from cuLaunchKernel's array
  T value;
  std::memcpy(&value, args[i], sizeof value);
  return value;
}

void run_module_kernel(void** args) {
  MMAEMU_HOST_MODULE_KERNEL(argument<ScaledMmParams>(args, 0));
}

void run_flag_special_rows(void** args) {
  flag_special_rows(argument<const uint8_t*>(args, 0), argument<long long>(args, 1),
                    argument<long long>(args, 2), argument<int>(args, 3),
                    argument<uint8_t*>(args, 4));
}

void run_widen_bias(void** args) {
  widen_bias(argument<const uint16_t*>(args, 0), argument<long long>(args, 1),
             argument<int>(args, 2), argument<float*>(args, 3));
}

void run_finish_special_elements(void** args) {
  finish_special_elements(argument<ScaledMmParams>(args, 0), argument<int>(args, 1),
                          argument<int>(args, 2));
}

constexpr HostKernel kKernels[] = {
    {MMAEMU_HOST_MODULE_NAME "_scaled_mm", run_module_kernel},
    {"flag_special_rows", run_flag_special_rows},
    {"widen_bias", run_widen_bias},
    {"finish_special_elements", run_finish_special_elements},
};

}  // namespace

std::span<const HostKernel> module_kernels() {
  return kKernels;
}

std::size_t dynamic_shared_capacity() {
  return sizeof shared_memory;
}

void run_block(const HostKernel& kernel, void** args, Extent block, Extent grid, Extent threads) {
  const unsigned count = threads.x * threads.y * threads.z, warps = (count + 31) / 32;
  std::barrier<> block_barrier(count);
  std::deque<std::barrier<>> warp_barriers;  // a deque: std::barrier does not move
  for (unsigned w = 0; w < warps; ++w) warp_barriers.emplace_back(std::min(32u, count - 32 * w));
  auto votes = std::make_unique<std::atomic<unsigned>[]>(warps);
  std::vector<std::thread> running;
  running.reserve(count);
  for (unsigned t = 0; t < count; ++t)
    running.emplace_back([&, t] {
      threadIdx = {t % threads.x, t / threads.x % threads.y, t / (threads.x * threads.y)};
      blockIdx = {block.x, block.y, block.z};
      blockDim = {threads.x, threads.y, threads.z};
      gridDim = {grid.x, grid.y, grid.z};
      sync.block = &block_barrier;
      sync.warps = &warp_barriers;
      sync.votes = votes.get();
      kernel.invoke(args);
      // A thread that has returned holds up no later barrier of the others (as on the GPU).
      block_barrier.arrive_and_drop();
      warp_barriers[t / 32].arrive_and_drop();
    });
  for (auto& t : running) t.join();
}

}  // namespace host_simt
