// mmaemu sweep: which algorithm (and so which split-K count) cuBLASLt's heuristic picks for
// torch._scaled_mm calls over a grid of shapes, for one GPU, library version and workspace size.
// Only the heuristic is asked; nothing runs on the GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mmaemu/error.hpp"
#include "mmaemu/format.hpp"
#include "mmaemu/record.hpp"

namespace mmaemu {

// One table of the sweep: every (m, n, k) of the axes for one call configuration.
struct SweepKey {
  int64_t workspace_bytes = 1 << 20;
  bool rowwise = false;
  bool use_fast_accum = false;
  Format a_dtype = Format::f8_e4m3, b_dtype = Format::f8_e4m3, out_dtype = Format::bf16;
};

struct SweepGrid {
  std::vector<int64_t> m, n, k;  // torch's shape: A is m x k, the output m x n
  std::vector<SweepKey> keys;
};

// The documented grid: m, n and k each over powers of two and their midpoints (x1.5),
// m, n in 16..8192 and k in 32..65536.
std::vector<int64_t> documented_axis(int64_t from, int64_t to);

struct SweepTable {
  SweepKey key;
  std::vector<int64_t> m, n, k;
  // m-major, then n, then k: index (i * n.size() + j) * k.size() + l. A cell whose heuristic
  // returned nothing holds splits 0.
  std::vector<int> splits, reduction_schemes;
  std::vector<AlgorithmChoice> choices;
};

struct SweepResult {
  std::string gpu, cublaslt_library;
  int compute_major = 0, compute_minor = 0, multiprocessors = 0, driver_version = 0;
  size_t cublaslt_version = 0;
  std::vector<SweepTable> tables;
};

struct SweepOptions {
  std::string cublaslt_library = "libcublasLt.so.13";
  int device = 0;
};

Result<SweepResult> sweep_algorithms(const SweepOptions& options, const SweepGrid& grid,
                                     const std::function<void(size_t done, size_t total)>& progress);

}  // namespace mmaemu
