// The CUDA backends beyond emulate(): the GPU and where each kernel module came from, which module
// runs a call, and a run's statistics, for conform and bench. emulate() with a CUDA backend is the
// core API's way to run a call on GPU 0.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
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
// synchronise, host clock, with the flagged count's 4-byte copy queued behind it) and how many
// elements the host's oracle finished.
struct CudaRunStats {
  std::string module;
  double kernel_seconds = 0;
  int64_t host_elements = 0;
};
// The call on GPU 0 (driver loaded at run time); an error says why no GPU path is there. The
// operands go up and the output comes down on every call: emulate_cuda_resident is the same run on
// data already on the GPU.
Result<std::vector<uint8_t>> emulate_cuda(const Plan& plan, const ScaledMmCall& call,
                                          Backend backend = Backend::cuda,
                                          CudaRunStats* stats = nullptr);

// A call whose operands, scales, bias and output are already in GPU 0's memory, as a framework
// holds them: each address is a CUdeviceptr of the device's primary context (the context torch's
// CUDA runtime uses), carried as an integer so that this header needs no CUDA header.
struct DeviceScaledMmCall {
  int64_t m = 0, n = 0, k = 0;
  Format a_dtype = Format::f8_e4m3, b_dtype = Format::f8_e4m3, out_dtype = Format::bf16;
  bool use_fast_accum = false;
  uint64_t a = 0;        // m x k codes, row-major
  uint64_t b = 0;        // n x k codes, row-major (torch's mat2, k x n column-major)
  bool rowwise = false;  // scales: false, one f32 each; true, m (scale_a) and n (scale_b) f32
  uint64_t scale_a = 0, scale_b = 0;
  std::optional<Format> bias_dtype;  // bf16 or f16: n values at `bias`
  uint64_t bias = 0;
  uint64_t out = 0;        // m x n of out_dtype, row-major: written by the call
  void* stream = nullptr;  // a CUstream to launch on; nullptr: the default stream

  // The call without its data, for Profile::resolve (which reads shapes and dtypes only).
  ScaledMmCall shape() const;
};

// Checks dimensions, dtypes and that every address the call needs is set; the message names the
// field at fault. Whether the addresses point at enough memory is the caller's to know.
Result<void> validate(const DeviceScaledMmCall& call);

// The call computed where its data lie, with the same kernels and bits as emulate_cuda; it waits
// for the work already queued on the GPU, runs on `stream` and returns once `out` holds the result
// (the stream synchronised). The kernels read the scales and the bias on the device and finish the
// elements of rows with NaN or Inf codes there: nothing crosses to the host but a flag count,
// unless the kernel flagged elements (results the exact codec must make: FP8 outputs of an
// infinity, step results it cannot round): then the operands, scales and bias come to the host,
// the oracle finishes those elements, and the output goes back.
Result<CudaRunStats> emulate_cuda_resident(const Plan& plan, const DeviceScaledMmCall& call,
                                           Backend backend = Backend::cuda);

// A host call's data copied to GPU 0, laid out as a resident call takes them (bench times the
// resident path with it; a test compares its bits with emulate_cuda's).
class ResidentCopy {
 public:
  static Result<std::unique_ptr<ResidentCopy>> upload(const ScaledMmCall& call);
  ~ResidentCopy();
  const DeviceScaledMmCall& call() const { return call_; }
  // The output buffer's bytes, m x n of out_dtype.
  Result<std::vector<uint8_t>> download_out() const;

 private:
  ResidentCopy() = default;
  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
  DeviceScaledMmCall call_;
};

}  // namespace mmaemu
