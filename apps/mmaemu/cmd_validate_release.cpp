// mmaemu validate-release PACKAGE: the release archive unpacked into a fresh scratch prefix and
// run from there, as a user who downloaded it would, with no nvcc on PATH and no CUDA_HOME: the
// package checks (check-dist), info, selftest, a conformance subset of every kernel module where a
// GPU answers, every bundled truth set replayed, the Evo 2 projection against its hardware
// recording, and a find_package(mmaemu) consumer built against the prefix. One verdict per check
// in release_logs/<version>_<gpu or cpu>.json.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "check_package.hpp"
#include "command.hpp"
#include "data_location.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/package_check.hpp"
#include "mmaemu/truth.hpp"
#include "mmaemu/version.hpp"
#include "package_unpack.hpp"
#include "subprocess.hpp"

namespace mmaemu::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ReleaseArgs {
  std::string package, out;
  bool json = false;
  int conform_calls = 20;
};

struct Check {
  std::string name, verdict, detail, command;  // verdict: PASS, FAIL or SKIP (detail says why)
  double seconds = 0;
  std::string summary{};  // the command's summary line (command_check), e.g. "replay: 138/138 ..."
};

// One command of the unpacked package, run with the clean environment; its status and output.
struct Ran {
  int code = -1;
  std::string output;
  double seconds = 0;
};

