// mmaemu check-dist PACKAGE: a release archive (or its unpacked folder) checked by
// mmaemu/tools/package_check.hpp.
#pragma once

#include <string>

#include "mmaemu/error.hpp"
#include "mmaemu/tools/package_check.hpp"

namespace mmaemu::cli {

struct PackageArgs {
  std::string package, tag, out;
  bool require_fatbins = false, json = false;
};

Result<int> run_check_package(const PackageArgs& args);

// The checks' options as check-dist and validate-release both set them: the source tree this
// mmaemu was built from (when it runs from its build tree) and the current folder are paths no
// file of the package may contain.
PackageCheckOptions package_check_options(bool require_fatbins, const std::string& tag);

}  // namespace mmaemu::cli
