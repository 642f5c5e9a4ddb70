// The host driver's entry points (host_driver.hpp): cuda.h's signatures, host memory and host
// threads behind them.
#include "host_driver.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "host_module.hpp"

namespace host_simt {
namespace {

std::atomic<long long> launches{0};
std::atomic<unsigned> largest_shared{0};
int module_handle = 0;  // the one module: its address is the CUmodule

CUdeviceptr address_of(void* p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}
void* pointer_at(CUdeviceptr p) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(p));
}

CUresult error_string(CUresult, const char** text) {
  *text = "host driver error";
  return CUDA_SUCCESS;
}
CUresult alloc(CUdeviceptr* p, size_t bytes) {
  void* memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!memory) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = address_of(memory);
  return CUDA_SUCCESS;
}
CUresult free_memory(CUdeviceptr p) {
  std::free(pointer_at(p));
  return CUDA_SUCCESS;
}
CUresult to_device(CUdeviceptr dst, const void* src, size_t bytes) {
  std::memcpy(pointer_at(dst), src, bytes);
  return CUDA_SUCCESS;
}
CUresult to_host(void* dst, CUdeviceptr src, size_t bytes) {
  std::memcpy(dst, pointer_at(src), bytes);
  return CUDA_SUCCESS;
}
CUresult to_host_async(void* dst, CUdeviceptr src, size_t bytes, CUstream) {
  return to_host(dst, src, bytes);
}
CUresult alloc_host(void** p, size_t bytes) {
  *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult memset8(CUdeviceptr p, unsigned char value, size_t bytes) {
  std::memset(pointer_at(p), value, bytes);
  return CUDA_SUCCESS;
}
CUresult memset8_async(CUdeviceptr p, unsigned char value, size_t bytes, CUstream) {
  return memset8(p, value, bytes);
}
CUresult done() {
  return CUDA_SUCCESS;
}
CUresult stream_done(CUstream) {
  return CUDA_SUCCESS;
}
CUresult set_current(CUcontext) {
  return CUDA_SUCCESS;
}
CUresult module_load(CUmodule* m, const void*) {
  *m = reinterpret_cast<CUmodule>(&module_handle);
  return CUDA_SUCCESS;
}
CUresult module_unload(CUmodule) {
  return CUDA_SUCCESS;
}
CUresult module_function(CUfunction* f, CUmodule, const char* name) {
  for (const HostKernel& k : module_kernels())
    if (std::strcmp(k.name, name) == 0) {
      *f = reinterpret_cast<CUfunction>(const_cast<HostKernel*>(&k));
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}
CUresult function_attribute(CUfunction, CUfunction_attribute attribute, int value) {
  if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
      static_cast<size_t>(value) > dynamic_shared_capacity())
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                unsigned bz, unsigned shared, CUstream, void** args, void**) {
  if (shared > dynamic_shared_capacity()) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned seen = largest_shared.load(); shared > seen;)
    if (largest_shared.compare_exchange_weak(seen, shared)) break;
  ++launches;
  const auto& kernel = *reinterpret_cast<const HostKernel*>(f);
  for (unsigned z = 0; z < gz; ++z)
    for (unsigned y = 0; y < gy; ++y)
      for (unsigned x = 0; x < gx; ++x)
        run_block(kernel, args, {x, y, z}, {gx, gy, gz}, {bx, by, bz});
  return CUDA_SUCCESS;
}

}  // namespace

mmaemu::Result<mmaemu::device::Gpu> open_host_gpu(int ordinal) {
  if (ordinal != 0)
    return mmaemu::Error(mmaemu::Errc::device_unavailable, "the host driver has GPU 0 only");
  mmaemu::device::Gpu g;
  auto& d = g.api;
  d.error_string = error_string;
  d.alloc = alloc;
  d.free = free_memory;
  d.to_device = to_device;
  d.to_host = to_host;
  d.to_host_async = to_host_async;
  d.alloc_host = alloc_host;
  d.memset8 = memset8;
  d.memset8_async = memset8_async;
  d.synchronize = done;
  d.stream_synchronize = stream_done;
  d.set_current = set_current;
  d.module_load = module_load;
  d.module_unload = module_unload;
  d.module_function = module_function;
  d.function_attribute = function_attribute;
  d.launch = launch;
  g.name = "the host (CPU threads, host_simt)";
  g.compute_major = 8, g.compute_minor = 9, g.multiprocessors = 132, g.driver_version = 13000;
  return g;
}

long long host_launches() {
  return launches.load();
}
unsigned host_largest_shared_request() {
  return largest_shared.load();
}

}  // namespace host_simt
