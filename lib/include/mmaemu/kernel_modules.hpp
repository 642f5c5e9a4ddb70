// Kernel modules on disk: each kernels/<module>/spec.json (a KernelSpec: sources, headers, SASS
// architectures, PTX, nvcc flags) and kernels/bin/ (the fatbins and manifest.json). Staleness is
// decided by hashes alone, so the checks need no compiler.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "mmaemu/error.hpp"

namespace mmaemu {

struct KernelSpec {
  std::string module, description;
  std::vector<std::string> sources, headers, sass, ptx, nvcc_flags;
};

// The modules under `kernels_dir` (folders holding a spec.json), sorted.
std::vector<std::string> kernel_modules_in(const std::filesystem::path& kernels_dir);
Result<KernelSpec> load_kernel_spec(const std::filesystem::path& kernels_dir, const std::string& module);
// sha256 over each source and header (sorted by name) and spec.json: name, a NUL, the bytes.
Result<std::string> kernel_source_sha256(const std::filesystem::path& kernels_dir, const KernelSpec& spec);

struct FatbinCheck {
  int modules = 0;
  std::vector<std::string> problems;  // one line each, naming the module and the file
};

// Every fatbin in `bin_dir`'s manifest.json matches its sha256; with `sources`, every module of
// `kernels_dir` is in the manifest and its sources hash to the manifest's source_sha256.
Result<FatbinCheck> check_fatbins(const std::filesystem::path& kernels_dir, const std::filesystem::path& bin_dir,
                                  bool require_manifest, bool sources);

}  // namespace mmaemu
