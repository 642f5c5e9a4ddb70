// Where the executable finds the data it ships with (the bundled truth subset).
#pragma once

#include <filesystem>
#include <optional>

#include "mmaemu/install_location.hpp"

namespace mmaemu::cli {

// MMAEMU_DATA_DIR, else <prefix>/share/mmaemu/truth beside an installed executable, else the
// source tree's tests/data when run from a build tree.
std::optional<std::filesystem::path> bundled_truth_root();

}  // namespace mmaemu::cli
