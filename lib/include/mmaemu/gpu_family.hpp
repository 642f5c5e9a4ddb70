// GPU product names -> architectures, so that a recording from any member of a family replays with
// its family's preset. Names are matched after dropping vendor words ("NVIDIA", "Tesla",
// "GeForce") and case.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mmaemu {

struct GpuFamilyRow {
  std::string_view pattern;       // ECMAScript regex over the normalised name, anchored at start
  std::string_view architecture;  // volta, turing, ampere, ada, hopper, blackwell
  std::string_view compute_capability;
  std::string_view examples;
};

const std::vector<GpuFamilyRow>& gpu_family_table();
std::string normalise_gpu_name(std::string_view product_name);
std::optional<std::string> architecture_of_gpu(std::string_view product_name);

}  // namespace mmaemu
