// The CUDA driver, NVRTC and cuBLASLt are opened at run time (dlopen), so that the program starts
// and works on a machine without them. This is the one place that knows their names, opens each
// once for the life of the process, and says why one is missing. No CUDA header is needed.
#pragma once

#include <initializer_list>
#include <string>

namespace mmaemu::device {

struct SharedLibrary {
  void* handle = nullptr;
  std::string name;   // the name that loaded, else the first one tried
  std::string error;  // why it did not load (the loader's message)
  explicit operator bool() const { return handle != nullptr; }
  void* symbol(const char* symbol_name) const;
};

// libcuda.so.1 (then libcuda.so); libnvrtc.so.13 (then .12, unversioned). Opened once, never
// closed.
const SharedLibrary& cuda_driver_library();
const SharedLibrary& nvrtc_library();
// The first of `names` that loads (each call opens it again: the loader counts references).
SharedLibrary open_shared_library(std::initializer_list<std::string> names);

}  // namespace mmaemu::device
