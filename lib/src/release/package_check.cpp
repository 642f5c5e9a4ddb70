// The checks of an unpacked release archive (tools/package_check.hpp). The ELF reader is written
// here by hand: it reads one table (DT_NEEDED) with glibc's <elf.h> structures, which is less
// than a dependency on libelf would cost a package checker that must itself run anywhere.
#include "mmaemu/tools/package_check.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/kernel_modules.hpp"

namespace mmaemu {
namespace {

namespace fs = std::filesystem;

std::string text_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The files every package holds, relative to its top folder.
const std::vector<std::string>& required_files() {
  static const std::vector<std::string> files = {
      "bin/mmaemu",
      "lib/libmmaemu.a",
      "include/mmaemu/emulate.hpp",
      "include/mmaemu/version.hpp",
      "lib/cmake/mmaemu/mmaemuConfig.cmake",
      "lib/cmake/mmaemu/mmaemuConfigVersion.cmake",
      "lib/cmake/mmaemu/mmaemuTargets.cmake",
      "share/mmaemu/profiles/hopper.json",
      "share/mmaemu/profiles/hopper-split-k.json",
      "share/mmaemu/profiles/ada.json",
      "share/mmaemu/truth/README.md",
      "share/doc/mmaemu/LICENSE",
      "share/doc/mmaemu/NOTICE",
      "share/doc/mmaemu/CHANGELOG.md",
      "share/doc/mmaemu/CITATION.cff",
      "share/doc/mmaemu/LICENSES/README.md",
  };
  return files;
}

PackageCheckItem check_contents(const fs::path& root) {
  PackageCheckItem item{"contents"};
  for (const auto& f : required_files())
    if (!fs::is_regular_file(root / f)) item.problems.push_back(f + " is missing");
  // The bundled truth: every set a manifest.json, every file it names present.
  int sets = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root / "share/mmaemu/truth", ec)) {
    if (!entry.is_directory()) continue;
    ++sets;
    if (!fs::is_regular_file(entry.path() / "manifest.json"))
      item.problems.push_back("share/mmaemu/truth/" + entry.path().filename().string() +
                              "/manifest.json is missing");
  }
  if (sets == 0) item.problems.push_back("share/mmaemu/truth holds no truth set");
  if (fs::exists(root / "bin/mmaemu") &&
      (fs::status(root / "bin/mmaemu").permissions() & fs::perms::owner_exec) == fs::perms::none)
    item.problems.push_back("bin/mmaemu is not executable");
  item.detail = std::to_string(required_files().size()) + " required files, " +
                std::to_string(sets) + " bundled truth sets";
  return item;
}

PackageCheckItem check_licences(const fs::path& root) {
  PackageCheckItem item{"licences"};
  const fs::path doc = root / "share/doc/mmaemu";
  const std::string licence = text_of(doc / "LICENSE");
  if (licence.find("Apache License") == std::string::npos ||
      licence.find("Version 2.0") == std::string::npos)
    item.problems.push_back("share/doc/mmaemu/LICENSE is not the Apache License 2.0");
  if (text_of(doc / "NOTICE").find("BSD 2-Clause") == std::string::npos)
    item.problems.push_back(
        "share/doc/mmaemu/NOTICE lacks the BSD 2-Clause notice of the MATLAB tensor-core models");
  // Every file LICENSES/README.md names in backticks is there.
  const std::string index = text_of(doc / "LICENSES/README.md");
  static const std::regex named("`([A-Za-z0-9_.+-]+\\.(copyright|txt))`");
  int named_files = 0;
  for (std::sregex_iterator it(index.begin(), index.end(), named), end; it != end; ++it) {
    ++named_files;
    if (!fs::is_regular_file(doc / "LICENSES" / (*it)[1].str()))
      item.problems.push_back("share/doc/mmaemu/LICENSES/" + (*it)[1].str() +
                              " is named in LICENSES/README.md but missing");
  }
  if (named_files == 0)
    item.problems.push_back("share/doc/mmaemu/LICENSES/README.md names no licence file");
  item.detail = "LICENSE (Apache-2.0), NOTICE, " + std::to_string(named_files) +
                " licence files named in LICENSES/README.md";
  return item;
}

std::string first_match(const std::string& text, const std::regex& re) {
  std::smatch m;
  return std::regex_search(text, m, re) ? m[1].str() : std::string();
}

