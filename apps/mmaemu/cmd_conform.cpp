// mmaemu conform: backends (the CUDA kernel modules, or the fast CPU path) against the oracle, bit
// for bit (check_conformance, lib/include/mmaemu/tools/conformance.hpp): the options parsed, the
// library called, the matrix printed and logged.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>

#include "backend_option.hpp"
#include "command.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/conformance.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

struct ConformOptions {
  std::string out, backend = "cuda";
  int calls = 200;
  uint64_t seed = 2026;
  int jobs = 0;
};

Result<int> run_conform(const ConformOptions& o) {
  auto chosen = open_backend(o.backend);
  if (!chosen) return chosen.error();
  ConformanceOptions options;
  options.backend = *chosen;
  options.calls = o.calls;
  options.seed = o.seed;
  options.threads = threads_for_jobs(o.jobs);
  Progress progress(static_cast<size_t>(o.calls) * 5);
  auto report = check_conformance(
      options, [&](const std::string& dist) { progress.step(dist); },
      [&](const std::string& failure) {
        progress.clear();
        std::cout << "FAIL " << failure << std::endl;
      });
  progress.clear();
  if (!report) return report.error();
  for (const auto& [module, row] : report->matrix)
    for (const auto& [preset, cell] : row) {
      if (cell.calls == 0)
        std::cout << fmt::format("conform: {:<4} x {:<24} not covered: {}\n", module, preset,
                                 cell.not_covered);
      else
        std::cout << fmt::format(
            "conform: {:<4} x {:<24} {} {}/{} calls ({} elements) bit-identical\n", module, preset,
            cell.unequal == 0 ? "PASS" : "FAIL", cell.calls - cell.unequal, cell.calls,
            cell.elements);
    }
  if (!o.out.empty())
    if (auto ok = write_file_atomically(o.out, conformance_report_json(options, *report)); !ok)
      return ok.error();
  std::cout << fmt::format("conform: {} on {}: {}/{} checks bit-identical to the oracle\n",
                           o.backend, report->device, report->checks - report->unequal,
                           report->checks);
  return report->passed() ? kExitOk : kExitVerdictFailed;
}

}  // namespace

Runner setup_conform(CLI::App& app) {
  auto o = std::make_shared<ConformOptions>();
  app.add_option("--backend", o->backend,
                 "cuda (every CUDA module: v1, v4, h1, h4, v9), cuda-v1, cuda-v4, cuda-h1, "
                 "cuda-h4, cuda-v9 or "
                 "cpu (the fast path)")
      ->capture_default_str();
  app.add_option("--calls", o->calls, "random calls per distribution")->capture_default_str();
  app.add_option("--seed", o->seed, "seed of the calls")->capture_default_str();
  app.add_option("--jobs", o->jobs, "CPU threads (default: all)");
  app.add_option("--out", o->out, "write the log (JSON) to this file");
  return [o] { return run_conform(*o); };
}

}  // namespace mmaemu::cli
