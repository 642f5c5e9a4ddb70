// mmaemu build-fatbin and check-dist: the kernel modules' fatbins, built with the pinned nvcc
// (--release) or checked against their manifest by hashes alone (--check, check-dist).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "check_package.hpp"
#include "command.hpp"
#include "data_location.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/kernel_modules.hpp"
#include "mmaemu/truth.hpp"
#include "option_lists.hpp"
#include "subprocess.hpp"

namespace mmaemu::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kPinnedNvcc = "13.0";

struct BuildOptions {
  bool release = false, check = false, require_manifest = false, any_nvcc = false,
       skip_listings = false;
  std::string source, out, modules, nvcc = "/usr/local/cuda/bin/nvcc", cuobjdump;
};

// ptxas -v lines: registers, stack frame and spill bytes per kernel and architecture.
json resources(const std::string& log) {
  json out = json::object();
  static const std::regex entry(R"(Compiling entry function '(\w+)' for '(\w+)')");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex regs(R"(Used (\d+) registers)");
  std::string key;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, entry))
      key = m[1].str() + "@" + m[2].str();
    else if (!key.empty() && std::regex_search(line, m, frame)) {
      out[key]["stack_bytes"] = std::stoi(m[1]);
      out[key]["spill_bytes"] = std::stoi(m[2]) + std::stoi(m[3]);
    } else if (!key.empty() && std::regex_search(line, m, regs)) {
      out[key]["registers"] = std::stoi(m[1]);
    }
  }
  return out;
}

// cuobjdump: the one given, else $MMAEMU_CUOBJDUMP, the PATH's, the toolkit's, or the one
// scripts/install-cuobjdump.sh put in the source tree; empty when there is none.
std::string find_cuobjdump(const std::string& given, const fs::path& source) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("MMAEMU_CUOBJDUMP"); env && *env) return env;
  if (run_command("command -v cuobjdump").first == 0) return "cuobjdump";
  std::vector<fs::path> places = {"/usr/local/cuda/bin/cuobjdump"};
  if (!source.empty()) places.push_back(source / ".tools" / "cuobjdump" / "bin" / "cuobjdump");
  for (const fs::path& p : places)
    if (fs::exists(p)) return p.string();
  return {};
}

// The architectures a `cuobjdump --list-elf --list-ptx` listing names: SASS as sm_XY[a], PTX as
// compute_XY[a].
struct Listing {
  std::set<std::string> sass, ptx;
};
Listing parse_listing(const std::string& text) {
  Listing l;
  static const std::regex elf(R"(ELF file\s+\d+: \S*\.(sm_\w+)\.cubin)"),
      ptx(R"(PTX file\s+\d+: \S*\.sm_(\w+)\.ptx)");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, elf))
      l.sass.insert(m[1]);
    else if (std::regex_search(line, m, ptx))
      l.ptx.insert("compute_" + m[1].str());
  }
  return l;
}

// What the listing of `fatbin` lacks or has beyond the architectures expected, one line each.
Result<std::vector<std::string>> architecture_problems(const std::string& cuobjdump,
                                                       const std::string& module,
                                                       const fs::path& fatbin,
                                                       const std::vector<std::string>& sass,
                                                       const std::vector<std::string>& ptx,
                                                       std::string* listing) {
  auto [code, text] = run_command(shell_quoted(cuobjdump) + " --list-elf --list-ptx " +
                                  shell_quoted(fatbin.string()));
  if (code != 0)
    return Error(Errc::io,
                 module + ": " + cuobjdump + " failed on " + fatbin.string() + ":\n" + text);
  if (listing) *listing = text;
  const Listing l = parse_listing(text);
  const std::set<std::string> want_sass(sass.begin(), sass.end()), want_ptx(ptx.begin(), ptx.end());
  std::vector<std::string> problems;
  auto compare = [&](const char* kind, const std::set<std::string>& want,
                     const std::set<std::string>& got) {
    for (const auto& a : want)
      if (!got.count(a))
        problems.push_back(
            fmt::format("{}: {} has no {} {}", module, fatbin.filename().string(), kind, a));
    for (const auto& a : got)
      if (!want.count(a))
        problems.push_back(fmt::format("{}: {} has {} {}, not in its spec", module,
                                       fatbin.filename().string(), kind, a));
  };
  compare("SASS", want_sass, l.sass);
  compare("PTX", want_ptx, l.ptx);
  return problems;
}

