// The committed fatbins (kernels/bin/*.fatbin), carried inside the library.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace mmaemu {

struct EmbeddedKernel {
  std::string_view module;
  std::span<const unsigned char> image;
};

const std::vector<EmbeddedKernel>& embedded_kernels();

}  // namespace mmaemu
