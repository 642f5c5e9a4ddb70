#include "data_location.hpp"

#include <cstdlib>
#include <vector>

namespace mmaemu::cli {

std::optional<std::filesystem::path> build_tree_source() {
  namespace fs = std::filesystem;
  // The build tree's own executable, where the build put it: an installed copy, even one inside
  // the build directory (the package test's), is somewhere else.
  std::error_code ec;
  const fs::path exe = fs::weakly_canonical(executable_path(), ec);
  const fs::path built = fs::weakly_canonical(MMAEMU_BUILD_EXE_DIR, ec);
  if (exe.empty() || built.empty() || exe.parent_path() != built) return std::nullopt;
  return fs::path(MMAEMU_SOURCE_DIR);
}

std::optional<std::filesystem::path> bundled_truth_root() {
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("MMAEMU_DATA_DIR"); env && *env) candidates.emplace_back(env);
  if (const auto share = installed_share_dir(); !share.empty())
    candidates.push_back(share / "truth");
  if (const auto source = build_tree_source()) candidates.push_back(*source / "tests" / "data");
  for (const auto& c : candidates) {
    std::error_code ec;
    if (std::filesystem::is_directory(c, ec)) return c;
  }
  return std::nullopt;
}

}  // namespace mmaemu::cli
