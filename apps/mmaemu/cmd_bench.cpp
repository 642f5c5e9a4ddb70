// mmaemu bench: speed, side by side in one run, of the emulation backends and of native cuBLASLt
// (run_benchmark, lib/include/mmaemu/tools/benchmark.hpp). JSON (mmaemu-bench/1) on stdout; a table
// and progress on stderr.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "backend_option.hpp"
#include "command.hpp"
#include "mmaemu/emulate.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/benchmark.hpp"
#include "mmaemu/tools/cuda_backend.hpp"
#include "mmaemu/tools/emulation_modules.hpp"
#include "option_lists.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

using nlohmann::json;

struct BenchOptions {
  std::string shapes = "1024x1024x1024", backends = "auto", pair = "e4m3xe4m3", out_dtype = "bf16",
              dist = "normal", profile = "hopper", cublaslt = "libcublasLt.so.13", out;
  bool fast_accum = false;
  int repeats = 5, jobs = 0;
  double max_seconds = 60;
  int64_t workspace = 1 << 20;
  uint64_t seed = 1;
};

// The backends to run: "auto" is the fast CPU path, and where a GPU answers, cuBLASLt and every
// CUDA module; a named GPU backend that cannot run is an error.
Result<std::vector<std::string>> chosen_backends(const BenchOptions& o) {
  if (o.backends != "auto") {
    auto names = split_list(o.backends);
    for (const auto& name : names) {
      if (name == "cublaslt") continue;
      auto b = open_backend(name);
      if (!b) return b.error();
    }
    if (names.empty()) return Error(Errc::invalid_argument, "--backends: empty");
    return names;
  }
  std::vector<std::string> names = {"cpu"};
  if (auto gpu = cuda_backend_device(); gpu) {
    // cuBLASLt first (its count plans the emulation), then the CUDA modules, fastest first.
    std::vector<std::string> gpu_names = {"cublaslt"};
    const auto modules = emulation_modules();
    for (auto m = modules.rbegin(); m != modules.rend(); ++m)
      gpu_names.emplace_back(m->backend_name);
    names.insert(names.begin(), gpu_names.begin(), gpu_names.end());
  } else {
    spdlog::warn("bench: no GPU backend: {}", gpu.error().message());
  }
  return names;
}

Result<int> run_bench(const BenchOptions& o) {
  const auto pair = fp8_operand_pair(o.pair);
  if (!pair) return Error(Errc::invalid_argument, "--pair: '" + o.pair + "' is not like e4m3xe5m2");
  const auto out_dtype = format_from_name(o.out_dtype);
  if (!out_dtype)
    return Error(Errc::invalid_argument, "--out-dtype: unknown format '" + o.out_dtype + "'");
  BenchmarkOptions options;
  for (const auto& text : split_list(o.shapes)) {
    const auto s = gemm_shape(text);
    if (!s) return Error(Errc::invalid_argument, "--shapes: '" + text + "' is not MxNxK");
    options.shapes.push_back({s->m, s->n, s->k});
  }
  auto backends = chosen_backends(o);
  if (!backends) return backends.error();
  options.backends = *backends;
  auto profile = load_profile(o.profile);
  if (!profile) return profile.error();
  options.profile = &*profile;
  std::tie(options.a_dtype, options.b_dtype) = *pair;
  options.out_dtype = *out_dtype;
  options.use_fast_accum = o.fast_accum;
  options.dist = o.dist;
  options.seed = o.seed;
  options.cublaslt_library = o.cublaslt;
  options.workspace_bytes = o.workspace;
  options.repeats = o.repeats;
  options.max_seconds = o.max_seconds;
  options.threads = threads_for_jobs(o.jobs);
  Progress progress(options.shapes.size() * options.backends.size());
  auto report = run_benchmark(options, [&](const std::string& what) { progress.step(what); });
  progress.clear();
  if (!report) return report.error();
  for (const auto& r : report->rows) {
    if (!r.covered) {
      std::cerr << fmt::format("{:<18} {:<9} not covered: {}\n", r.shape, r.backend, r.note);
      continue;
    }
    std::cerr << fmt::format("{:<18} {:<9} {:>12.6f} s {:>10.4g} TFLOP/s", r.shape, r.backend,
                             r.median_s, r.tflops);
    if (r.vs_cublaslt) std::cerr << fmt::format("  x{:<9.2f}", *r.vs_cublaslt);
    if (r.bits_equal_cublaslt)
      std::cerr << (*r.bits_equal_cublaslt ? "  bits = cuBLASLt" : "  bits DIFFER from cuBLASLt");
    if (r.resident_median_s)
      std::cerr << fmt::format("  resident {:.6f} s{}", *r.resident_median_s,
                               r.resident_bits_equal.value_or(false) ? "" : " (bits DIFFER)");
    std::cerr << "\n";
  }
  const std::string text = benchmark_report_json(options, *report);
  if (!o.out.empty())
    if (auto ok = write_file_atomically(o.out, text); !ok) return ok.error();
  std::cout << text << std::flush;
  return report->all_equal ? kExitOk : kExitVerdictFailed;  // nothing compared is not a failure
}

}  // namespace

Runner setup_bench(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  app.add_option("--shapes", o->shapes, "MxNxK list (torch shapes)")->capture_default_str();
  app.add_option(
         "--backends", o->backends,
         "auto, or a list of cublaslt, cuda, cuda-v1, cuda-v4, cuda-h1, cuda-h4, cuda-v9, cpu, "
         "oracle (auto: cpu, "
         "and cublaslt and every CUDA module where a GPU is)")
      ->capture_default_str();
  app.add_option("--repeats", o->repeats, "timed runs per backend, after one warm-up")
      ->capture_default_str();
  app.add_option("--max-seconds", o->max_seconds,
                 "a backend whose first run is slower is timed once")
      ->capture_default_str();
  app.add_option("--pair", o->pair, "FP8 operand pair")->capture_default_str();
  app.add_option("--out-dtype", o->out_dtype, "bf16, f16, f32, f8_e4m3 or f8_e5m2")
      ->capture_default_str();
  app.add_flag("--fast-accum", o->fast_accum, "use_fast_accum=True");
  app.add_option("--dist", o->dist, "input distribution: normal, wide, cancel, small, special")
      ->capture_default_str();
  app.add_option("--seed", o->seed, "seed of the inputs")->capture_default_str();
  app.add_option("--profile", o->profile, "the profile that plans the emulation")
      ->capture_default_str();
  app.add_option("--workspace", o->workspace, "cuBLASLt workspace bytes (torch 2.11: 1 MiB)")
      ->capture_default_str();
  app.add_option("--cublaslt", o->cublaslt, "the libcublasLt to load")->capture_default_str();
  app.add_option("--jobs", o->jobs, "CPU threads (default: all)");
  app.add_option("--out", o->out, "also write the JSON to this file");
  return [o] { return run_bench(*o); };
}

}  // namespace mmaemu::cli
