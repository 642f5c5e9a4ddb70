#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "check_package.hpp"
#include "command.hpp"
#include "data_location.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/package_check.hpp"
#include "mmaemu/truth.hpp"
#include "mmaemu/version.hpp"
#include "package_unpack.hpp"

namespace mmaemu::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json report_json(const PackageCheckReport& r, const std::string& package, const std::string& sha) {
  json items = json::array();
  for (const auto& i : r.items)
    items.push_back({{"check", i.name},
                     {"verdict", i.passed ? "PASS" : "FAIL"},
                     {"detail", i.detail},
                     {"problems", i.problems}});
  return {{"format", "mmaemu-check-dist/1"},
          {"package", package},
          {"package_sha256", sha},
          {"version", r.version},
          {"checked_by", std::string("mmaemu ") + kVersion + " (" + kGitCommit + ")"},
          {"verdict", r.passed() ? "PASS" : "FAIL"},
          {"checks", items}};
}

}  // namespace

PackageCheckOptions package_check_options(bool require_fatbins, const std::string& tag) {
  PackageCheckOptions options;
  options.tag = tag;
  options.require_fatbins = require_fatbins;
  // The trees this mmaemu was built from and runs in: the package must not name them.
  if (const auto source = build_tree_source()) options.forbidden_paths.push_back(source->string());
  options.forbidden_paths.push_back(fs::current_path().string());
  return options;
}

Result<int> run_check_package(const PackageArgs& args) {
  const fs::path package = args.package;
  if (!fs::exists(package))
    return Error(Errc::not_found, "check-dist: " + package.string() + ": no such file or folder");
  ScratchDir scratch;
  fs::path root = package;
  std::string sha;
  if (!fs::is_directory(package)) {
    auto hash = sha256_file(package);
    if (!hash) return hash.error();
    sha = *hash;
    auto top = unpack_package(package, scratch);
    if (!top) return top.error();
    root = *top;
  }
  auto report = check_package_tree(root, package_check_options(args.require_fatbins, args.tag));
  if (!report) return report.error();
  const json j = report_json(*report, package.string(), sha);
  if (!args.out.empty())
    if (auto ok = write_file_atomically(args.out, j.dump(1) + "\n"); !ok) return ok.error();
  if (args.json) {
    std::cout << j.dump(1) << "\n";
  } else {
    for (const auto& i : report->items) {
      std::cout << fmt::format(
          "{} {}: {}\n", i.passed ? "PASS" : "FAIL", i.name,
          i.passed ? i.detail : std::to_string(i.problems.size()) + " problem(s)");
      for (const auto& p : i.problems) std::cout << "  " << p << "\n";
    }
    std::cout << fmt::format("check-dist: {} {} {}{}\n", package.string(), report->version,
                             report->passed() ? "PASS" : "FAIL",
                             sha.empty() ? "" : " (sha256 " + sha + ")");
  }
  return report->passed() ? kExitOk : kExitVerdictFailed;
}

}  // namespace mmaemu::cli
