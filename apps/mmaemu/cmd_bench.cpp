// mmaemu bench: speed, side by side in one run, of the emulation backends (oracle, fast CPU path,
// the CUDA kernel modules) and of native cuBLASLt on the same GPU, on the same inputs; every
// output is also compared bit for bit with cuBLASLt's (the hardware's answer) and with the first
// backend's. JSON (mmaemu-bench/1) on stdout; a table and progress on stderr.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "backend_option.hpp"
#include "command.hpp"
#include "mmaemu/emulate.hpp"
#include "mmaemu/native_scaled_mm.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/version.hpp"
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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()      ? 0
         : v.size() % 2 ? v[v.size() / 2]
                        : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

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
    names.insert(names.begin(), {"cublaslt", "cuda-h4", "cuda-h1", "cuda-v4", "cuda-v1"});
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
  if (o.repeats < 1) return Error(Errc::invalid_argument, "--repeats: at least 1");
  std::vector<GemmShape> shapes;
  for (const auto& text : split_list(o.shapes)) {
    const auto s = gemm_shape(text);
    if (!s) return Error(Errc::invalid_argument, "--shapes: '" + text + "' is not MxNxK");
    shapes.push_back(*s);
  }
  if (shapes.empty()) return Error(Errc::invalid_argument, "--shapes: empty");
  auto backends = chosen_backends(o);
  if (!backends) return backends.error();
  std::string device = "none";
  for (const auto& name : *backends)
    if (auto b = backend_named(name); b && is_cuda(*b)) device = cuda_backend_device().value();
  auto profile = load_profile(o.profile);
  if (!profile) return profile.error();
  const int threads = threads_for_jobs(o.jobs);
  json rows = json::array();
  bool all_equal = true;
  size_t compared = 0;  // outputs checked against another backend's
  Progress progress(shapes.size() * backends->size());
  for (const auto& shape : shapes) {
    const std::string shape_name = fmt::format("{}x{}x{}", shape.m, shape.n, shape.k);
    RecordCall c;
    c.m = shape.m, c.n = shape.n, c.k = shape.k;
    std::tie(c.a_dtype, c.b_dtype) = *pair;
    c.out_dtype = *out_dtype;
    c.use_fast_accum = o.fast_accum;
    c.dist = o.dist;
    c.seed = o.seed;
    if (auto drawn = draw_operands({&c, 1}, 1); !drawn) return drawn.error();
    c.scale_a = c.scale_b = {0x3F800000u};  // 1.0: tensorwise
    ScaledMmCall call;
    call.m = c.m, call.n = c.n, call.k = c.k;
    call.a_dtype = c.a_dtype, call.b_dtype = c.b_dtype, call.out_dtype = c.out_dtype;
    call.a = c.a, call.b = c.b;
    call.use_fast_accum = c.use_fast_accum;
    const double flop =
        2.0 * static_cast<double>(c.m) * static_cast<double>(c.n) * static_cast<double>(c.k);
    // cuBLASLt first: its split-K choice makes the emulation's plan, and its bits are the truth.
    std::optional<NativeTiming> native;
    double native_median = 0;
    std::optional<std::vector<uint8_t>> first;
    for (const auto& name : *backends) {
      progress.step(shape_name + " " + name);
      json row = {{"shape", shape_name}, {"backend", name}};
      std::vector<double> seconds, kernel_seconds;
      std::vector<uint8_t> out;
      if (name == "cublaslt") {
        auto t = time_native_scaled_mm(c, o.cublaslt, o.workspace, o.repeats + 1);
        if (!t) return Error(t.error().code(), "bench: cuBLASLt: " + t.error().message());
        native = std::move(*t);
        if (device == "none") device = native->gpu;
        seconds.assign(native->seconds.begin() + 1,
                       native->seconds.end());  // the first run warms up
        native_median = median(seconds);
        out = native->out;
        row["cublaslt_version"] = native->cublaslt_version;
        row["splits"] = native->choice.splits();
        row["deterministic"] = native->deterministic;
      } else {
        const Backend backend = *backend_named(name);
        auto plan = profile->resolve(
            call,
            {.known_split_k = native ? std::optional<int>(native->choice.splits()) : std::nullopt,
             .workspace_bytes = o.workspace,
             .sm_count = std::nullopt});
        if (!plan) return plan.error();
        row["splits"] = plan->split_k;
        row["split_k_source"] = plan->split_k_source;
        for (int r = 0; r <= o.repeats; ++r) {
          CudaRunStats stats;
          const auto started = std::chrono::steady_clock::now();
          auto got = is_cuda(backend) ? emulate_cuda(*plan, call, backend, &stats)
                                      : emulate(*plan, call, backend, threads);
          const double s =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
          // A backend that does not cover the call (a kernel module that computes one slice, a
          // preset it lacks) is a row that says so, not the end of the run.
          if (!got && got.error().code() == Errc::unsupported) {
            row["covered"] = false;
            row["note"] = got.error().message();
            break;
          }
          if (!got)
            return Error(got.error().code(), "bench: " + name + ": " + got.error().message());
          if (r == 0) {
            out = std::move(*got);
            if (is_cuda(backend)) {
              row["module"] = stats.module;
              row["host_elements"] = stats.host_elements;
            }
            // A backend slower than --max-seconds is timed once, on its first run.
            if (s > o.max_seconds) {
              seconds.push_back(s);
              row["note"] =
                  fmt::format("one run: it took more than --max-seconds {}", o.max_seconds);
              break;
            }
            continue;
          }
          seconds.push_back(s);
          if (is_cuda(backend)) kernel_seconds.push_back(stats.kernel_seconds);
        }
        row["threads"] = is_cuda(backend) ? 0 : threads;
        if (row.contains("covered")) {
          rows.push_back(row);
          continue;
        }
      }
      row["covered"] = true;
      const double m = median(seconds);
      row["runs"] = seconds.size();
      row["median_s"] = m;
      row["min_s"] = *std::min_element(seconds.begin(), seconds.end());
      if (!kernel_seconds.empty()) row["kernel_median_s"] = median(kernel_seconds);
      row["tflops"] = m > 0 ? flop / m / 1e12 : 0.0;
      if (native) {
        row["vs_cublaslt"] = m / native_median;
        row["bits_equal_cublaslt"] = out == native->out;
        all_equal = all_equal && out == native->out;
      }
      if (!first) {
        first = out;
      } else {
        ++compared;  // another backend's output against the shape's first
        row["bits_equal_first"] = out == *first;
        all_equal = all_equal && out == *first;
      }
      rows.push_back(row);
    }
  }
  progress.clear();
  for (const auto& r : rows) {
    if (!r["covered"].get<bool>()) {
      std::cerr << fmt::format("{:<18} {:<9} not covered: {}\n", r["shape"].get<std::string>(),
                               r["backend"].get<std::string>(), r["note"].get<std::string>());
      continue;
    }
    std::cerr << fmt::format("{:<18} {:<9} {:>12.6f} s {:>10.4g} TFLOP/s",
                             r["shape"].get<std::string>(), r["backend"].get<std::string>(),
                             r["median_s"].get<double>(), r["tflops"].get<double>());
    if (r.contains("vs_cublaslt"))
      std::cerr << fmt::format("  x{:<9.2f}", r["vs_cublaslt"].get<double>());
    if (r.contains("bits_equal_cublaslt"))
      std::cerr << (r["bits_equal_cublaslt"].get<bool>() ? "  bits = cuBLASLt"
                                                         : "  bits DIFFER from cuBLASLt");
    std::cerr << "\n";
  }
  json log = {
      {"format", "mmaemu-bench/1"},
      {"mmaemu_version", kVersion},
      {"mmaemu_commit", kGitCommit},
      {"gpu", device},
      {"cpu_threads", threads},
      {"profile", o.profile},
      {"pair", o.pair},
      {"out_dtype", o.out_dtype},
      {"use_fast_accum", o.fast_accum},
      {"dist", o.dist},
      {"workspace_bytes", o.workspace},
      {"repeats", o.repeats},
      {"timing",
       "median of the timed runs after one warm-up; CPU and CUDA backends end to end (uploads, "
       "kernel, downloads, host fallback), kernel_median_s the launch-to-synchronise time; "
       "cuBLASLt the matmul alone on device-resident data"},
      {"results", rows},
      {"outputs_compared", compared},
      // Equal only where something was compared: one backend alone proves nothing.
      {"all_bits_equal", all_equal && compared > 0}};
  if (!o.out.empty())
    if (auto ok = write_file_atomically(o.out, log.dump(1) + "\n"); !ok) return ok.error();
  std::cout << log.dump(1) << std::endl;
  return all_equal ? kExitOk : kExitVerdictFailed;  // nothing compared is not a failure
}

}  // namespace

Runner setup_bench(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  app.add_option("--shapes", o->shapes, "MxNxK list (torch shapes)")->capture_default_str();
  app.add_option("--backends", o->backends,
                 "auto, or a list of cublaslt, cuda, cuda-v1, cuda-v4, cuda-h1, cuda-h4, cpu, "
                 "oracle (auto: cpu, "
                 "and cublaslt, cuda-h4, cuda-h1, cuda-v4, cuda-v1 where a GPU is)")
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
