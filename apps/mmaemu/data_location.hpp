// Where the executable finds the data it ships with (the bundled truth subset) and, run from its
// build tree, the source tree.
#pragma once

#include <filesystem>
#include <optional>

#include "mmaemu/tools/install_location.hpp"

namespace mmaemu::cli {

// The source tree this executable was built from, when it runs from that tree's build directory;
// an installed or copied executable has none, so that no default of it points into the machine
// it was built on.
std::optional<std::filesystem::path> build_tree_source();

// MMAEMU_DATA_DIR, else <prefix>/share/mmaemu/truth beside an installed executable, else the
// source tree's tests/data when run from a build tree.
std::optional<std::filesystem::path> bundled_truth_root();

}  // namespace mmaemu::cli
