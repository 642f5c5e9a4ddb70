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
#include "subprocess.hpp"

namespace mmaemu::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A scratch folder removed when the check ends, however it ends.
struct ScratchDir {
  fs::path path;
  ~ScratchDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

// The archive unpacked by the system's tar into `scratch`; its one top folder.
Result<fs::path> unpack(const fs::path& archive, ScratchDir& scratch) {
  std::string pattern = (fs::temp_directory_path() / "mmaemu-check-dist-XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    return Error(Errc::io, "check-dist: cannot make a scratch folder in " +
                               fs::temp_directory_path().string());
  scratch.path = pattern;
  auto [code, output] = run_command("tar -xzf " + shell_quoted(archive.string()) + " -C " +
                                    shell_quoted(scratch.path.string()));
  if (code != 0)
    return Error(Errc::malformed,
                 archive.string() + ": not a readable .tar.gz (tar: " + output + ")");
  std::vector<fs::path> tops;
  for (const auto& e : fs::directory_iterator(scratch.path)) tops.push_back(e.path());
  if (tops.size() != 1 || !fs::is_directory(tops[0]))
    return Error(Errc::malformed,
                 archive.string() + ": holds " + std::to_string(tops.size()) +
                     " top-level entries; a package holds one folder, mmaemu-<version>-<system>");
  return tops[0];
}

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
    auto top = unpack(package, scratch);
    if (!top) return top.error();
    root = *top;
  }
  PackageCheckOptions options;
  options.tag = args.tag;
  options.require_fatbins = args.require_fatbins;
  // The trees this mmaemu was built from and in, when it runs from them: the package must not
  // name them.
  if (const auto source = build_tree_source()) options.forbidden_paths.push_back(source->string());
  options.forbidden_paths.push_back(fs::current_path().string());
  auto report = check_package_tree(root, options);
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
