#include "device/cuda_api.hpp"

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include "device/shared_library.hpp"

namespace mmaemu::device {
namespace {

template <class F>
bool bind(const SharedLibrary& library, const char* name, F& f) {
  f = reinterpret_cast<F>(library.symbol(name));
  return f != nullptr;
}

GpuOpener gpu_opener = nullptr;

}  // namespace

void replace_gpu_opener(GpuOpener opener) {
  gpu_opener = opener;
}

std::string DriverApi::describe(CUresult r) const {
  const char* text = nullptr;
  if (error_string && error_string(r, &text) == CUDA_SUCCESS && text)
    return std::string(text) + " (" + std::to_string(r) + ")";
  return "CUDA error " + std::to_string(r);
}

Result<Gpu> open_gpu(int ordinal) {
  if (gpu_opener) return gpu_opener(ordinal);
  const SharedLibrary& cuda = cuda_driver_library();
  if (!cuda)
    return Error(Errc::device_unavailable,
                 "no CUDA driver: " + cuda.name + " could not be loaded (" + cuda.error + ")");
  Gpu g;
  DriverApi& d = g.api;
  const bool bound =
      bind(cuda, "cuInit", d.init) && bind(cuda, "cuGetErrorString", d.error_string) &&
      bind(cuda, "cuDeviceGet", d.device_get) && bind(cuda, "cuDeviceGetName", d.device_name) &&
      bind(cuda, "cuDeviceGetAttribute", d.attribute) &&
      bind(cuda, "cuDriverGetVersion", d.version) &&
      bind(cuda, "cuDevicePrimaryCtxRetain", d.retain) &&
      bind(cuda, "cuCtxSetCurrent", d.set_current) && bind(cuda, "cuMemAlloc_v2", d.alloc) &&
      bind(cuda, "cuMemFree_v2", d.free) && bind(cuda, "cuMemcpyHtoD_v2", d.to_device) &&
      bind(cuda, "cuMemcpyDtoH_v2", d.to_host) &&
      bind(cuda, "cuMemcpyDtoHAsync_v2", d.to_host_async) &&
      bind(cuda, "cuMemAllocHost_v2", d.alloc_host) && bind(cuda, "cuMemsetD8_v2", d.memset8) &&
      bind(cuda, "cuMemsetD8Async", d.memset8_async) &&
      bind(cuda, "cuCtxSynchronize", d.synchronize) &&
      bind(cuda, "cuStreamSynchronize", d.stream_synchronize) &&
      bind(cuda, "cuModuleLoadData", d.module_load) &&
      bind(cuda, "cuModuleUnload", d.module_unload) &&
      bind(cuda, "cuModuleGetFunction", d.module_function) &&
      bind(cuda, "cuLaunchKernel", d.launch) &&
      bind(cuda, "cuFuncSetAttribute", d.function_attribute);
  if (!bound)
    return Error(Errc::device_unavailable,
                 cuda.name + " lacks a driver entry point this build needs");
  bind(cuda, "cuTensorMapEncodeTiled", d.encode_tensor_map);
  bind(cuda, "cuLaunchKernelEx", d.launch_ex);
  if (CUresult r = d.init(0); r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable, "cuInit failed: " + d.describe(r));
  if (CUresult r = d.device_get(&g.device, ordinal); r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable,
                 "no GPU " + std::to_string(ordinal) + ": " + d.describe(r));
  if (CUresult r = d.retain(&g.context, g.device); r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable, "cannot create a context on GPU " +
                                               std::to_string(ordinal) + ": " + d.describe(r));
  d.set_current(g.context);
  char name[256] = {};
  d.device_name(name, sizeof name, g.device);
  g.name = name;
  d.attribute(&g.compute_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, g.device);
  d.attribute(&g.compute_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, g.device);
  d.attribute(&g.multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, g.device);
  d.version(&g.driver_version);
  return g;
}

DeviceBuffer::DeviceBuffer(const DriverApi& api, size_t bytes) : api_(&api) {
  if (api.alloc(&ptr_, bytes ? bytes : 1) != CUDA_SUCCESS) ptr_ = 0;
}

DeviceBuffer::DeviceBuffer(const DriverApi& api, std::span<const uint8_t> host)
    : DeviceBuffer(api, host.size()) {
  if (ptr_ && !host.empty()) api.to_device(ptr_, host.data(), host.size());
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) api_->free(ptr_);
}

LtSession::~LtSession() {
  if (handle) lt.destroy(handle);
}

Result<std::unique_ptr<LtSession>> open_lt_session(const std::string& library, int ordinal) {
  auto gpu = open_gpu(ordinal);
  if (!gpu) return gpu.error();
  const SharedLibrary so = open_shared_library({library});
  if (!so) return Error(Errc::device_unavailable, "cannot load " + library + ": " + so.error);
  auto s = std::make_unique<LtSession>();
  s->gpu = std::move(gpu).value();
  s->library = library;
  LtApi& lt = s->lt;
  const bool bound = bind(so, "cublasLtCreate", lt.create) &&
                     bind(so, "cublasLtDestroy", lt.destroy) &&
                     bind(so, "cublasLtGetVersion", lt.version) &&
                     bind(so, "cublasLtMatmulDescCreate", lt.desc_create) &&
                     bind(so, "cublasLtMatmulDescDestroy", lt.desc_destroy) &&
                     bind(so, "cublasLtMatmulDescSetAttribute", lt.desc_set) &&
                     bind(so, "cublasLtMatrixLayoutCreate", lt.layout_create) &&
                     bind(so, "cublasLtMatrixLayoutDestroy", lt.layout_destroy) &&
                     bind(so, "cublasLtMatmulPreferenceCreate", lt.pref_create) &&
                     bind(so, "cublasLtMatmulPreferenceSetAttribute", lt.pref_set) &&
                     bind(so, "cublasLtMatmulPreferenceDestroy", lt.pref_destroy) &&
                     bind(so, "cublasLtMatmulAlgoGetHeuristic", lt.heuristic) &&
                     bind(so, "cublasLtMatmul", lt.matmul) &&
                     bind(so, "cublasLtMatmulAlgoConfigGetAttribute", lt.algo_get);
  if (!bound)
    return Error(Errc::device_unavailable,
                 library + " lacks a cuBLASLt entry point this build needs");
  if (lt.create(&s->handle) != CUBLAS_STATUS_SUCCESS) {
    s->handle = nullptr;
    return Error(Errc::device_unavailable, "cublasLtCreate failed");
  }
  s->version = lt.version();
  return s;
}

}  // namespace mmaemu::device

#endif
