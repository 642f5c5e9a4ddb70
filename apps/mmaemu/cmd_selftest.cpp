// mmaemu selftest: checks an installation in seconds and caches a passing verdict.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "backend_option.hpp"
#include "command.hpp"
#include "data_location.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/selftest.hpp"
#include "mmaemu/truth.hpp"
#include "mmaemu/version.hpp"
#include "selftest_live.hpp"

namespace mmaemu::cli {
namespace {

struct SelftestOptions {
  bool force = false, json = false, live = false;
  LiveSelftestOptions live_options;
};

std::filesystem::path cache_file() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::filesystem::path base = xdg && *xdg     ? xdg
                               : home && *home ? std::filesystem::path(home) / ".cache"
                                               : std::filesystem::temp_directory_path();
  return base / "mmaemu" / "selftest.json";
}

// What the cached verdict depends on: this binary and the data it checks.
nlohmann::json cache_key(const std::optional<std::filesystem::path>& truth) {
  std::error_code ec;
  const auto exe = executable_path();
  nlohmann::json key = {{"version", kVersion}, {"commit", kGitCommit}};
  if (!exe.empty()) {
    key["exe_size"] = std::filesystem::file_size(exe, ec);
    key["exe_mtime"] = std::filesystem::last_write_time(exe, ec).time_since_epoch().count();
  }
  if (truth) {
    auto hash = sha256_file(*truth / "h200-subset" / "manifest.json");
    key["truth_manifest"] = hash ? *hash : "missing";
  }
  return key;
}

nlohmann::json check_json(const SelftestCheck& c) {
  return {{"name", c.name}, {"passed", c.passed}, {"detail", c.detail}};
}

void print(const nlohmann::json& report, bool as_json, bool cached) {
  if (as_json) {
    nlohmann::json out = report;
    out["cached"] = cached;
    std::cout << out.dump(2) << "\n";
    return;
  }
  for (const auto& c : report["checks"])
    std::cout << fmt::format("{} {}: {}\n", c["passed"].get<bool>() ? "PASS" : "FAIL",
                             c["name"].get<std::string>(), c["detail"].get<std::string>());
  std::cout << fmt::format("selftest: {} ({}/{} checks passed){}\n",
                           report["passed"].get<bool>() ? "PASS" : "FAIL",
                           report["passed_checks"].get<int>(), report["total_checks"].get<int>(),
                           cached ? " [cached verdict; --force reruns]" : "");
}

Result<int> run_selftest(const SelftestOptions& o) {
  if (o.live) return run_live_selftest(o.live_options);
  const auto truth = bundled_truth_root();
  const nlohmann::json key = cache_key(truth);
  const auto cache = cache_file();
  if (!o.force) {
    if (auto bytes = read_file_bytes(cache)) {
      auto cached = nlohmann::json::parse(bytes->begin(), bytes->end(), nullptr, false);
      if (!cached.is_discarded() && cached.value("key", nlohmann::json()) == key &&
          cached.value("passed", false)) {
        print(cached, o.json, true);
        return kExitOk;
      }
    }
  }
  std::vector<SelftestCheck> checks;
  spdlog::debug("checking formats");
  checks.push_back(check_format_round_trips());
  for (auto& c : check_presets_on_builtin_vectors()) checks.push_back(std::move(c));
  if (!truth) {
    checks.push_back({"bundled truth", false,
                      "not found: set MMAEMU_DATA_DIR to the folder holding h200-subset"});
  } else {
    auto replayed = check_truth_set(*truth / "h200-subset", "hopper");
    if (!replayed)
      checks.push_back({"bundled truth", false, replayed.error().message()});
    else
      for (auto& c : *replayed) checks.push_back(std::move(c));
  }
  int passed = 0;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : checks) {
    passed += c.passed;
    list.push_back(check_json(c));
  }
  const bool all = passed == static_cast<int>(checks.size());
  nlohmann::json report = {{"key", key},
                           {"passed", all},
                           {"passed_checks", passed},
                           {"total_checks", checks.size()},
                           {"truth", truth ? truth->string() : ""},
                           {"checks", list}};
  if (all) {
    std::error_code ec;
    std::filesystem::create_directories(cache.parent_path(), ec);
    const std::string text = report.dump(2);
    if (!write_file_atomically(cache, text))
      spdlog::debug("could not cache the verdict in {}", cache.string());
  }
  print(report, o.json, false);
  return all ? kExitOk : kExitVerdictFailed;
}

}  // namespace

Runner setup_selftest(CLI::App& app) {
  auto o = std::make_shared<SelftestOptions>();
  app.add_flag("--force", o->force, "run the checks even where a cached passing verdict is fresh");
  app.add_flag("--json", o->json, "print the report as JSON to stdout");
  app.add_flag("--live", o->live,
               "random calls through cuBLASLt on this GPU against the emulator, bitwise");
  app.add_option("--calls", o->live_options.calls, "--live: how many random calls")
      ->capture_default_str();
  app.add_option("--seed", o->live_options.seed, "--live: seed of the random calls")
      ->capture_default_str();
  app.add_option("--workspaces", o->live_options.workspaces,
                 "--live: cuBLASLt workspace sizes in bytes, one drawn per call")
      ->capture_default_str();
  app.add_option("--sm-count", o->live_options.sm_count,
                 "--live: record with SM_COUNT_TARGET (the heuristic chooses as for this many SMs) "
                 "and emulate that "
                 "GPU's choice")
      ->check(CLI::Range(0, 4096));
  app.add_option("--split-k-from", o->live_options.split_k_from,
                 "--live: recording (the count cuBLASLt used) or profile (the profile's own "
                 "choice: tests the "
                 "split-K resolver)")
      ->capture_default_str();
  app.add_option("--cublaslt", o->live_options.cublaslt, "--live: the libcublasLt to load")
      ->capture_default_str();
  app.add_option("--profile", o->live_options.profile,
                 "--live: profile (name or JSON file; default: by the GPU)");
  app.add_option("--keep", o->live_options.keep, "--live: keep the recorded calls in this folder");
  app.add_option("--log", o->live_options.json_path,
                 "--live: write a per-call log (JSON) to this file");
  app.add_option("--jobs", o->live_options.jobs,
                 "--live: CPU threads for the emulator (default: all)");
  app.add_option("--backend", o->live_options.backend,
                 std::string("--live: the emulator's backend: ") + backend_help())
      ->capture_default_str();
  return [o] { return run_selftest(*o); };
}

}  // namespace mmaemu::cli
