// Speed, side by side in one run, of the emulation backends (oracle, fast CPU path, the CUDA
// kernel modules) and of native cuBLASLt on the same GPU, on the same inputs; every output is
// also compared bit for bit with cuBLASLt's (the hardware's answer) and with the first backend's
// (mmaemu bench's library call).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mmaemu/error.hpp"
#include "mmaemu/format.hpp"
#include "mmaemu/profile.hpp"

namespace mmaemu {

struct BenchmarkOptions {
  struct Shape {
    int64_t m = 0, n = 0, k = 0;
  };
  std::vector<Shape> shapes;
  // In order: "cublaslt" (native, first where present: its split-K count plans the emulation and
  // its bits are the truth) or a backend name (to_string(Backend)).
  std::vector<std::string> backends;
  Format a_dtype = Format::f8_e4m3, b_dtype = Format::f8_e4m3, out_dtype = Format::bf16;
  bool use_fast_accum = false;
  std::string dist = "normal";  // draw_fp8's distributions
  uint64_t seed = 1;
  const Profile* profile = nullptr;  // plans the emulation
  std::string cublaslt_library = "libcublasLt.so.13";
  int64_t workspace_bytes = 1 << 20;
  int repeats = 5;          // timed runs after one warm-up
  double max_seconds = 60;  // a backend whose first run is slower is timed once
  int threads = 1;          // CPU backends
};

struct BenchmarkRow {
  std::string shape, backend;
  bool covered = true;
  std::string note;  // why not covered, or why timed once
  int splits = 0;
  std::string split_k_source;  // emulation: where the count came from
  std::vector<double> seconds;
  std::optional<double> kernel_median_s;  // CUDA: launch to synchronise
  // CUDA: the same call on data already on the GPU (emulate_cuda_resident), its median time and
  // whether its output equals the host path's.
  std::optional<double> resident_median_s;
  std::optional<bool> resident_bits_equal;
  std::optional<bool> bits_equal_cublaslt, bits_equal_first;
  std::optional<double> vs_cublaslt;  // median time over cuBLASLt's
  std::string module;                 // CUDA: the module that ran
  std::optional<int64_t> host_elements;
  int threads = 0;
  std::optional<size_t> cublaslt_version;
  std::optional<bool> deterministic;  // cuBLASLt: every run gave the same bits
  double median_s = 0, min_s = 0, tflops = 0;
};

struct BenchmarkReport {
  std::string device = "none";
  std::vector<BenchmarkRow> rows;
  size_t outputs_compared = 0;  // outputs checked against another backend's
  bool all_equal = true;        // no compared output differed
};

Result<BenchmarkReport> run_benchmark(const BenchmarkOptions& options,
                                      const std::function<void(const std::string&)>& on_step = {});

// mmaemu-bench/1 (JSON text).
std::string benchmark_report_json(const BenchmarkOptions& options, const BenchmarkReport& report);

}  // namespace mmaemu
