// Kernel modules on disk: each kernels/<module>/spec.json (a KernelSpec: sources, headers, SASS
// architectures, PTX, nvcc flags) and kernels/bin/ (the fatbins and manifest.json). Staleness is
// decided by hashes alone, so the checks need no compiler.
#pragma once

#include <filesystem>
#include <optional>
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
Result<KernelSpec> load_kernel_spec(const std::filesystem::path& kernels_dir,
                                    const std::string& module);
// sha256 over each source and header (sorted by name) and spec.json: name, a NUL, the bytes.
Result<std::string> kernel_source_sha256(const std::filesystem::path& kernels_dir,
                                         const KernelSpec& spec);

struct FatbinCheck {
  int modules = 0;
  std::vector<std::string> problems;  // one line each, naming the module and the file
};

// Every fatbin in `bin_dir`'s manifest.json matches its sha256; with `sources`, every module of
// `kernels_dir` is in the manifest and its sources hash to the manifest's source_sha256.
Result<FatbinCheck> check_fatbins(const std::filesystem::path& kernels_dir,
                                  const std::filesystem::path& bin_dir, bool require_manifest,
                                  bool sources);

// A fatbin found on disk that may stand in for the one the library carries: <dir>/<module>.fatbin,
// listed in <dir>/manifest.json with the sha256 of its bytes and with the carried manifest's
// source_sha256 for the module (built from the same sources, so the same kernels and parameter
// layout, perhaps for more architectures: `build-fatbin --release --out DIR`).
struct InstalledFatbin {
  std::filesystem::path path;
  std::vector<uint8_t> image;
};
struct FatbinSearch {
  std::optional<InstalledFatbin> found;
  std::vector<std::string>
      passed_over;  // one line per candidate not taken, naming the file and why
};
// Looks in each of `dirs` in turn; `carried_manifest` is the text of the manifest.json built
// into the library. A directory without <module>.fatbin is passed over silently.
FatbinSearch find_installed_fatbin(const std::string& module,
                                   const std::vector<std::filesystem::path>& dirs,
                                   const std::string& carried_manifest);
// Where the CUDA backends take kernel modules from. The application sets it (mmaemu maps
// $MMAEMU_KERNEL_DIR, <prefix>/share/mmaemu/kernels and MMAEMU_FORCE_NVRTC=1 into it when it
// starts); the library reads no environment variable. Default: no directory, so the fatbins the
// library carries, then NVRTC.
struct KernelSearch {
  std::vector<std::filesystem::path> dirs;  // installed fatbins, looked for in this order
  bool force_nvrtc = false;                 // compile every module's carried source with NVRTC
};
// Before the first CUDA call: a module is loaded once per process.
void set_kernel_search(KernelSearch search);
KernelSearch kernel_search();
// The usual directories: `kernel_dir` when not empty (mmaemu's $MMAEMU_KERNEL_DIR), then
// <prefix>/share/mmaemu/kernels beside the running executable (<prefix>/bin).
std::vector<std::filesystem::path> installed_kernel_dirs(const std::filesystem::path& kernel_dir);

}  // namespace mmaemu
