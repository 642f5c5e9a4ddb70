// The emulation kernel modules (v1, v4, h1, h4, v9) on GPU 0, loaded once per process: an installed
// fatbin built from the same sources (in kernel_search().dirs, which the application sets; see
// find_installed_fatbin), else the carried fatbin, NVRTC compiling the module's carried sources
// when the fatbin has no code the driver can load for the GPU (kernel_search().force_nvrtc asks
// for the NVRTC path alone).
#pragma once

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include <string>

#include "device/cuda_api.hpp"
#include "mmaemu/error.hpp"

namespace mmaemu::device {

struct LoadedModule {
  CUmodule module = nullptr;
  std::string origin;  // "fatbin", "fatbin <path>" or "NVRTC sm_90a"
};

// GPU 0 with its context made current on the calling thread; opened once per process.
Result<Gpu*> emulation_gpu();

// Module `name` ("v1", "v4", "h1", "h4", "v9") on emulation_gpu(); a failure is remembered and
// returned again.
Result<const LoadedModule*> emulation_module(const std::string& name);

}  // namespace mmaemu::device

#endif
