// Backends and native cuBLASLt timed side by side, outputs compared (see benchmark.hpp).
#include "mmaemu/tools/benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "mmaemu/emulate.hpp"
#include "mmaemu/tools/cuda_backend.hpp"
#include "mmaemu/tools/native_scaled_mm.hpp"
#include "mmaemu/tools/record.hpp"
#include "mmaemu/version.hpp"

namespace mmaemu {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()      ? 0
         : v.size() % 2 ? v[v.size() / 2]
                        : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The call through emulate_cuda_resident on a copy of its data already on the GPU: the median
// of `repeats` runs (after a warm-up when `warm_up`) and the output of the last.
Result<std::pair<double, std::vector<uint8_t>>> time_resident(const Plan& plan,
                                                              const ScaledMmCall& call,
                                                              Backend backend, int repeats,
                                                              bool warm_up) {
  auto copy = ResidentCopy::upload(call);
  if (!copy) return copy.error();
  std::vector<double> seconds;
  for (int r = warm_up ? 0 : 1; r <= repeats; ++r) {
    const auto started = std::chrono::steady_clock::now();
    if (auto ran = emulate_cuda_resident(plan, (*copy)->call(), backend); !ran) return ran.error();
    if (r > 0)
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
  auto out = (*copy)->download_out();
  if (!out) return out.error();
  return std::pair{median(seconds), std::move(*out)};
}

}  // namespace

Result<BenchmarkReport> run_benchmark(const BenchmarkOptions& o,
                                      const std::function<void(const std::string&)>& on_step) {
  if (o.repeats < 1) return Error(Errc::invalid_argument, "--repeats: at least 1");
  if (o.shapes.empty()) return Error(Errc::invalid_argument, "--shapes: empty");
  if (o.backends.empty()) return Error(Errc::invalid_argument, "--backends: empty");
  if (!o.profile) return Error(Errc::invalid_argument, "bench: no profile to plan the emulation");
  for (const auto& name : o.backends)
    if (name != "cublaslt" && !backend_named(name))
      return Error(Errc::invalid_argument, "--backends: unknown backend '" + name + "'");
  BenchmarkReport report;
  for (const auto& name : o.backends)
    if (auto b = backend_named(name); b && is_cuda(*b)) {
      auto device = cuda_backend_device();
      if (!device) return device.error();
      report.device = *device;
      break;
    }
  for (const auto& shape : o.shapes) {
    const std::string shape_name = fmt::format("{}x{}x{}", shape.m, shape.n, shape.k);
    RecordCall c;
    c.m = shape.m, c.n = shape.n, c.k = shape.k;
    c.a_dtype = o.a_dtype, c.b_dtype = o.b_dtype, c.out_dtype = o.out_dtype;
    c.use_fast_accum = o.use_fast_accum;
    c.dist = o.dist;
    c.seed = o.seed;
    if (auto drawn = draw_operands({&c, 1}, 1); !drawn) return drawn.error();
    c.scale_a = c.scale_b = {0x3F800000u};  // 1.0: tensorwise
    const ScaledMmCall call = c.view();
    const double flop =
        2.0 * static_cast<double>(c.m) * static_cast<double>(c.n) * static_cast<double>(c.k);
    std::optional<NativeTiming> native;
    double native_median = 0;
    std::optional<std::vector<uint8_t>> first;
    for (const auto& name : o.backends) {
      if (on_step) on_step(shape_name + " " + name);
      BenchmarkRow row;
      row.shape = shape_name;
      row.backend = name;
      std::vector<double> kernel_seconds;
      std::vector<uint8_t> out;
      if (name == "cublaslt") {
        auto t = time_native_scaled_mm(c, o.cublaslt_library, o.workspace_bytes, o.repeats + 1);
        // cuBLASLt offering no algorithm (FP8 wants K and the leading dimensions in multiples of
        // 16) is a row that says so: the other backends are still timed, compared with each other.
        if (!t && t.error().code() == Errc::unsupported) {
          row.covered = false;
          row.note = "cuBLASLt: " + t.error().message();
          report.rows.push_back(std::move(row));
          continue;
        }
        if (!t) return Error(t.error().code(), "bench: cuBLASLt: " + t.error().message());
        native = std::move(*t);
        if (report.device == "none") report.device = native->gpu;
        row.seconds.assign(native->seconds.begin() + 1,
                           native->seconds.end());  // the first run warms up
        native_median = median(row.seconds);
        out = native->out;
        row.cublaslt_version = native->cublaslt_version;
        row.splits = native->choice.splits();
        row.deterministic = native->deterministic;
      } else {
        const Backend backend = *backend_named(name);
        auto plan = o.profile->resolve(
            call,
            {.known_split_k = native ? std::optional<int>(native->choice.splits()) : std::nullopt,
             .workspace_bytes = o.workspace_bytes,
             .sm_count = std::nullopt,
             .known_split = std::nullopt,
             .heuristic_gpu = {}});
        if (!plan) return plan.error();
        row.splits = plan->split_k;
        row.split_k_source = plan->split_k_source;
        row.threads = is_cuda(backend) ? 0 : o.threads;
        for (int r = 0; r <= o.repeats; ++r) {
          CudaRunStats stats;
          const auto started = std::chrono::steady_clock::now();
          auto got = is_cuda(backend) ? emulate_cuda(*plan, call, backend, &stats)
                                      : emulate(*plan, call, backend, o.threads);
          const double s =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
          // A backend that does not cover the call (a kernel module that computes one slice, a
          // preset it lacks) is a row that says so, not the end of the run.
          if (!got && got.error().code() == Errc::unsupported) {
            row.covered = false;
            row.note = got.error().message();
            break;
          }
          if (!got)
            return Error(got.error().code(), "bench: " + name + ": " + got.error().message());
          if (r == 0) {
            out = std::move(*got);
            if (is_cuda(backend)) {
              row.module = stats.module;
              row.host_elements = stats.host_elements;
            }
            // A backend slower than max_seconds is timed once, on its first run.
            if (s > o.max_seconds) {
              row.seconds.push_back(s);
              row.note = fmt::format("one run: it took more than --max-seconds {}", o.max_seconds);
              break;
            }
            continue;
          }
          row.seconds.push_back(s);
          if (is_cuda(backend)) kernel_seconds.push_back(stats.kernel_seconds);
        }
        if (!row.covered) {
          report.rows.push_back(std::move(row));
          continue;
        }
        if (is_cuda(backend)) {
          const bool once = row.seconds.size() == 1;  // timed once: so is the resident path
          auto resident = time_resident(*plan, call, backend, once ? 1 : o.repeats, !once);
          if (!resident)
            return Error(resident.error().code(),
                         "bench: " + name + " resident: " + resident.error().message());
          row.resident_median_s = resident->first;
          row.resident_bits_equal = resident->second == out;
          report.all_equal = report.all_equal && resident->second == out;
        }
      }
      row.median_s = median(row.seconds);
      row.min_s = *std::min_element(row.seconds.begin(), row.seconds.end());
      if (!kernel_seconds.empty()) row.kernel_median_s = median(kernel_seconds);
      row.tflops = row.median_s > 0 ? flop / row.median_s / 1e12 : 0.0;
      if (native) {
        row.vs_cublaslt = row.median_s / native_median;
        row.bits_equal_cublaslt = out == native->out;
        report.all_equal = report.all_equal && out == native->out;
      }
      if (!first) {
        first = out;
      } else {
        ++report.outputs_compared;  // another backend's output against the shape's first
        row.bits_equal_first = out == *first;
        report.all_equal = report.all_equal && out == *first;
      }
      report.rows.push_back(std::move(row));
    }
  }
  return report;
}

std::string benchmark_report_json(const BenchmarkOptions& o, const BenchmarkReport& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const BenchmarkRow& x : r.rows) {
    nlohmann::json row = {{"shape", x.shape}, {"backend", x.backend}, {"covered", x.covered}};
    if (x.cublaslt_version) row["cublaslt_version"] = *x.cublaslt_version;
    row["splits"] = x.splits;
    if (x.deterministic) row["deterministic"] = *x.deterministic;
    if (!x.split_k_source.empty()) row["split_k_source"] = x.split_k_source;
    if (!x.module.empty()) row["module"] = x.module;
    if (x.host_elements) row["host_elements"] = *x.host_elements;
    if (x.backend != "cublaslt") row["threads"] = x.threads;
    if (!x.note.empty()) row["note"] = x.note;
    if (x.covered) {
      row["runs"] = x.seconds.size();
      row["median_s"] = x.median_s;
      row["min_s"] = x.min_s;
      if (x.kernel_median_s) row["kernel_median_s"] = *x.kernel_median_s;
      if (x.resident_median_s) row["resident_median_s"] = *x.resident_median_s;
      if (x.resident_bits_equal) row["resident_bits_equal"] = *x.resident_bits_equal;
      row["tflops"] = x.tflops;
      if (x.vs_cublaslt) row["vs_cublaslt"] = *x.vs_cublaslt;
      if (x.bits_equal_cublaslt) row["bits_equal_cublaslt"] = *x.bits_equal_cublaslt;
      if (x.bits_equal_first) row["bits_equal_first"] = *x.bits_equal_first;
    }
    rows.push_back(row);
  }
  nlohmann::json log = {
      {"format", "mmaemu-bench/1"},
      {"mmaemu_version", kVersion},
      {"mmaemu_commit", kGitCommit},
      {"gpu", r.device},
      {"cpu_threads", o.threads},
      {"profile", o.profile ? o.profile->name : ""},
      {"pair", fp8_pair_name(o.a_dtype, o.b_dtype)},
      {"out_dtype", std::string(describe(o.out_dtype).name)},
      {"use_fast_accum", o.use_fast_accum},
      {"dist", o.dist},
      {"workspace_bytes", o.workspace_bytes},
      {"repeats", o.repeats},
      {"timing",
       "median of the timed runs after one warm-up; CPU and CUDA backends end to end (uploads, "
       "kernel, downloads, host fallback), kernel_median_s the launch-to-synchronise time, "
       "resident_median_s the CUDA call on data already on the GPU; "
       "cuBLASLt the matmul alone on device-resident data"},
      {"results", rows},
      {"outputs_compared", r.outputs_compared},
      // Equal only where something was compared: one backend alone proves nothing.
      {"all_bits_equal", r.all_equal && r.outputs_compared > 0}};
  return log.dump(1) + "\n";
}

}  // namespace mmaemu
