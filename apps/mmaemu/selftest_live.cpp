// mmaemu selftest --live: the library's check_live (live_check.hpp) for GPU 0 and the profile that
// describes it, with progress on the terminal, misses on stdout and the JSON log.
#include "selftest_live.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>

#include "backend_option.hpp"
#include "command.hpp"
#include "mmaemu/gpu_family.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/device.hpp"
#include "mmaemu/tools/live_check.hpp"
#include "option_lists.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

// The profile that describes GPU 0 (or the one named), or why there is none.
Result<std::optional<Profile>> profile_for_gpu(const GpuInfo& gpu, const std::string& named) {
  const auto arch = architecture_of_gpu(gpu.name);
  std::string name = arch ? builtin_profile_for(*arch).value_or("") : "";
  if (!named.empty()) name = named;
  if (name.empty()) {
    std::cout << fmt::format(
        "selftest --live: no profile describes {} (sm_{}{}, architecture {}); there is no model "
        "to check against\n",
        gpu.name, gpu.compute_major, gpu.compute_minor, arch.value_or("unknown"));
    return std::optional<Profile>();
  }
  auto profile = load_profile(name);  // a name the executable carries, or a JSON file
  if (!profile) return profile.error();
  return std::optional<Profile>(std::move(profile).value());
}

// The library's options from the command line's.
Result<LiveCheckOptions> check_options(const LiveSelftestOptions& o) {
  if (o.split_k_from != "recording" && o.split_k_from != "profile")
    return Error(Errc::invalid_argument,
                 "--split-k-from: '" + o.split_k_from + "' is not recording or profile");
  auto backend = open_backend(o.backend);
  if (!backend) return backend.error();
  const auto workspaces = byte_counts(o.workspaces);
  if (!workspaces || workspaces->empty())
    return Error(Errc::invalid_argument,
                 "--workspaces: '" + o.workspaces + "' is not a list of byte counts");
  LiveCheckOptions c;
  c.calls = o.calls;
  c.seed = o.seed;
  c.threads = threads_for_jobs(o.jobs);
  c.workspaces = *workspaces;
  c.sm_count = o.sm_count;
  c.split_k_from = o.split_k_from == "profile" ? SplitKFrom::profile : SplitKFrom::recording;
  c.backend = *backend;
  c.cublaslt = o.cublaslt;
  c.work_dir = o.keep.empty() ? std::filesystem::temp_directory_path() /
                                    fmt::format("mmaemu-live-{}", ::getpid())
                              : std::filesystem::path(o.keep);
  return c;
}

// Progress on the terminal while recording and replaying; each miss on stdout as it is found.
struct LiveProgress {
  std::optional<Progress> bar;
  LiveCheckEvents events() {
    return {.recording_started = [this](size_t n) { bar.emplace(n); },
            .recorded = [this](const std::string& id) { bar->step(id); },
            .replay_started = [this](size_t n) { bar->clear(), bar.emplace(n); },
            .replayed = [this](const LiveCallResult& c) { show(c); }};
  }
  void show(const LiveCallResult& c) {
    bar->step(c.id);
    const bool disagrees = c.cublaslt_split_k && !c.profile_agrees;
    if (c.bit_exact && !disagrees) return;
    bar->clear();
    if (!c.bit_exact)
      std::cout << fmt::format("FAIL {}: {}/{} elements differ\n", c.id, c.mismatches, c.elements);
    if (disagrees)
      std::cout << fmt::format("SPLIT {}: cuBLASLt used {} slices, the profile says {} ({})\n",
                               c.id, *c.cublaslt_split_k, c.profile_split_k,
                               c.profile_split_k_source);
  }
};

}  // namespace

Result<int> run_live_selftest(const LiveSelftestOptions& o) {
  auto options = check_options(o);
  if (!options) return options.error();
  const DeviceReport devices = probe_devices();
  if (!devices.driver_loaded || devices.gpus.empty())
    return Error(Errc::device_unavailable,
                 "--live needs a GPU: " +
                     (devices.why_unavailable.empty() ? "none found" : devices.why_unavailable));
  auto profile = profile_for_gpu(devices.gpus.front(), o.profile);
  if (!profile) return profile.error();
  if (!*profile) return kExitUnsupported;
  spdlog::info("recording {} random calls through {} on {} into {}", o.calls, o.cublaslt,
               devices.gpus.front().name, options->work_dir.string());
  LiveProgress progress;
  auto report = check_live(*options, **profile, progress.events());
  if (progress.bar) progress.bar->clear();
  if (o.keep.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(options->work_dir, ec);
  }
  if (!report) return report.error();
  spdlog::info("selftest --live: {:.1f} s drawing operands, {:.1f} s recording, {:.1f} s replaying",
               report->drawing_seconds, report->recording_seconds, report->replaying_seconds);
  if (!o.json_path.empty())
    if (auto ok = write_file_atomically(o.json_path,
                                        live_check_report_json(*options, **profile, *report));
        !ok)
      return ok.error();
  std::cout << "selftest --live: " << live_check_verdict(*options, *report) << std::endl;
  return report->passed() ? kExitOk : kExitVerdictFailed;
}

}  // namespace mmaemu::cli