PackageCheckItem check_version(const fs::path& root, const PackageCheckOptions& options,
                               std::string& version) {
  PackageCheckItem item{"version"};
  version = first_match(text_of(root / "include/mmaemu/version.hpp"),
                        std::regex(R"(kVersion\s*=\s*"([^"]+)\")"));
  if (version.empty()) {
    item.problems.push_back("include/mmaemu/version.hpp names no kVersion");
    return item;
  }
  const std::string config =
      first_match(text_of(root / "lib/cmake/mmaemu/mmaemuConfigVersion.cmake"),
                  std::regex(R"(set\(PACKAGE_VERSION\s+"([^"]+)\"\))"));
  if (config != version)
    item.problems.push_back("lib/cmake/mmaemu/mmaemuConfigVersion.cmake says " + config +
                            ", version.hpp " + version);
  const std::string folder = fs::absolute(root).lexically_normal().filename().string();
  const std::string folder_name =
      folder.empty() ? fs::absolute(root).parent_path().filename().string() : folder;
  if (folder_name.rfind("mmaemu-" + version + "-", 0) != 0)
    item.problems.push_back("the top folder " + folder_name + " is not mmaemu-" + version +
                            "-<system>");
  // CHANGELOG.md: a "## <version>" heading; a tagged release may not call it unreleased.
  const std::string changelog = text_of(root / "share/doc/mmaemu/CHANGELOG.md");
  std::smatch heading;
  const std::regex heading_re(
      "(^|\n)## \\[?" + std::regex_replace(version, std::regex("\\."), "\\.") + "\\]?([^\n]*)");
  if (!std::regex_search(changelog, heading, heading_re))
    item.problems.push_back("share/doc/mmaemu/CHANGELOG.md has no '## " + version + "' section");
  else if (!options.tag.empty() && heading[2].str().find("unreleased") != std::string::npos)
    item.problems.push_back("share/doc/mmaemu/CHANGELOG.md still calls " + version +
                            " unreleased, and the package is tagged " + options.tag);
  if (!options.tag.empty() && options.tag != "v" + version)
    item.problems.push_back("--tag " + options.tag + " is not v" + version);
  item.detail = version + (options.tag.empty() ? "" : " (tag " + options.tag + ")") +
                " in version.hpp, the CMake package, the folder name and CHANGELOG.md";
  return item;
}

Result<PackageCheckItem> check_fatbins_of(const fs::path& root, bool require) {
  PackageCheckItem item{"fatbins"};
  const fs::path dir = root / "share/mmaemu/kernels";
  if (!fs::exists(dir / "manifest.json")) {
    if (require) item.problems.push_back("share/mmaemu/kernels/manifest.json is missing");
    item.detail = "no fatbins (the GPU path compiles with NVRTC)";
    return item;
  }
  auto checked = check_fatbins({}, dir, true, false);
  if (!checked) return checked.error();
  item.problems = checked->problems;
  item.detail = std::to_string(checked->modules) + " fatbins equal to their manifest's sha256";
  return item;
}

PackageCheckItem check_build_paths(const fs::path& root, const PackageCheckOptions& options) {
  PackageCheckItem item{"build paths"};
  // Spelled with a '|' taken out at run time: the literals themselves are in this library, and
  // so in every package.
  std::vector<std::string> needles = {"/CMake|Files/", "CMake|Cache.txt"};
  for (auto& n : needles) n.erase(n.find('|'), 1);
  for (const auto& p : options.forbidden_paths)
    if (p.size() > 1) needles.push_back(p);
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    // Fatbins and safetensors are data from elsewhere, read only for the needles below.
    const std::string bytes = text_of(entry.path());
    const std::string rel = fs::relative(entry.path(), root).string();
    for (const auto& n : needles)
      if (bytes.find(n) != std::string::npos) {
        item.problems.push_back(rel + " contains '" + n + "'");
        break;
      }
    // CMake files may name paths only relative to the package (${_IMPORT_PREFIX}).
    if (entry.path().extension() == ".cmake") {
      static const std::regex absolute(R"re("(/(home|work|root|tmp|build|src)/[^"]*)")re");
      const std::string path = first_match(bytes, absolute);
      if (!path.empty()) item.problems.push_back(rel + " names the absolute path " + path);
    }
  }
  item.detail = std::to_string(files) + " files searched for " + std::to_string(needles.size()) +
                " markers of the build machine";
  return item;
}

PackageCheckItem check_runtime(const fs::path& root) {
  PackageCheckItem item{"runtime"};
  auto needed = elf_needed_libraries(root / "bin/mmaemu");
  if (!needed) {
    item.problems.push_back("bin/mmaemu: " + needed.error().message());
    return item;
  }
  const auto& allowed = allowed_runtime_libraries();
  std::string list;
  for (const auto& lib : *needed) {
    list += (list.empty() ? "" : " ") + lib;
    if (std::find(allowed.begin(), allowed.end(), lib) == allowed.end())
      item.problems.push_back("bin/mmaemu needs " + lib +
                              ", which a fresh Debian bookworm machine lacks");
  }
  item.detail = "bin/mmaemu needs only " + list;
  return item;
}

}  // namespace

bool PackageCheckReport::passed() const {
  return std::all_of(items.begin(), items.end(), [](const auto& i) { return i.passed; });
}

const std::vector<std::string>& allowed_runtime_libraries() {
  static const std::vector<std::string> libs = {
      "libc.so.6",  "libm.so.6",       "libstdc++.so.6", "libgcc_s.so.1",
      "libdl.so.2", "libpthread.so.0", "librt.so.1",     "ld-linux-x86-64.so.2"};
  return libs;
}

Result<std::vector<std::string>> elf_needed_libraries(const fs::path& path) {
  auto bytes = read_file_bytes(path);
  if (!bytes) return bytes.error();
  const auto& b = *bytes;
  const auto malformed = [&](const std::string& why) {
    return Error(Errc::malformed, path.string() + ": " + why);
  };
  Elf64_Ehdr eh;
  if (b.size() < sizeof eh || std::memcmp(b.data(), ELFMAG, SELFMAG) != 0)
    return malformed("not an ELF file");
  std::memcpy(&eh, b.data(), sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return malformed("not a 64-bit little-endian ELF file");
  const auto header_at = [&](uint64_t offset, size_t size) {
    return offset <= b.size() && size <= b.size() - offset;
  };
  // The dynamic section and the string table it points at (an address, mapped through PT_LOAD).
  std::vector<Elf64_Phdr> loads;
  Elf64_Phdr dynamic{};
  bool has_dynamic = false;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    const uint64_t off = eh.e_phoff + uint64_t{i} * eh.e_phentsize;
    if (!header_at(off, sizeof(Elf64_Phdr))) return malformed("program header out of the file");
    Elf64_Phdr ph;
    std::memcpy(&ph, b.data() + off, sizeof ph);
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
    if (ph.p_type == PT_DYNAMIC) dynamic = ph, has_dynamic = true;
  }
  std::vector<std::string> needed;
  if (!has_dynamic) return needed;  // static executable
  const auto file_offset = [&](uint64_t address) -> std::optional<uint64_t> {
    for (const auto& l : loads)
      if (address >= l.p_vaddr && address < l.p_vaddr + l.p_filesz)
        return address - l.p_vaddr + l.p_offset;
    return std::nullopt;
  };
  std::vector<uint64_t> name_offsets;
  std::optional<uint64_t> strtab;
  for (uint64_t off = dynamic.p_offset;
       off + sizeof(Elf64_Dyn) <= dynamic.p_offset + dynamic.p_filesz; off += sizeof(Elf64_Dyn)) {
    if (!header_at(off, sizeof(Elf64_Dyn))) return malformed("dynamic section out of the file");
    Elf64_Dyn d;
    std::memcpy(&d, b.data() + off, sizeof d);
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_NEEDED) name_offsets.push_back(d.d_un.d_val);
    if (d.d_tag == DT_STRTAB) strtab = file_offset(d.d_un.d_ptr);
  }
  if (!strtab && !name_offsets.empty()) return malformed("no string table for DT_NEEDED");
  for (uint64_t name : name_offsets) {
    const uint64_t at = *strtab + name;
    if (at >= b.size()) return malformed("DT_NEEDED name out of the file");
    const char* s = reinterpret_cast<const char*>(b.data() + at);
    needed.emplace_back(s, strnlen(s, b.size() - at));
  }
  return needed;
}

Result<PackageCheckReport> check_package_tree(const fs::path& root,
                                              const PackageCheckOptions& options) {
  if (!fs::is_directory(root)) return Error(Errc::not_found, root.string() + ": not a folder");
  PackageCheckReport report;
  report.root = root.string();
  report.items.push_back(check_contents(root));
  report.items.push_back(check_licences(root));
  report.items.push_back(check_version(root, options, report.version));
  auto fatbins = check_fatbins_of(root, options.require_fatbins);
  if (!fatbins) return fatbins.error();
  report.items.push_back(*fatbins);
  report.items.push_back(check_build_paths(root, options));
  report.items.push_back(check_runtime(root));
  for (auto& item : report.items) item.passed = item.problems.empty();
  return report;
}

}  // namespace mmaemu
