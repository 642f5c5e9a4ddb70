// Finds a fatbin on disk that may replace a carried one (see kernel_modules.hpp): only a file the
// disk's manifest vouches for, built from the sources the library was built from.
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <system_error>

#include "json_fields.hpp"
#include "json_object.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/install_location.hpp"
#include "mmaemu/tools/kernel_modules.hpp"
#include "mmaemu/truth.hpp"

namespace fs = std::filesystem;

namespace mmaemu {
namespace {

// modules.<module>.<key> where it is a string, else "": a manifest of another shape (a number
// where a hash belongs) is one that does not vouch for the fatbin, not an exception.
std::string module_field(const nlohmann::json& manifest, const std::string& module,
                         const char* key) {
  if (!manifest.is_object()) return {};
  auto modules = JsonFields(manifest, "the fatbin manifest").object("modules");
  if (!modules || !modules->has(module)) return {};
  auto entry = modules->object(module);
  if (!entry) return {};
  auto value = entry->string(key);
  return value ? *value : std::string();
}

std::string source_hash_in(const nlohmann::json& manifest, const std::string& module) {
  return module_field(manifest, module, "source_sha256");
}

}  // namespace

FatbinSearch find_installed_fatbin(const std::string& module, const std::vector<fs::path>& dirs,
                                   const std::string& carried_manifest) {
  FatbinSearch search;
  // The carried manifest parsed as every JSON the library reads; unreadable, it vouches for
  // nothing.
  const auto carried = parse_json_object(carried_manifest, "the carried fatbin manifest");
  const std::string wanted = carried ? source_hash_in(*carried, module) : std::string();
  for (const auto& dir : dirs) {
    const fs::path fatbin = dir / (module + ".fatbin"), manifest_path = dir / "manifest.json";
    std::error_code ec;
    if (!fs::is_regular_file(fatbin, ec)) continue;
    auto pass_over = [&](const std::string& why) {
      search.passed_over.push_back(fatbin.string() + ": " + why);
    };
    // Read and parsed as every JSON file the library reads (bounded nesting, an object).
    auto bytes = read_file_bytes(manifest_path);
    auto manifest =
        bytes ? parse_json_object({reinterpret_cast<const char*>(bytes->data()), bytes->size()},
                                  manifest_path.string())
              : Result<nlohmann::json>(bytes.error());
    if (!manifest) {
      pass_over("no readable manifest.json beside it");
      continue;
    }
    const std::string source_hash = source_hash_in(*manifest, module);
    if (wanted.empty() || source_hash != wanted) {
      pass_over("built from other sources than this mmaemu (source_sha256 " +
                (source_hash.empty() ? std::string("missing") : source_hash.substr(0, 12)) +
                ", this build's " +
                (wanted.empty() ? std::string("unknown") : wanted.substr(0, 12)) + ")");
      continue;
    }
    auto image = read_file_bytes(fatbin);
    if (!image) {
      pass_over(image.error().message());
      continue;
    }
    const std::string sha = module_field(*manifest, module, "sha256");
    if (sha256_bytes(*image) != sha) {
      pass_over("its sha256 differs from manifest.json's");
      continue;
    }
    search.found = InstalledFatbin{fatbin, std::move(*image)};
    return search;
  }
  return search;
}

namespace {

std::mutex& search_lock() {
  static std::mutex lock;
  return lock;
}

KernelSearch& search_setting() {
  static KernelSearch search;
  return search;
}

}  // namespace

void set_kernel_search(KernelSearch search) {
  std::lock_guard lock(search_lock());
  search_setting() = std::move(search);
}

KernelSearch kernel_search() {
  std::lock_guard lock(search_lock());
  return search_setting();
}

std::vector<fs::path> installed_kernel_dirs(const fs::path& kernel_dir) {
  std::vector<fs::path> dirs;
  if (!kernel_dir.empty()) dirs.push_back(kernel_dir);
  if (const fs::path share = installed_share_dir(); !share.empty())
    dirs.push_back(share / "kernels");
  return dirs;
}

}  // namespace mmaemu