// Instructions that would break bit-exactness if a kernel's PTX held them: contracted
// multiply-adds (contraction makes fma.rn; a multiply-add rounded toward zero or toward an
// infinity comes only from its intrinsic, written on purpose: v9's truncated terms), approximate
// or flushing arithmetic, approximate division.
const std::vector<std::pair<std::regex, std::string>>& forbidden_ptx() {
  static const std::vector<std::pair<std::regex, std::string>> rules = {
      {std::regex(R"(^\s*(@!?%p\d+\s+)?(fma|mad)(?!\.r[zmp]\b)(\.\w+)*\.f(16|32|64)\b)"),
       "a floating-point multiply-add"},
      {std::regex(R"(\.approx\b)"), "an approximate instruction"},
      {std::regex(R"(\.ftz\b)"), "subnormal flushing (.ftz)"},
      {std::regex(R"(^\s*(@!?%p\d+\s+)?div\.full\b)"), "approximate division (div.full)"}};
  return rules;
}

// Compiles the module to PTX for `arch` (compute_XY[a]) and scans it; the number of instruction
// lines, or the first forbidden one.
Result<int> check_ptx(const BuildOptions& o, const fs::path& kernels, const KernelSpec& spec,
                      const std::string& arch, const fs::path& scratch) {
  std::string command = shell_quoted(o.nvcc) + " -ptx -O3 -I" +
                        shell_quoted((kernels / "common").string()) + " -arch=" + arch;
  for (const auto& f : spec.nvcc_flags) command += " " + shell_quoted(f);
  command += " -o " + shell_quoted(scratch.string());
  for (const auto& src : spec.sources)
    command += " " + shell_quoted((kernels / spec.module / src).string());
  auto [code, log] = run_command(command);
  if (code != 0)
    return Error(Errc::io,
                 "build-fatbin: " + spec.module + ": nvcc -ptx -arch=" + arch + " failed:\n" + log);
  auto bytes = read_file_bytes(scratch);
  if (!bytes) return bytes.error();
  std::istringstream lines(std::string(bytes->begin(), bytes->end()));
  int instructions = 0, number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.find(';') == std::string::npos || line.find("//") == 0) continue;
    ++instructions;
    for (const auto& [rule, what] : forbidden_ptx())
      if (std::regex_search(line, rule))
        return Error(Errc::unsupported,
                     fmt::format("build-fatbin: {}: PTX for {} holds {} at line {}: {}",
                                 spec.module, arch, what, number, line));
  }
  return instructions;
}

Result<json> read_json_or(const fs::path& path, json fallback) {
  if (!fs::exists(path)) return fallback;
  auto bytes = read_file_bytes(path);
  if (!bytes) return bytes.error();
  json j = json::parse(bytes->begin(), bytes->end(), nullptr, false);
  if (j.is_discarded()) return Error(Errc::malformed, path.string() + ": not JSON");
  return j;
}

// The full version of the nvcc to build with (refused unless it is the pinned release, or
// --any-nvcc).
Result<std::string> pinned_nvcc(const BuildOptions& o) {
  auto [status, version_text] = run_command(shell_quoted(o.nvcc) + " --version");
  std::smatch m;
  static const std::regex release(R"(release (\d+\.\d+), V([\d.]+))");
  if (status != 0 || !std::regex_search(version_text, m, release))
    return Error(Errc::not_found, "build-fatbin: cannot run " + o.nvcc + " --version");
  const std::string nvcc_release = m[1], nvcc_full = m[2];
  if (nvcc_release != kPinnedNvcc && !o.any_nvcc)
    return Error(
        Errc::unsupported,
        fmt::format("build-fatbin: nvcc {} is not the pinned {} (--any-nvcc builds anyway)",
                    nvcc_release, kPinnedNvcc));
  return nvcc_full;
}

