#include "package_unpack.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#include "subprocess.hpp"

namespace mmaemu::cli {

namespace fs = std::filesystem;

ScratchDir::~ScratchDir() {
  std::error_code ec;
  if (!path.empty()) fs::remove_all(path, ec);
}

Result<void> ScratchDir::make(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "XXXXXX")).string();
  if (!mkdtemp(pattern.data()))
    return Error(Errc::io, "cannot make a scratch folder in " + fs::temp_directory_path().string());
  path = pattern;
  return {};
}

Result<fs::path> unpack_package(const fs::path& archive, ScratchDir& scratch) {
  if (auto made = scratch.make("mmaemu-package-"); !made) return made.error();
  auto [code, output] = run_command("tar -xzf " + shell_quoted(archive.string()) + " -C " +
                                    shell_quoted(scratch.path.string()));
  if (code != 0)
    return Error(Errc::malformed,
                 archive.string() + ": not a readable .tar.gz (tar: " + output + ")");
  std::vector<fs::path> tops;
  for (const auto& e : fs::directory_iterator(scratch.path)) tops.push_back(e.path());
  if (tops.size() != 1 || !fs::is_directory(tops[0]))
    return Error(Errc::malformed,
                 archive.string() + ": holds " + std::to_string(tops.size()) +
                     " top-level entries; a package holds one folder, mmaemu-<version>-<system>");
  return tops[0];
}

}  // namespace mmaemu::cli
