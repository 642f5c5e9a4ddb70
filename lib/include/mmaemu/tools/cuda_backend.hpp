// The CUDA backends beyond emulate(): the GPU and where each kernel module came from, which module
// runs a call, and a run's statistics, for conform and bench. emulate() with a CUDA backend is the
// core API's way to run a call on GPU 0.
#pragma once

#include <string>
#include <vector>

#include "mmaemu/emulate.hpp"

namespace mmaemu {

// What each CUDA kernel module covers: tools/emulation_modules.hpp.
// Loads the driver and the kernel modules on GPU 0: the GPU's name and where each module came from,
// or why the CUDA backend cannot run (v1, the plainest, does not load).
Result<std::string> cuda_backend_device();
// The kernel module a CUDA backend runs for the call on GPU 0 ("v1", "v4", "h1" or "h4"), or why it
// cannot.
Result<std::string> cuda_kernel_for(const Plan& plan, const ScaledMmCall& call, Backend backend);
// Where the module's code came from on GPU 0: "fatbin" or "NVRTC sm_XY" (loading it if need be).
Result<std::string> cuda_module_origin(const std::string& module);
// What one CUDA call did, for benchmarks: the module, the kernel's wall time (launch to
// synchronise, host clock) and how many elements the host's oracle finished.
struct CudaRunStats {
  std::string module;
  double kernel_seconds = 0;
  int64_t host_elements = 0;
};
// The call on GPU 0 (driver loaded at run time); an error says why no GPU path is there.
Result<std::vector<uint8_t>> emulate_cuda(const Plan& plan, const ScaledMmCall& call,
                                          Backend backend = Backend::cuda,
                                          CudaRunStats* stats = nullptr);

}  // namespace mmaemu
