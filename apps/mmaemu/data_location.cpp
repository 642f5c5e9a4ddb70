#include "data_location.hpp"

#include <cstdlib>
#include <vector>

namespace mmaemu::cli {

std::optional<std::filesystem::path> bundled_truth_root() {
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("MMAEMU_DATA_DIR"); env && *env) candidates.emplace_back(env);
  if (const auto share = installed_share_dir(); !share.empty())
    candidates.push_back(share / "truth");
  candidates.push_back(std::filesystem::path(MMAEMU_SOURCE_DIR) / "tests" / "data");
  for (const auto& c : candidates) {
    std::error_code ec;
    if (std::filesystem::is_directory(c, ec)) return c;
  }
  return std::nullopt;
}

}  // namespace mmaemu::cli
