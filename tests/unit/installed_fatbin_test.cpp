// An installed fatbin replaces a carried one only when its manifest vouches for its bytes and it
// was built from the carried module's sources (find_installed_fatbin); no GPU needed.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mmaemu/tools/kernel_modules.hpp"
#include "mmaemu/truth.hpp"

namespace fs = std::filesystem;
using namespace mmaemu;

namespace {

struct Folder {
  fs::path path;
  explicit Folder(const std::string& name)
      : path(fs::temp_directory_path() / ("mmaemu-installed-" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
};

std::string manifest(const std::string& sha, const std::string& source_sha) {
  nlohmann::json m;
  m["format"] = "mmaemu-kernels/1";
  m["modules"]["h4"] = {{"fatbin", "h4.fatbin"}, {"sha256", sha}, {"source_sha256", source_sha}};
  return m.dump();
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("an installed fatbin built from the same sources is taken", "[kernels][install]") {
  Folder dir("same");
  const std::string bytes = "not a real fatbin, but bytes all the same";
  const std::string sha =
      sha256_bytes(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  write(dir.path / "h4.fatbin", bytes);
  write(dir.path / "manifest.json", manifest(sha, "abc123"));
  const auto found = find_installed_fatbin("h4", {dir.path}, manifest("carried", "abc123"));
  REQUIRE(found.found);
  CHECK(found.found->path == dir.path / "h4.fatbin");
  CHECK(found.found->image.size() == bytes.size());
  CHECK(found.passed_over.empty());
  // Another module, or a folder without the file: nothing found, nothing said.
  const auto other =
      find_installed_fatbin("h1", {dir.path, dir.path / "absent"}, manifest("carried", "abc123"));
  CHECK_FALSE(other.found);
  CHECK(other.passed_over.empty());
}

TEST_CASE("an installed fatbin from other sources or with other bytes is passed over",
          "[kernels][install]") {
  Folder first("other-sources"), second("other-bytes"), third("no-manifest");
  const std::string bytes = "fatbin bytes";
  const std::string sha =
      sha256_bytes(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  write(first.path / "h4.fatbin", bytes);
  write(first.path / "manifest.json", manifest(sha, "older"));
  write(second.path / "h4.fatbin", bytes + " changed");
  write(second.path / "manifest.json", manifest(sha, "abc123"));
  write(third.path / "h4.fatbin", bytes);
  const auto search = find_installed_fatbin("h4", {first.path, second.path, third.path},
                                            manifest("carried", "abc123"));
  CHECK_FALSE(search.found);
  REQUIRE(search.passed_over.size() == 3);
  CHECK(search.passed_over[0].find("other sources") != std::string::npos);
  CHECK(search.passed_over[0].find((first.path / "h4.fatbin").string()) != std::string::npos);
  CHECK(search.passed_over[1].find("sha256") != std::string::npos);
  CHECK(search.passed_over[2].find("manifest.json") != std::string::npos);
}

TEST_CASE("installed fatbins are looked for in the given folder, then beside the executable",
          "[kernels][install]") {
  auto dirs = installed_kernel_dirs("/opt/kernels-here");
  REQUIRE(dirs.size() == 2);
  CHECK(dirs[0] == fs::path("/opt/kernels-here"));
  CHECK(dirs[1].filename() == "kernels");
  CHECK(dirs[1].parent_path().filename() == "mmaemu");
  CHECK(installed_kernel_dirs("").size() == 1);
}

TEST_CASE("the library reads no environment: the kernel search is what the application sets",
          "[kernels][install]") {
  setenv("MMAEMU_KERNEL_DIR", "/opt/kernels-here", 1);
  setenv("MMAEMU_FORCE_NVRTC", "1", 1);
  CHECK(kernel_search().dirs.empty());
  CHECK_FALSE(kernel_search().force_nvrtc);
  unsetenv("MMAEMU_KERNEL_DIR");
  unsetenv("MMAEMU_FORCE_NVRTC");
  set_kernel_search({{"/a", "/b"}, true});
  CHECK(kernel_search().dirs.size() == 2);
  CHECK(kernel_search().force_nvrtc);
  set_kernel_search({});
  CHECK(kernel_search().dirs.empty());
}
