// A release archive unpacked into a scratch folder (check-dist, validate-release).
#pragma once

#include <filesystem>

#include "mmaemu/error.hpp"

namespace mmaemu::cli {

// A scratch folder removed when it goes out of scope, however the command ends.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() = default;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();
  // Makes a fresh folder <temp>/<prefix>XXXXXX.
  Result<void> make(const std::string& prefix);
};

// Unpacks `archive` (.tar.gz, by the system's tar) into `scratch`, which it makes; returns the
// archive's one top folder.
Result<std::filesystem::path> unpack_package(const std::filesystem::path& archive,
                                             ScratchDir& scratch);

}  // namespace mmaemu::cli
