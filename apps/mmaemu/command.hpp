// The subcommand table and the one place where library errors become exit statuses.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "mmaemu/error.hpp"

namespace mmaemu::cli {

// Exit statuses, documented in docs/cli.md.
enum ExitStatus : int {
  kExitOk = 0,
  kExitVerdictFailed = 1,  // the command ran, and a check or a comparison failed
  kExitUsage = 2,          // bad command line or bad argument value
  kExitIo = 3,
  kExitMalformed = 4,
  kExitHashMismatch = 5,
  kExitUnsupported = 6,
  kExitNotFound = 7,
  kExitDeviceUnavailable = 8,
  kExitInternal = 70,
};

int exit_status_for(const Error& error);

// A command's body: returns the exit status of a completed run, or an Error.
using Runner = std::function<Result<int>()>;

struct Command {
  const char* name;
  const char* summary;
  // Declares the subcommand's options on `app` and returns the body that uses them.
  Runner (*setup)(CLI::App& app);
};

const std::vector<Command>& command_table();

// The threads of a --jobs option: the value given, or every core.
inline int threads_for_jobs(int jobs) {
  return jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

Runner setup_info(CLI::App& app);
Runner setup_gemm(CLI::App& app);
Runner setup_selftest(CLI::App& app);
Runner setup_replay(CLI::App& app);
Runner setup_record(CLI::App& app);
Runner setup_sweep(CLI::App& app);
Runner setup_split_k(CLI::App& app);
Runner setup_probe(CLI::App& app);
Runner setup_conform(CLI::App& app);
Runner setup_bench(CLI::App& app);
Runner setup_build_fatbin(CLI::App& app);
Runner setup_check_dist(CLI::App& app);
Runner setup_validate_release(CLI::App& app);
Runner setup_mutate(CLI::App& app);

}  // namespace mmaemu::cli
