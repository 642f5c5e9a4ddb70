// What a module's kernels, compiled for the host (cuda_on_host.hpp), offer the host driver
// (host_driver.cpp): defined by host_module.cpp built with the module's .cu. No CUDA header here:
// the module's translation unit defines CUDA's vector types itself.
#pragma once

#include <cstddef>
#include <span>

namespace host_simt {

// One kernel of the module: its name and a call with cuLaunchKernel's argument array.
struct HostKernel {
  const char* name;
  void (*invoke)(void** args);
};

std::span<const HostKernel> module_kernels();
std::size_t dynamic_shared_capacity();  // bytes of the module's `extern __shared__` array

struct Extent {
  unsigned x, y, z;
};

// Runs one block of `kernel` (block index `block` of `grid`, `threads` threads), each thread an OS
// thread, to its end.
void run_block(const HostKernel& kernel, void** args, Extent block, Extent grid, Extent threads);

}  // namespace host_simt
