// Run-time loading of the CUDA libraries (see shared_library.hpp).
#include "device/shared_library.hpp"

#include <dlfcn.h>

namespace mmaemu::device {

void* SharedLibrary::symbol(const char* symbol_name) const {
  return handle ? dlsym(handle, symbol_name) : nullptr;
}

SharedLibrary open_shared_library(std::initializer_list<std::string> names) {
  SharedLibrary lib;
  for (const std::string& name : names) {
    if (void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      lib.handle = h;
      lib.name = name;
      lib.error.clear();
      return lib;
    }
    const char* e = dlerror();
    if (lib.error.empty() && e) lib.error = e;
  }
  if (names.size() > 0) lib.name = *names.begin();
  return lib;
}

const SharedLibrary& cuda_driver_library() {
  static const SharedLibrary lib = open_shared_library({"libcuda.so.1", "libcuda.so"});
  return lib;
}

const SharedLibrary& nvrtc_library() {
  static const SharedLibrary lib =
      open_shared_library({"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"});
  return lib;
}

}  // namespace mmaemu::device
