// mmaemu check-dist PACKAGE: a release archive (or its unpacked folder) checked by
// mmaemu/tools/package_check.hpp.
#pragma once

#include <string>

#include "mmaemu/error.hpp"

namespace mmaemu::cli {

struct PackageArgs {
  std::string package, tag, out;
  bool require_fatbins = false, json = false;
};

Result<int> run_check_package(const PackageArgs& args);

}  // namespace mmaemu::cli
