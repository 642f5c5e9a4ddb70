#include "data_location.hpp"

#include <cstdlib>
#include <vector>

namespace mmaemu::cli {

std::filesystem::path executable_path() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : p;
}

std::optional<std::filesystem::path> bundled_truth_root() {
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("MMAEMU_DATA_DIR"); env && *env) candidates.emplace_back(env);
  const auto exe = executable_path();
  if (!exe.empty()) candidates.push_back(exe.parent_path().parent_path() / "share" / "mmaemu" / "truth");
  candidates.push_back(std::filesystem::path(MMAEMU_SOURCE_DIR) / "tests" / "data");
  for (const auto& c : candidates) {
    std::error_code ec;
    if (std::filesystem::is_directory(c, ec)) return c;
  }
  return std::nullopt;
}

}  // namespace mmaemu::cli