// nvcc for one module into `temporary`: each kernel's resources, refused when one spills.
Result<json> compile_module(const BuildOptions& o, const fs::path& kernels, const KernelSpec& spec,
                            const fs::path& temporary) {
  std::string command = shell_quoted(o.nvcc) + " -fatbin -O3 -Xptxas -v -I" +
                        shell_quoted((kernels / "common").string());
  for (const auto& f : spec.nvcc_flags) command += " " + shell_quoted(f);
  for (const auto& a : spec.sass) command += " -gencode=arch=compute_" + a.substr(3) + ",code=" + a;
  for (const auto& p : spec.ptx) command += " -gencode=arch=" + p + ",code=" + p;
  command += " -o " + shell_quoted(temporary.string());
  for (const auto& s : spec.sources)
    command += " " + shell_quoted((kernels / spec.module / s).string());
  auto [code, log] = run_command(command);
  if (code != 0) return Error(Errc::io, "build-fatbin: " + spec.module + ": nvcc failed:\n" + log);
  // ptxas note C7514: it serialises a kernel's wgmma steps (each waited for before the next) when
  // it cannot prove an accumulator free; the bits stay right and the steps stop overlapping,
  // unseen. No module's kernel may have it (h4's pipeline depends on it).
  static const std::regex serialised(R"(\(C7514\).*function '(\w+)')");
  if (std::smatch m; std::regex_search(log, m, serialised))
    return Error(Errc::unsupported, "build-fatbin: " + spec.module +
                                        ": ptxas serialises the wgmma steps of " + m[1].str() +
                                        " (C7514)");
  json used = resources(log);
  for (const auto& [kernel, r] : used.items())
    if (r.value("spill_bytes", 0) > 0 || r.value("stack_bytes", 0) > 0)
      return Error(Errc::unsupported,
                   "build-fatbin: " + spec.module + ": " + kernel + " spills or has a stack frame");
  return used;
}

// No forbidden instruction in the PTX of any architecture the module carries.
Result<json> check_module_ptx(const BuildOptions& o, const fs::path& kernels,
                              const KernelSpec& spec, const fs::path& out) {
  json ptx_check = json::object();
  std::vector<std::string> arches;
  for (const auto& a : spec.sass) arches.push_back("compute_" + a.substr(3));
  for (const auto& a : spec.ptx)
    if (std::find(arches.begin(), arches.end(), a) == arches.end()) arches.push_back(a);
  std::error_code ec;
  for (const auto& arch : arches) {
    auto instructions = check_ptx(o, kernels, spec, arch, out / (spec.module + ".ptx.tmp"));
    fs::remove(out / (spec.module + ".ptx.tmp"), ec);
    if (!instructions) return instructions.error();
    ptx_check[arch] = {{"instructions", *instructions}, {"forbidden", 0}};
  }
  return ptx_check;
}

// The fatbin's own listing, committed: exactly the spec's architectures, the fatbin named by its
// file name, not by this machine's path.
Result<void> write_listing(const std::string& cuobjdump, const KernelSpec& spec,
                           const fs::path& fatbin, const fs::path& out) {
  std::string listing;
  auto problems =
      architecture_problems(cuobjdump, spec.module, fatbin, spec.sass, spec.ptx, &listing);
  if (!problems) return problems.error();
  if (!problems->empty()) {
    std::error_code ec;
    fs::remove(fatbin, ec);
    return Error(Errc::unsupported, "build-fatbin: " + (*problems)[0]);
  }
  for (size_t at; (at = listing.find(fatbin.string())) != std::string::npos;)
    listing.replace(at, fatbin.string().size(), fatbin.filename().string());
  return write_file_atomically(out / "listings" / (spec.module + ".txt"), listing);
}

// One module built, checked and listed; its entries in the manifest and the build report.
Result<void> build_module(const BuildOptions& o, const fs::path& kernels, const fs::path& out,
                          const KernelSpec& spec, const std::string& cuobjdump,
                          const std::string& nvcc_full, json& manifest, json& report) {
  const fs::path fatbin = out / (spec.module + ".fatbin"),
                 temporary = out / (spec.module + ".fatbin.tmp");
  spdlog::info("building {}", spec.module);
  std::error_code ec;
  auto used = compile_module(o, kernels, spec, temporary);
  auto ptx_check = used ? check_module_ptx(o, kernels, spec, out) : Result<json>(used.error());
  if (!ptx_check) {
    fs::remove(temporary, ec);
    return ptx_check.error();
  }
  fs::rename(temporary, fatbin, ec);
  if (ec)
    return Error(Errc::io, "build-fatbin: cannot write " + fatbin.string() + ": " + ec.message());
  if (!cuobjdump.empty())
    if (auto ok = write_listing(cuobjdump, spec, fatbin, out); !ok) return ok.error();
  auto hash = sha256_file(fatbin);
  auto source_hash = kernel_source_sha256(kernels, spec);
  if (!hash) return hash.error();
  if (!source_hash) return source_hash.error();
  manifest["modules"][spec.module] = {{"fatbin", spec.module + ".fatbin"},
                                      {"sha256", *hash},
                                      {"source_sha256", *source_hash},
                                      {"sources", spec.sources},
                                      {"sass", spec.sass},
                                      {"ptx", spec.ptx},
                                      {"nvcc", nvcc_full},
                                      {"nvcc_flags", spec.nvcc_flags},
                                      {"bytes", fs::file_size(fatbin)}};
  report[spec.module] = {
      {"kernels", *used},
      {"ptx_check", *ptx_check},
      {"listing", cuobjdump.empty() ? json(nullptr) : json("listings/" + spec.module + ".txt")}};
  std::cout << fmt::format("build-fatbin: {}: {} bytes, {} kernel images", spec.module,
                           fs::file_size(fatbin), used->size())
            << std::endl;
  return {};
}

