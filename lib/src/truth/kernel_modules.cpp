#include "mmaemu/tools/kernel_modules.hpp"
#include "json_fields.hpp"
#include "json_object.hpp"

#include <algorithm>
#include <map>
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

// What a fatbin manifest says of one module (bin/manifest.json, modules.<name>).
struct FatbinEntry {
  std::string fatbin, sha256, source_sha256;
};

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
  const JsonFields f(*j, path.string());
  KernelSpec s;
  MMAEMU_TRY(s.module, f.string("module", ""));
  if (s.module != module) return f.error("module", "must be \"" + module + "\"");
  MMAEMU_TRY(s.description, f.string("description", ""));
  MMAEMU_TRY(s.sources, f.strings("sources"));
  MMAEMU_TRY(s.headers, f.strings("headers"));
  MMAEMU_TRY(s.sass, f.strings("sass"));
  MMAEMU_TRY(s.ptx, f.strings("ptx"));
  MMAEMU_TRY(s.nvcc_flags, f.strings("nvcc_flags"));
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
  // Each entry an object whose fatbin, sha256 and source_sha256 are strings: a manifest of
  // another shape is malformed, named with the field (not an exception, exit 70).
  auto modules = JsonFields(*manifest, manifest_path.string()).object("modules");
  if (!modules) return modules.error();
  std::map<std::string, FatbinEntry> entries;
  for (const auto& item : modules->json().items()) {
    const std::string& module = item.key();
    auto entry = modules->object(module);
    if (!entry) return entry.error();
    FatbinEntry& e = entries[module];
    MMAEMU_TRY(e.fatbin, entry->string("fatbin", module + ".fatbin"));
    MMAEMU_TRY(e.sha256, entry->string("sha256", ""));
    MMAEMU_TRY(e.source_sha256, entry->string("source_sha256", ""));
    for (const char* key : {"sass", "ptx"})
      if (auto listed = entry->strings(key); !listed) return listed.error();
  }
  for (const auto& [module, entry] : entries) {
    ++check.modules;
    const fs::path fatbin = bin_dir / entry.fatbin;
    auto hash = sha256_file(fatbin);
    if (!hash)
      check.problems.push_back(module + ": " + fatbin.string() + " is missing");
    else if (*hash != entry.sha256)
      check.problems.push_back(module + ": " + fatbin.string() +
                               " does not match the manifest's sha256");
  }
  if (sources)
    for (const auto& module : kernel_modules_in(kernels_dir)) {
      if (!entries.count(module)) {
        check.problems.push_back(module +
                                 ": not in the manifest (run mmaemu build-fatbin --release)");
        continue;
      }
      auto spec = load_kernel_spec(kernels_dir, module);
      if (!spec) return spec.error();
      auto hash = kernel_source_sha256(kernels_dir, *spec);
      if (!hash) return hash.error();
      if (*hash != entries.at(module).source_sha256)
        check.problems.push_back(module +
                                 ": sources changed since its fatbin was built (stale fatbin)");
    }
  return check;
}

}  // namespace mmaemu
