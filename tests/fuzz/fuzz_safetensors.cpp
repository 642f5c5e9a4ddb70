// libFuzzer target: the safetensors reader (header JSON, offsets, shapes) on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mmaemu/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = mmaemu::SafetensorsFile::parse(std::vector<uint8_t>(data, data + size), "fuzz");
  if (file)
    for (const auto& t : file->tensors()) (void)t.element_count();
  return 0;
}
