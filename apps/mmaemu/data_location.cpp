#include "data_location.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace mmaemu::cli {

std::optional<std::filesystem::path> build_tree_source() {
  namespace fs = std::filesystem;
  // The build writes the file beside the executable it builds and never installs it, so an
  // installed or copied executable finds none.
  std::error_code ec;
  const fs::path exe = fs::weakly_canonical(executable_path(), ec);
  if (exe.empty()) return std::nullopt;
  std::ifstream in(exe.parent_path() / "mmaemu-source-tree");
  std::string line;
  if (!in || !std::getline(in, line) || line.empty()) return std::nullopt;
  const fs::path source(line);
  if (!fs::is_directory(source / "profiles", ec)) return std::nullopt;
  return source;
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