Result<int> build(const BuildOptions& o, const fs::path& kernels, const fs::path& out) {
  auto nvcc_full = pinned_nvcc(o);
  if (!nvcc_full) return nvcc_full.error();
  const std::string cuobjdump = o.skip_listings ? "" : find_cuobjdump(o.cuobjdump, o.source);
  if (cuobjdump.empty() && !o.skip_listings)
    return Error(Errc::not_found,
                 "build-fatbin: no cuobjdump to list the fatbins (scripts/install-cuobjdump.sh "
                 "installs the pinned one; --skip-listings builds without listings)");
  std::error_code ec;
  fs::create_directories(out / "listings", ec);
  auto manifest = read_json_or(out / "manifest.json",
                               json{{"format", "mmaemu-kernels/1"}, {"modules", json::object()}});
  if (!manifest) return manifest.error();
  auto report = read_json_or(out / "build_report.json", json::object());
  if (!report) return report.error();
  std::vector<std::string> modules = split_list(o.modules);
  if (modules.empty()) modules = kernel_modules_in(kernels);
  for (const auto& module : modules) {
    auto spec = load_kernel_spec(kernels, module);
    if (!spec) return spec.error();
    if (auto ok = build_module(o, kernels, out, *spec, cuobjdump, *nvcc_full, *manifest, *report);
        !ok)
      return ok.error();
  }
  if (auto ok = write_file_atomically(out / "build_report.json", report->dump(1) + "\n"); !ok)
    return ok.error();
  if (auto ok = write_file_atomically(out / "manifest.json", manifest->dump(1) + "\n"); !ok)
    return ok.error();
  return kExitOk;
}

Result<int> report_check(const std::string& what, const fs::path& dist, const FatbinCheck& c) {
  for (const auto& p : c.problems) std::cout << what << ": " << p << "\n";
  std::cout << fmt::format("{}: {} module(s) in {}, {}", what, c.modules, dist.string(),
                           c.problems.empty() ? "all up to date"
                                              : std::to_string(c.problems.size()) + " problem(s)")
            << std::endl;
  return c.problems.empty() ? kExitOk : kExitVerdictFailed;
}

Result<int> run_build_fatbin(const BuildOptions& given) {
  if (given.release == given.check)
    return Error(Errc::invalid_argument, "build-fatbin: pass exactly one of --release, --check");
  BuildOptions o = given;
  if (o.source.empty()) {
    const auto source = build_tree_source();
    if (!source)
      return Error(Errc::invalid_argument,
                   "build-fatbin: --source: give the source tree holding kernels/ (this mmaemu "
                   "does not run from its build tree)");
    o.source = source->string();
  }
  const fs::path kernels = fs::path(o.source) / "kernels";
  const fs::path out = o.out.empty() ? kernels / "bin" : fs::path(o.out);
  if (o.release) return build(o, kernels, out);
  auto c = check_fatbins(kernels, out, o.require_manifest, true);
  if (!c) return c.error();
  return report_check("build-fatbin --check", out, *c);
}

struct DistOptions {
  bool verify_manifest = false, require_cuobjdump = false;
  std::string dist, cuobjdump;
};

