// libFuzzer target: a profile's JSON (presets, algorithms, split-K tables and model), then one
// resolution through it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mmaemu/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto profile =
      mmaemu::parse_profile(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (profile) {
    mmaemu::ScaledMmCall call;
    call.m = 16;
    call.n = 16;
    call.k = 8192;
    (void)profile->resolve(call);
  }
  return 0;
}
