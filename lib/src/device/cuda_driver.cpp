// Loads libcuda and libnvrtc with dlopen and asks for the GPUs. The few driver entry points used
// here are declared by hand (C ABI, CUDA 13's stable signatures) so that no CUDA header is needed
// to build the CPU parts.
#include <string>

#include "device/embedded_kernels.hpp"
#include "device/shared_library.hpp"
#include "mmaemu/tools/device.hpp"

namespace mmaemu {
namespace {

using CuResult = int;
using CuDevice = int;
using CuInit = CuResult (*)(unsigned);
using CuDriverGetVersion = CuResult (*)(int*);
using CuDeviceGetCount = CuResult (*)(int*);
using CuDeviceGet = CuResult (*)(CuDevice*, int);
using CuDeviceGetName = CuResult (*)(char*, int, CuDevice);
using CuDeviceGetAttribute = CuResult (*)(int*, int, CuDevice);
using CuGetErrorString = CuResult (*)(CuResult, const char**);
using NvrtcVersion = int (*)(int*, int*);

constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;

template <class F>
F symbol(const device::SharedLibrary& library, const char* name) {
  return reinterpret_cast<F>(library.symbol(name));
}

std::string cuda_error(const device::SharedLibrary& driver, CuResult code) {
  auto get = symbol<CuGetErrorString>(driver, "cuGetErrorString");
  const char* text = nullptr;
  if (get && get(code, &text) == 0 && text)
    return std::string(text) + " (" + std::to_string(code) + ")";
  return "CUDA error " + std::to_string(code);
}

}  // namespace

DeviceReport probe_devices() {
  DeviceReport report;
  const device::SharedLibrary& driver = device::cuda_driver_library();
  const device::SharedLibrary& nvrtc = device::nvrtc_library();
  report.driver_library = driver.name;
  report.nvrtc_library = nvrtc.name;
  if (nvrtc) {
    auto version = symbol<NvrtcVersion>(nvrtc, "nvrtcVersion");
    report.nvrtc_loaded = version && version(&report.nvrtc_major, &report.nvrtc_minor) == 0;
  }
  if (!driver) {
    report.why_unavailable =
        "no CUDA driver: " + report.driver_library + " could not be loaded (" + driver.error + ")";
    return report;
  }
  report.driver_loaded = true;
  auto init = symbol<CuInit>(driver, "cuInit");
  auto get_version = symbol<CuDriverGetVersion>(driver, "cuDriverGetVersion");
  auto get_count = symbol<CuDeviceGetCount>(driver, "cuDeviceGetCount");
  auto get_device = symbol<CuDeviceGet>(driver, "cuDeviceGet");
  auto get_name = symbol<CuDeviceGetName>(driver, "cuDeviceGetName");
  auto get_attribute = symbol<CuDeviceGetAttribute>(driver, "cuDeviceGetAttribute");
  if (!init || !get_version || !get_count || !get_device || !get_name || !get_attribute) {
    report.why_unavailable = report.driver_library + " lacks a driver entry point this build needs";
    return report;
  }
  get_version(&report.driver_version);
  if (CuResult r = init(0); r != 0) {
    report.why_unavailable = "cuInit failed: " + cuda_error(driver, r);
    return report;
  }
  int count = 0;
  if (CuResult r = get_count(&count); r != 0) {
    report.why_unavailable = "cuDeviceGetCount failed: " + cuda_error(driver, r);
    return report;
  }
  for (int i = 0; i < count; ++i) {
    CuDevice device = 0;
    if (get_device(&device, i) != 0) continue;
    GpuInfo gpu;
    gpu.ordinal = i;
    char name[256] = {};
    get_name(name, sizeof name, device);
    gpu.name = name;
    get_attribute(&gpu.compute_major, kAttrComputeCapabilityMajor, device);
    get_attribute(&gpu.compute_minor, kAttrComputeCapabilityMinor, device);
    get_attribute(&gpu.multiprocessors, kAttrMultiprocessorCount, device);
    report.gpus.push_back(gpu);
  }
  if (report.gpus.empty()) report.why_unavailable = "the CUDA driver reports no GPU";
  return report;
}

std::vector<std::pair<std::string, size_t>> carried_kernel_modules() {
  std::vector<std::pair<std::string, size_t>> v;
  for (const auto& k : embedded_kernels()) v.emplace_back(std::string(k.module), k.image.size());
  return v;
}

}  // namespace mmaemu
