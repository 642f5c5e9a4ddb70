// What `mmaemu check-dist PACKAGE` checks in an unpacked release archive
// (mmaemu-<version>-Linux-<arch>/): its contents, licences, version, the fatbins against their
// manifest, that no path of the machine that built it is left inside, and that the executable
// needs no shared library a fresh Debian bookworm machine lacks.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "mmaemu/error.hpp"

namespace mmaemu {

struct PackageCheckOptions {
  std::string tag;  // "vX.Y.Z": must equal "v" + the package's version; empty: not checked
  bool require_fatbins = false;  // every kernel module's fatbin must be in the package
  // Paths of the building machine (its source and build trees) that no file may contain.
  std::vector<std::string> forbidden_paths;
};

struct PackageCheckItem {
  std::string name;  // "contents", "licences", "version", "fatbins", "build paths", "runtime"
  bool passed = false;
  std::vector<std::string> problems{};  // one line each, naming the file
  std::string detail{};                 // what was checked, when it passed
};

struct PackageCheckReport {
  std::string root;     // the unpacked folder
  std::string version;  // from include/mmaemu/version.hpp
  std::vector<PackageCheckItem> items;
  bool passed() const;
};

// The shared libraries a package's executable may need: those of libc6, libstdc++6 and libgcc-s1,
// which every Debian bookworm system has.
const std::vector<std::string>& allowed_runtime_libraries();

// The DT_NEEDED entries of an ELF executable or shared object (64-bit little-endian).
Result<std::vector<std::string>> elf_needed_libraries(const std::filesystem::path& path);

// Checks an unpacked package; an error only when `root` cannot be read at all.
Result<PackageCheckReport> check_package_tree(const std::filesystem::path& root,
                                              const PackageCheckOptions& options);

}  // namespace mmaemu
