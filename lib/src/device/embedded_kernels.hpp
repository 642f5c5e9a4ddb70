// The committed fatbins (kernels/bin/*.fatbin), carried inside the library.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "profile/embedded_profiles.hpp"

namespace mmaemu {

struct EmbeddedKernel {
  std::string_view module;
  std::span<const unsigned char> image;
};

const std::vector<EmbeddedKernel>& embedded_kernels();

// The kernel sources (for NVRTC), by file name.
const std::vector<EmbeddedText>& embedded_kernel_sources();

}  // namespace mmaemu
