// The CUDA driver and NVRTC, probed at run time with dlopen: nothing links libcuda or cudart, so
// the library and the executable start on a machine with no GPU driver and say why there is no
// GPU path.
#pragma once

#include <string>
#include <vector>

namespace mmaemu {

struct GpuInfo {
  int ordinal = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
};

struct DeviceReport {
  bool driver_loaded = false;
  std::string driver_library;  // the file that was loaded, or the one that was tried
  int driver_version = 0;      // cuDriverGetVersion, e.g. 13000
  std::vector<GpuInfo> gpus;
  bool nvrtc_loaded = false;
  std::string nvrtc_library;
  int nvrtc_major = 0, nvrtc_minor = 0;
  std::string why_unavailable;  // empty when a GPU path is possible
  bool gpu_path_available() const { return why_unavailable.empty(); }
};

// Never fails: what could not be loaded or queried is described in the report.
DeviceReport probe_devices();

// The kernel modules this build carries (kernels/bin/*.fatbin at build time), with their sizes.
std::vector<std::pair<std::string, size_t>> carried_kernel_modules();

}  // namespace mmaemu
