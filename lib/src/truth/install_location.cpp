#include "mmaemu/tools/install_location.hpp"

#include <system_error>

namespace mmaemu {

std::filesystem::path executable_path() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : p;
}

std::filesystem::path installed_share_dir() {
  const auto exe = executable_path();
  if (exe.empty() || !exe.has_parent_path()) return {};
  return exe.parent_path().parent_path() / "share" / "mmaemu";
}

}  // namespace mmaemu