Ran run_timed(const std::string& command) {
  const auto start = std::chrono::steady_clock::now();
  auto [code, output] = run_command(command);
  return {code, output,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

// The last line of `output` that matches `pattern`, else its last non-empty line.
std::string summary_line(const std::string& output, const std::string& pattern) {
  std::istringstream lines(output);
  std::string line, last, matched;
  const std::regex re(pattern);
  for (std::string l; std::getline(lines, l);) {
    if (!l.empty()) last = l;
    if (std::regex_search(l, re)) matched = l;
  }
  return matched.empty() ? last : matched;
}

// As a fresh user's shell: no nvcc on PATH, no CUDA_HOME, none of mmaemu's own variables, a
// selftest cache of its own.
void clean_environment(const fs::path& scratch) {
  std::string path;
  if (const char* p = std::getenv("PATH")) {
    std::istringstream parts(p);
    for (std::string dir; std::getline(parts, dir, ':');) {
      std::error_code ec;
      if (dir.empty() || fs::exists(fs::path(dir) / "nvcc", ec)) continue;
      path += (path.empty() ? "" : ":") + dir;
    }
  }
  setenv("PATH", path.c_str(), 1);
  for (const char* v :
       {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "MMAEMU_DATA_DIR", "MMAEMU_KERNEL_DIR",
        "MMAEMU_TRUTH_DIR", "MMAEMU_FORCE_NVRTC", "MMAEMU_CUOBJDUMP"})
    unsetenv(v);
  setenv("XDG_CACHE_HOME", (scratch / "cache").c_str(), 1);
}

Check command_check(const std::string& name, const std::string& command,
                    const std::string& pattern) {
  const Ran r = run_timed(command + " 2>&1");
  const std::string summary = summary_line(r.output, pattern);
  Check c{name, r.code == 0 ? "PASS" : "FAIL", summary, command, r.seconds, summary};
  if (r.code != 0) c.detail = fmt::format("exit {}: {}", r.code, c.detail);
  return c;
}

Check package_check(const fs::path& root) {
  const PackageCheckOptions options = package_check_options(true, "");
  Check c{"check-dist", "PASS", "", "mmaemu check-dist PACKAGE --require-fatbins"};
  auto report = check_package_tree(root, options);
  if (!report) return {c.name, "FAIL", report.error().message(), c.command};
  for (const auto& item : report->items) {
    c.detail += (c.detail.empty() ? "" : "; ") + item.name + " " + (item.passed ? "PASS" : "FAIL");
    for (const auto& p : item.problems) c.detail += " (" + p + ")";
  }
  if (!report->passed()) c.verdict = "FAIL";
  return c;
}

// The GPU the unpacked mmaemu sees (info --json), or why it sees none.
struct GpuSeen {
  std::string name, why_not;
};

GpuSeen gpu_seen(const std::string& mmaemu) {
  const Ran r = run_timed(mmaemu + " info --json 2>/dev/null");
  const json info = json::parse(r.output, nullptr, false);
  if (info.is_discarded() || !info.contains("cuda")) return {"", "info --json did not answer"};
  const json& cuda = info["cuda"];
  if (!cuda.value("gpu_path_available", false) || !cuda.contains("gpus") || cuda["gpus"].empty())
    return {"", cuda.value("why_unavailable", std::string("no GPU"))};
  const json& gpu = cuda["gpus"][0];
  return {gpu.is_object() ? gpu.value("name", std::string("GPU")) : gpu.get<std::string>(), ""};
}

// `by_cli`: the summary line of the package's own `mmaemu replay` of h200-subset (its replay
// check).
Check consumer_check(const fs::path& root, const fs::path& scratch, const std::string& by_cli) {
  const std::string name = "find_package consumer";
  for (const char* tool : {"cmake", "c++"})
    if (run_command(std::string("command -v ") + tool).first != 0)
      return {name, "SKIP", std::string("no ") + tool + " on PATH to build a consumer project", ""};
  const fs::path src = root / "share/mmaemu/examples/consumer", build = scratch / "consumer-build";
  const fs::path subset = root / "share/mmaemu/truth/h200-subset";
  if (!fs::is_regular_file(src / "CMakeLists.txt"))
    return {name, "FAIL", "share/mmaemu/examples/consumer is missing", ""};
  const std::string command =
      "cmake -S " + shell_quoted(src.string()) + " -B " + shell_quoted(build.string()) +
      " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" + shell_quoted(root.string()) +
      " > /dev/null && cmake --build " + shell_quoted(build.string()) + " > /dev/null && " +
      shell_quoted((build / "consumer").string()) + " " + shell_quoted(subset.string());
  Check c = command_check(name, command, "replay: ");
  if (c.verdict == "PASS" && c.detail != by_cli) {
    c.verdict = "FAIL";
    c.detail =
        "the consumer's replay (" + c.detail + ") differs from mmaemu replay's (" + by_cli + ")";
  } else if (c.verdict == "PASS") {
    c.detail =
        "built against the package; its replay of h200-subset equals mmaemu replay's: " + c.detail;
  }
  return c;
}

std::vector<Check> replay_checks(const fs::path& root, const std::string& mmaemu) {
  std::vector<Check> checks;
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(root / "share/mmaemu/truth"))
    if (e.is_directory()) sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  for (const auto& set : sets) {
    const std::string id = set.filename().string();
    checks.push_back(command_check(
        id == "h200-evo2-dev" ? "Evo 2 projection replay (h200-evo2-dev)" : "replay " + id,
        mmaemu + " replay --truth-dir " + shell_quoted(set.string()), "replay: "));
  }
  if (!fs::is_directory(root / "share/mmaemu/truth/h200-evo2-dev"))
    checks.push_back({"Evo 2 projection replay (h200-evo2-dev)", "FAIL",
                      "share/mmaemu/truth/h200-evo2-dev is not in the package", ""});
  return checks;
}

std::string machine_tag(const GpuSeen& gpu) {
  if (gpu.name.empty()) return "cpu";
  std::smatch m;
  if (std::regex_search(gpu.name, m, std::regex(R"(\b([A-Z]+[0-9]+[A-Z]?)\b)"))) {
    std::string tag = m[1].str();
    std::transform(tag.begin(), tag.end(), tag.begin(), ::tolower);
    return tag;
  }
  return "gpu";
}

void progress(size_t i, const Check& c) {
  std::cerr << fmt::format("validate-release: [{}] {} {} ({:.1f} s){}\n", i, c.verdict, c.name,
                           c.seconds, c.detail.empty() ? "" : ": " + c.detail);
}

json log_json(const ReleaseArgs& a, const std::string& sha, const std::string& version,
              const std::string& built_from, const GpuSeen& gpu, const std::vector<Check>& checks,
              double seconds) {
  json items = json::array();
  for (const auto& c : checks)
    items.push_back({{"check", c.name},
                     {"verdict", c.verdict},
                     {"detail", c.detail},
                     {"command", c.command},
                     {"seconds", c.seconds}});
  const bool failed =
      std::any_of(checks.begin(), checks.end(), [](const Check& c) { return c.verdict == "FAIL"; });
  const std::time_t now = std::time(nullptr);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {{"format", "mmaemu-release-validation/1"},
          {"version", version},
          {"package", fs::path(a.package).filename().string()},
          {"package_sha256", sha},
          {"package_built_from", built_from},
          {"validated_by", std::string("mmaemu ") + kVersion + " (" + kGitCommit + ")"},
          {"date", when},
          {"gpu", gpu.name.empty() ? json(nullptr) : json(gpu.name)},
          {"gpu_unavailable_because", gpu.why_not},
          {"seconds", seconds},
          {"verdict", failed ? "FAIL" : "PASS"},
          {"checks", items}};
}

std::vector<Check> run_checks(const fs::path& root, const fs::path& scratch, int conform_calls,
                              const GpuSeen& gpu) {
  const std::string mmaemu = shell_quoted((root / "bin/mmaemu").string());
  std::vector<Check> checks;
  const auto add = [&](Check c) {
    checks.push_back(std::move(c));
    progress(checks.size(), checks.back());
  };
  add(package_check(root));
  add(command_check("info", mmaemu + " info", "GPU path: "));
  add(command_check("selftest --force", mmaemu + " selftest --force", "selftest: "));
  if (gpu.name.empty())
    add({"conformance subset (every CUDA kernel module)", "SKIP", "no GPU: " + gpu.why_not, ""});
  else
    add(command_check("conformance subset (every CUDA kernel module)",
                      mmaemu + " conform --backend cuda --calls " + std::to_string(conform_calls),
                      "conform: "));
  std::string subset_by_cli = "no replay of h200-subset";
  for (auto& c : replay_checks(root, mmaemu)) {
    if (c.name == "replay h200-subset") subset_by_cli = c.summary;
    add(std::move(c));
  }
  add(consumer_check(root, scratch, subset_by_cli));
  return checks;
}

Result<int> run_validate_release(const ReleaseArgs& a) {
  if (!fs::is_regular_file(a.package))
    return Error(Errc::not_found, "validate-release: " + a.package + ": no such archive");
  const auto start = std::chrono::steady_clock::now();
  auto sha = sha256_file(a.package);
  if (!sha) return sha.error();
  ScratchDir scratch;
  auto root = unpack_package(a.package, scratch);
  if (!root) return root.error();
  clean_environment(scratch.path);
  const std::string mmaemu = shell_quoted((*root / "bin/mmaemu").string());
  const GpuSeen gpu = gpu_seen(mmaemu);
  const std::string built_from = summary_line(run_command(mmaemu + " --version").second, "mmaemu ");
  const auto checks = run_checks(*root, scratch.path, a.conform_calls, gpu);
  std::smatch m;
  const std::string version =
      std::regex_search(built_from, m, std::regex(R"(mmaemu (\S+))")) ? m[1].str() : "unknown";
  const json log =
      log_json(a, *sha, version, built_from, gpu, checks,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  const fs::path out = a.out.empty()
                           ? fs::path("release_logs") / (version + "_" + machine_tag(gpu) + ".json")
                           : fs::path(a.out);
  std::error_code ec;
  if (out.has_parent_path()) fs::create_directories(out.parent_path(), ec);
  if (auto ok = write_file_atomically(out, log.dump(1) + "\n"); !ok) return ok.error();
  if (a.json) std::cout << log.dump(1) << "\n";
  const auto count = [&](const char* v) {
    return std::count_if(checks.begin(), checks.end(),
                         [&](const Check& c) { return c.verdict == v; });
  };
  std::cerr << fmt::format("validate-release: {} PASS, {} FAIL, {} SKIP; log {}\n", count("PASS"),
                           count("FAIL"), count("SKIP"), out.string());
  if (!a.json) std::cout << "validate-release: " << log["verdict"].get<std::string>() << "\n";
  return count("FAIL") == 0 ? kExitOk : kExitVerdictFailed;
}

}  // namespace

Runner setup_validate_release(CLI::App& app) {
  auto a = std::make_shared<ReleaseArgs>();
  app.add_option("package", a->package, "the release archive, mmaemu-<version>-Linux-<arch>.tar.gz")
      ->required();
  app.add_option("--out", a->out,
                 "the log (JSON; default release_logs/<version>_<gpu or cpu>.json)");
  app.add_flag("--json", a->json, "print the log to stdout as well");
  app.add_option("--conform-calls", a->conform_calls,
                 "calls per distribution of the GPU conformance subset")
      ->capture_default_str();
  return [a] { return run_validate_release(*a); };
}

}  // namespace mmaemu::cli
