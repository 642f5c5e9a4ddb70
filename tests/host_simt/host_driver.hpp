// A CUDA driver made of host functions (device memory is host memory; a launch runs the kernel's
// blocks one after another, host_module.hpp), for the library's CUDA backend to run the portable
// kernels on a machine without a GPU: mmaemu::device::replace_gpu_opener(host_simt::open_host_gpu)
// before the first CUDA call.
#pragma once

#include "device/cuda_api.hpp"

namespace host_simt {

// The host "GPU": compute capability 8.9 as the launcher sees it (no wgmma: h1 and h4 are not
// chosen), 132 multiprocessors.
mmaemu::Result<mmaemu::device::Gpu> open_host_gpu(int ordinal);

// Launches run so far, and the largest dynamic shared memory a launch asked for.
long long host_launches();
unsigned host_largest_shared_request();

}  // namespace host_simt
