// Where an installed mmaemu keeps its data: <prefix>/share/mmaemu beside <prefix>/bin/mmaemu.
// The executable's truth subset and the kernel loader's installed fatbins are both found there.
#pragma once

#include <filesystem>

namespace mmaemu {

// The running executable (Linux: /proc/self/exe); empty when it cannot be told.
std::filesystem::path executable_path();
// <prefix>/share/mmaemu for the running executable; empty when its path cannot be told.
std::filesystem::path installed_share_dir();

}  // namespace mmaemu
