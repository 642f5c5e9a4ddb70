// Where the tests find the hardware truth: MMAEMU_TRUTH_DIR, else ../shared/truth beside the
// checkout, else the subsets bundled under tests/data (so that a fresh clone checks the central
// claims too: scripts/make-truth-subset.py cut them). A test that needs a set it cannot find
// exits with 77, which CTest reports as skipped.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace mmaemu::testing {

inline std::filesystem::path truth_root() {
  if (const char* env = std::getenv("MMAEMU_TRUTH_DIR"); env && *env) return env;
  return std::filesystem::path(MMAEMU_SOURCE_DIR) / ".." / "shared" / "truth";
}

inline bool has_truth_set(const std::string& name) {
  return std::filesystem::exists(truth_root() / name / "manifest.json");
}

inline std::filesystem::path bundled_set(const std::string& name) {
  return std::filesystem::path(MMAEMU_SOURCE_DIR) / "tests" / "data" / name;
}

// The project's own subset of the H200 recordings (138 calls of h200-dev and h200-epilogue-dev).
inline std::filesystem::path bundled_truth() {
  return bundled_set("h200-subset");
}

// The shared set `name`, else the bundled `stand_in` (said on stderr), else exit 77.
inline std::filesystem::path require_truth_set(const std::string& name,
                                               const std::string& stand_in = "") {
  const auto dir = truth_root() / name;
  if (std::filesystem::exists(dir / "manifest.json")) return dir;
  if (!stand_in.empty() && std::filesystem::exists(bundled_set(stand_in) / "manifest.json")) {
    std::cerr << "note: truth set " << dir << " not found: using the bundled subset "
              << bundled_set(stand_in) << " (set MMAEMU_TRUTH_DIR for the whole set)\n";
    return bundled_set(stand_in);
  }
  std::cerr << "SKIP: truth set " << dir << " not found (set MMAEMU_TRUTH_DIR)\n";
  std::exit(77);
}

}  // namespace mmaemu::testing
