#include "mmaemu/tools/kernel_modules.hpp"
#include "json_object.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "mmaemu/safetensors.hpp"
#include "mmaemu/truth.hpp"

namespace mmaemu {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

Result<json> read_json(const fs::path& path) {
  auto bytes = read_file_bytes(path);
  if (!bytes) return bytes.error();
  return parse_json_object({reinterpret_cast<const char*>(bytes->data()), bytes->size()},
                           path.string());
}

bool strings_only(const json& j) {
  if (!j.is_array()) return false;
  for (const auto& x : j)
    if (!x.is_string()) return false;
  return true;
}

std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> v;
  if (j.contains(key) && j[key].is_array())
    for (const auto& x : j[key])
      if (x.is_string()) v.push_back(x.get<std::string>());
  return v;
}

}  // namespace

std::vector<std::string> kernel_modules_in(const fs::path& kernels_dir) {
  std::vector<std::string> modules;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kernels_dir, ec))
    if (entry.is_directory() && fs::exists(entry.path() / "spec.json"))
      modules.push_back(entry.path().filename().string());
  std::sort(modules.begin(), modules.end());
  return modules;
}

Result<KernelSpec> load_kernel_spec(const fs::path& kernels_dir, const std::string& module) {
  const fs::path path = kernels_dir / module / "spec.json";
  auto j = read_json(path);
  if (!j) return j.error();
  KernelSpec s;
  s.module = j->value("module", std::string());
  if (s.module != module)
    return Error(Errc::malformed, path.string() + ": module must be \"" + module + "\"");
  s.description = j->value("description", std::string());
  s.sources = strings(*j, "sources");
  s.headers = strings(*j, "headers");
  s.sass = strings(*j, "sass");
  s.ptx = strings(*j, "ptx");
  s.nvcc_flags = strings(*j, "nvcc_flags");
  if (s.sources.empty())
    return Error(Errc::malformed, path.string() + ": sources must name at least one file");
  if (s.sass.empty() && s.ptx.empty())
    return Error(Errc::malformed, path.string() + ": no sass or ptx architecture");
  return s;
}

Result<std::string> kernel_source_sha256(const fs::path& kernels_dir, const KernelSpec& spec) {
  std::vector<std::string> names = spec.sources;
  names.insert(names.end(), spec.headers.begin(), spec.headers.end());
  std::sort(names.begin(), names.end());
  names.push_back("spec.json");
  std::vector<uint8_t> all;
  for (const auto& name : names) {
    auto bytes = read_file_bytes(kernels_dir / spec.module / name);
    if (!bytes) return bytes.error();
    all.insert(all.end(), name.begin(), name.end());
    all.push_back(0);
    all.insert(all.end(), bytes->begin(), bytes->end());
  }
  return sha256_bytes(all);
}

Result<FatbinCheck> check_fatbins(const fs::path& kernels_dir, const fs::path& bin_dir,
                                  bool require_manifest, bool sources) {
  FatbinCheck check;
  const fs::path manifest_path = bin_dir / "manifest.json";
  if (!fs::exists(manifest_path)) {
    if (require_manifest) check.problems.push_back(manifest_path.string() + " is missing");
    return check;
  }
  auto manifest = read_json(manifest_path);
  if (!manifest) return manifest.error();
  if (!manifest->contains("modules") || !(*manifest)["modules"].is_object())
    return Error(Errc::malformed, manifest_path.string() + ": modules must be an object");
  const json& modules = (*manifest)["modules"];
  // Each entry an object whose fatbin, sha256 and source_sha256 are strings: a manifest of
  // another shape is malformed, named with the field (not an exception, exit 70).
  for (const auto& [module, entry] : modules.items()) {
    if (!entry.is_object())
      return Error(Errc::malformed,
                   manifest_path.string() + ": modules." + module + " must be an object");
    for (const char* key : {"fatbin", "sha256", "source_sha256"})
      if (entry.contains(key) && !entry[key].is_string())
        return Error(Errc::malformed, manifest_path.string() + ": modules." + module + "." + key +
                                          " must be a string");
    for (const char* key : {"sass", "ptx"})
      if (entry.contains(key) && !strings_only(entry[key]))
        return Error(Errc::malformed, manifest_path.string() + ": modules." + module + "." + key +
                                          " must be a list of strings");
  }
  for (const auto& [module, entry] : modules.items()) {
    ++check.modules;
    const fs::path fatbin = bin_dir / entry.value("fatbin", module + ".fatbin");
    auto hash = sha256_file(fatbin);
    if (!hash)
      check.problems.push_back(module + ": " + fatbin.string() + " is missing");
    else if (*hash != entry.value("sha256", std::string()))
      check.problems.push_back(module + ": " + fatbin.string() +
                               " does not match the manifest's sha256");
  }
  if (sources)
    for (const auto& module : kernel_modules_in(kernels_dir)) {
      if (!modules.contains(module)) {
        check.problems.push_back(module +
                                 ": not in the manifest (run mmaemu build-fatbin --release)");
        continue;
      }
      auto spec = load_kernel_spec(kernels_dir, module);
      if (!spec) return spec.error();
      auto hash = kernel_source_sha256(kernels_dir, *spec);
      if (!hash) return hash.error();
      if (*hash != modules[module].value("source_sha256", std::string()))
        check.problems.push_back(module +
                                 ": sources changed since its fatbin was built (stale fatbin)");
    }
  return check;
}

}  // namespace mmaemu
