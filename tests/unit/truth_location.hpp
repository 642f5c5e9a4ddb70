// Where the tests find the hardware truth: MMAEMU_TRUTH_DIR, else ../shared/truth beside the
// checkout. A test that needs it and cannot find it exits with 77, which CTest reports as skipped.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace mmaemu::testing {

inline std::filesystem::path truth_root() {
  if (const char* env = std::getenv("MMAEMU_TRUTH_DIR"); env && *env) return env;
  return std::filesystem::path(MMAEMU_SOURCE_DIR) / ".." / "shared" / "truth";
}

inline std::filesystem::path require_truth_set(const std::string& name) {
  const auto dir = truth_root() / name;
  if (!std::filesystem::exists(dir / "manifest.json")) {
    std::cerr << "SKIP: truth set " << dir << " not found (set MMAEMU_TRUTH_DIR)\n";
    std::exit(77);
  }
  return dir;
}

inline std::filesystem::path bundled_truth() {
  return std::filesystem::path(MMAEMU_SOURCE_DIR) / "tests" / "data" / "h200-subset";
}

}  // namespace mmaemu::testing
