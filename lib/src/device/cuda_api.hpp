// The CUDA driver and cuBLASLt entry points the device code uses, bound with dlopen/dlsym so that
// nothing links libcuda, cudart or cuBLASLt. Only compiled where the toolkit's headers give the
// types (MMAEMU_HAVE_CUDA_HEADERS); the executable still starts on a machine with no driver.
#pragma once

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include <cublasLt.h>
#include <cuda.h>

#include <memory>
#include <span>
#include <string>

#include "mmaemu/error.hpp"

namespace mmaemu::device {

struct DriverApi {
  decltype(&cuInit) init;
  decltype(&cuGetErrorString) error_string;
  decltype(&cuDeviceGet) device_get;
  decltype(&cuDeviceGetName) device_name;
  decltype(&cuDeviceGetAttribute) attribute;
  decltype(&cuDriverGetVersion) version;
  decltype(&cuDevicePrimaryCtxRetain) retain;
  decltype(&cuCtxSetCurrent) set_current;
  decltype(&cuMemAlloc_v2) alloc;
  decltype(&cuMemFree_v2) free;
  decltype(&cuMemcpyHtoD_v2) to_device;
  decltype(&cuMemcpyDtoH_v2) to_host;
  decltype(&cuMemcpyDtoHAsync_v2) to_host_async;
  decltype(&cuMemAllocHost_v2) alloc_host;  // page-locked: an async copy into it is async
  decltype(&cuMemsetD8_v2) memset8;
  decltype(&cuMemsetD8Async) memset8_async;
  decltype(&cuCtxSynchronize) synchronize;
  decltype(&cuStreamSynchronize) stream_synchronize;
  decltype(&cuModuleLoadData) module_load;
  decltype(&cuModuleUnload) module_unload;
  decltype(&cuModuleGetFunction) module_function;
  decltype(&cuFuncSetAttribute) function_attribute;
  decltype(&cuLaunchKernel) launch;
  // Optional (drivers from CUDA 12.0 have it): null where the driver lacks it; h4 needs it.
  decltype(&cuTensorMapEncodeTiled) encode_tensor_map;
  // Optional (CUDA 12.0 drivers on): h4's split-K launches, a cluster per tile.
  decltype(&cuLaunchKernelEx) launch_ex;

  std::string describe(CUresult r) const;
};

// One GPU with its primary context current on the calling thread.
struct Gpu {
  DriverApi api{};
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int compute_major = 0, compute_minor = 0, multiprocessors = 0, driver_version = 0;
};

// Loads the driver, initialises it and makes GPU `ordinal`'s primary context current.
Result<Gpu> open_gpu(int ordinal);

// Tests only: open_gpu answers with `opener`'s GPU instead of the driver's (tests/host_simt runs
// the portable kernels on the CPU behind a DriverApi of host functions); null restores the driver.
using GpuOpener = Result<Gpu> (*)(int ordinal);
void replace_gpu_opener(GpuOpener opener);

// A device allocation freed on scope exit; a failed allocation leaves ptr 0 and ok() false.
class DeviceBuffer {
 public:
  DeviceBuffer(const DriverApi& api, size_t bytes);
  DeviceBuffer(const DriverApi& api, std::span<const uint8_t> host);
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
  bool ok() const { return ptr_ != 0; }
  CUdeviceptr ptr() const { return ptr_; }
  void* get() const { return reinterpret_cast<void*>(ptr_); }

 private:
  const DriverApi* api_;
  CUdeviceptr ptr_ = 0;
};

struct LtApi {
  decltype(&cublasLtCreate) create;
  decltype(&cublasLtDestroy) destroy;
  decltype(&cublasLtGetVersion) version;
  decltype(&cublasLtMatmulDescCreate) desc_create;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set;
  decltype(&cublasLtMatrixLayoutCreate) layout_create;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic;
  decltype(&cublasLtMatmul) matmul;
  decltype(&cublasLtMatmulAlgoConfigGetAttribute) algo_get;
};

// cuBLASLt loaded from `library` on an open GPU, with one handle.
struct LtSession {
  Gpu gpu;
  LtApi lt{};
  cublasLtHandle_t handle = nullptr;
  std::string library;
  size_t version = 0;
  LtSession() = default;
  LtSession(const LtSession&) = delete;
  LtSession& operator=(const LtSession&) = delete;
  ~LtSession();
};

Result<std::unique_ptr<LtSession>> open_lt_session(const std::string& library, int ordinal);

}  // namespace mmaemu::device

#endif