Result<int> run_check_dist(const DistOptions& given) {
  if (!given.verify_manifest)
    return Error(Errc::invalid_argument,
                 "check-dist: nothing to check (give a PACKAGE, or pass --verify-manifest)");
  // Default: the source tree's kernels/bin from a build tree, else an installed mmaemu's kernels.
  DistOptions o = given;
  const auto source = build_tree_source();
  if (o.dist.empty()) {
    if (source)
      o.dist = (*source / "kernels" / "bin").string();
    else if (const fs::path share = installed_share_dir();
             !share.empty() && fs::is_directory(share / "kernels"))
      o.dist = (share / "kernels").string();
    else
      return Error(Errc::invalid_argument,
                   "check-dist: --dist: give the folder of fatbins and manifest.json");
  }
  auto c = check_fatbins({}, o.dist, true, false);
  if (!c) return c.error();
  // Each fatbin's architectures, as cuobjdump lists them, against the manifest's.
  const std::string cuobjdump = find_cuobjdump(o.cuobjdump, source.value_or(fs::path()));
  if (cuobjdump.empty()) {
    if (o.require_cuobjdump)
      c->problems.push_back("no cuobjdump to list the fatbins (scripts/install-cuobjdump.sh)");
    else
      spdlog::warn(
          "check-dist: architectures not checked: no cuobjdump (scripts/install-cuobjdump.sh)");
  } else if (c->problems.empty()) {
    auto manifest = read_json_or(fs::path(o.dist) / "manifest.json", json::object());
    if (!manifest) return manifest.error();
    for (const auto& [module, entry] : (*manifest)["modules"].items()) {
      auto problems = architecture_problems(
          cuobjdump, module, fs::path(o.dist) / entry.value("fatbin", module + ".fatbin"),
          entry.value("sass", std::vector<std::string>()),
          entry.value("ptx", std::vector<std::string>()), nullptr);
      if (!problems) return problems.error();
      c->problems.insert(c->problems.end(), problems->begin(), problems->end());
    }
    if (c->problems.empty())
      std::cout << "check-dist: every fatbin's architectures equal its manifest's (cuobjdump)\n";
  }
  return report_check("check-dist", o.dist, *c);
}

}  // namespace

Runner setup_build_fatbin(CLI::App& app) {
  auto o = std::make_shared<BuildOptions>();
  app.add_flag("--release", o->release, "build every module (or --modules) with the pinned nvcc");
  app.add_flag("--check", o->check,
               "sources and fatbins against the manifest, by hashes (no nvcc)");
  app.add_flag("--require-manifest", o->require_manifest,
               "--check: a missing manifest is a failure");
  app.add_option("--source", o->source,
                 "the source tree holding kernels/ (default: the one this mmaemu was built from, "
                 "when run from its build tree)");
  app.add_option("--out", o->out, "where the fatbins go (default: SOURCE/kernels/bin)");
  app.add_option("--modules", o->modules, "modules to build, comma-separated (default: all)");
  app.add_option("--nvcc", o->nvcc, "the nvcc to run")->capture_default_str();
  app.add_flag("--any-nvcc", o->any_nvcc, "build with an nvcc other than the pinned one");
  app.add_option("--cuobjdump", o->cuobjdump,
                 "the cuobjdump that lists the fatbins (default: found)");
  app.add_flag("--skip-listings", o->skip_listings,
               "--release without cuobjdump listings and architecture check");
  return [o] { return run_build_fatbin(*o); };
}

Runner setup_check_dist(CLI::App& app) {
  auto o = std::make_shared<DistOptions>();
  auto p = std::make_shared<PackageArgs>();
  app.add_option("package", p->package,
                 "a release archive (mmaemu-<version>-Linux-<arch>.tar.gz) or its unpacked folder: "
                 "contents, licences, version, fatbins, build paths, runtime libraries");
  app.add_flag("--require-fatbins", p->require_fatbins,
               "PACKAGE: a package without the kernel modules' fatbins fails");
  app.add_option("--tag", p->tag, "PACKAGE: the release tag (vX.Y.Z) the version must equal");
  app.add_flag("--json", p->json, "PACKAGE: print the report as JSON to stdout");
  app.add_option("--out", p->out, "PACKAGE: write the report (JSON) to this file");
  app.add_flag("--verify-manifest", o->verify_manifest,
               "every fatbin's sha256 equals its manifest entry");
  app.add_option("--dist", o->dist,
                 "the folder of fatbins and manifest.json (default: the source tree's kernels/bin "
                 "from a build tree, else the installed share/mmaemu/kernels)");
  app.add_option("--cuobjdump", o->cuobjdump,
                 "the cuobjdump that lists the fatbins (default: found)");
  app.add_flag("--require-cuobjdump", o->require_cuobjdump,
               "fail when no cuobjdump can check the architectures");
  return [o, p]() -> Result<int> {
    if (!p->package.empty()) {
      if (o->verify_manifest || !o->dist.empty())
        return Error(Errc::invalid_argument,
                     "check-dist: give a PACKAGE or --verify-manifest [--dist DIR], not both");
      return run_check_package(*p);
    }
    if (p->require_fatbins || !p->tag.empty() || p->json || !p->out.empty())
      return Error(Errc::invalid_argument,
                   "check-dist: --require-fatbins, --tag, --json and --out need a PACKAGE");
    return run_check_dist(*o);
  };
}

}  // namespace mmaemu::cli
