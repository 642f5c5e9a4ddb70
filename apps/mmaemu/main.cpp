// mmaemu: the command-line front end. Subcommands come from one table (command.hpp); logs go to
// stderr, machine output (JSON) to stdout.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <csignal>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "command.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/kernel_modules.hpp"
#include "mmaemu/version.hpp"

namespace mmaemu::cli {

int exit_status_for(const Error& error) {
  switch (error.code()) {
    case Errc::invalid_argument:
      return kExitUsage;
    case Errc::io:
      return kExitIo;
    case Errc::malformed:
      return kExitMalformed;
    case Errc::hash_mismatch:
      return kExitHashMismatch;
    case Errc::unsupported:
      return kExitUnsupported;
    case Errc::not_found:
      return kExitNotFound;
    case Errc::device_unavailable:
      return kExitDeviceUnavailable;
    case Errc::internal:
      return kExitInternal;
  }
  return kExitInternal;
}

const std::vector<Command>& command_table() {
  static const std::vector<Command> table = {
      {"info", "Version, build, GPUs (or why none), profiles, presets and kernel modules",
       setup_info},
      {"gemm", "Emulate one torch._scaled_mm call from a safetensors file", setup_gemm},
      {"replay", "Replay a truth set through the emulator and compare bit for bit", setup_replay},
      {"record", "Record torch._scaled_mm's cuBLASLt calls on a live GPU as a truth set",
       setup_record},
      {"sweep",
       "Tabulate cuBLASLt's algorithm and split-K choice over a grid of shapes on a live GPU",
       setup_sweep},
      {"split-k",
       "The split-K count cuBLASLt chooses, from the profile's model, for shapes or against sweep "
       "logs",
       setup_split_k},
      {"probe",
       "Probe single tensor-core instructions on a live GPU and judge every preset parameter",
       setup_probe},
      {"conform",
       "Check a backend (the CUDA kernels, the fast CPU path) against the oracle on random calls",
       setup_conform},
      {"bench",
       "Time the emulation backends beside native cuBLASLt on the same inputs, bits compared "
       "(JSON)",
       setup_bench},
      {"build-fatbin",
       "Build the kernel modules with the pinned nvcc, or check them against their manifest",
       setup_build_fatbin},
      {"check-dist",
       "Check a release archive (contents, licences, version, fatbins, build paths, runtime), "
       "or the carried fatbins against their manifest",
       setup_check_dist},
      {"mutate",
       "The mutation matrix: every model parameter moved one step, each mutant replayed against "
       "truth sets",
       setup_mutate},
      {"validate-release",
       "Unpack a release archive into a fresh prefix and run its checks from there (JSON log)",
       setup_validate_release},
      {"selftest", "Check this installation in seconds: formats, presets, bundled truth",
       setup_selftest},
  };
  return table;
}

}  // namespace mmaemu::cli

namespace {

// The environment, mapped once into the library's settings (the library reads none itself).
void apply_environment() {
  const char* dir = std::getenv("MMAEMU_KERNEL_DIR");
  const char* force = std::getenv("MMAEMU_FORCE_NVRTC");
  mmaemu::set_kernel_search(
      {mmaemu::installed_kernel_dirs(dir ? std::filesystem::path(dir) : std::filesystem::path()),
       force && std::string(force) == "1"});
}

// A kill during a write leaves no temporary file: the pending ones are removed, then the signal
// takes its default course (the exit status says which signal).
void remove_temps_and_die(int signal_number) {
  mmaemu::remove_pending_temp_files();
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

namespace {

using namespace mmaemu::cli;

// The first word that is not an option names the subcommand (the global options take no value):
// one that is not in the table is named as such, with the list. False when it was refused.
bool subcommand_known(int argc, char** argv, const std::string& names) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    const bool known = std::any_of(command_table().begin(), command_table().end(),
                                   [&](const Command& c) { return word == c.name; });
    if (!known)
      std::cerr << "mmaemu: unknown subcommand '" << word << "'; the subcommands are: " << names
                << " (mmaemu --help describes them)\n";
    return known;
  }
  return true;
}

// --no-clobber: one check for every subcommand's --out, before any work.
bool out_may_be_written(CLI::App& sub) {
  const CLI::Option* out = sub.get_option_no_throw("--out");
  if (!out || out->count() == 0) return true;
  std::error_code ec;
  const std::string path = out->as<std::string>();
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return true;
  std::cerr << "mmaemu " << sub.get_name() << ": error: --out " << path
            << " exists and --no-clobber was given; nothing written\n";
  return false;
}

// The parsed subcommand's runner: its status, or its error said on stderr.
int run_subcommand(CLI::App& sub, const Runner& runner) {
  try {
    mmaemu::Result<int> status = runner();
    if (!status) {
      std::cerr << "mmaemu " << sub.get_name() << ": error: " << status.error().message() << "\n";
      return exit_status_for(status.error());
    }
    return *status;
  } catch (const std::exception& e) {  // a bug, not an input problem: say so plainly
    std::cerr << "mmaemu " << sub.get_name() << ": internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, remove_temps_and_die);
  auto logger = spdlog::stderr_color_mt("mmaemu");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("mmaemu: %^%l%$: %v");
  apply_environment();

  CLI::App app{"mmaemu: bit-exact emulation of NVIDIA tensor-core FP8 matrix multiplies"};
  app.set_version_flag("--version",
                       std::string("mmaemu ") + mmaemu::kVersion + " (" + mmaemu::kGitCommit + ")");
  app.require_subcommand(1);
  bool verbose = false, no_clobber = false;
  app.add_flag("-v,--verbose", verbose, "Log more detail to stderr");
  app.add_flag("--no-clobber", no_clobber,
               "refuse to replace an existing --out (default: replaced atomically)");
  std::vector<std::pair<CLI::App*, Runner>> runners;
  std::string names;
  for (const auto& command : command_table()) {
    CLI::App* sub = app.add_subcommand(command.name, command.summary);
    sub->fallthrough();  // -v/--verbose after the subcommand too
    runners.emplace_back(sub, command.setup(*sub));
    names += (names.empty() ? "" : ", ") + std::string(command.name);
  }
  if (!subcommand_known(argc, argv, names)) return kExitUsage;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? kExitOk : kExitUsage;
  }
  spdlog::set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  for (auto& [sub, runner] : runners) {
    if (!sub->parsed()) continue;
    if (no_clobber && !out_may_be_written(*sub)) return kExitUsage;
    return run_subcommand(*sub, runner);
  }
  return kExitUsage;
}
