// mmaemu sweep: which algorithm (and so which split-K count) cuBLASLt's heuristic picks for
// torch._scaled_mm calls, for one GPU and library version, over grids or random draws of shapes
// and every call configuration torch can ask for. Only the heuristic is asked; nothing runs on
// the GPU, so millions of shapes take minutes (one cuBLASLt handle per thread).
#pragma once

#include <compare>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mmaemu/error.hpp"
#include "mmaemu/format.hpp"
#include "mmaemu/split_k.hpp"
#include "mmaemu/tools/record.hpp"

namespace mmaemu {

// One call configuration, as the heuristic sees it.
struct SweepKey {
  int64_t workspace_bytes = 1 << 20;
  bool rowwise = false;
  bool use_fast_accum = false;
  Format a_dtype = Format::f8_e4m3, b_dtype = Format::f8_e4m3, out_dtype = Format::bf16;
  std::optional<Format> bias_dtype;  // the bias epilogue with a bias of this dtype
  int sm_count_target = 0;           // CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET; 0: the GPU's own count
};

// "ws1048576 tensorwise promoted e4m3xe4m3 bf16 bias=none sm=gpu": the key in logs.
std::string describe_key(const SweepKey& key);

// What the split-K model sees of a swept configuration; `multiprocessors`: the GPU's SM count,
// taken where the key sets no SM-count target.
SplitKConfig split_k_config(const SweepKey& key, int multiprocessors);
// A call of torch's shape m x n x k in a swept configuration (no operands yet).
RecordCall record_call(const SweepKey& key, int64_t m, int64_t n, int64_t k);

// Whether torch._scaled_mm (2.11) can make a call with this configuration; else why not.
// Torch takes a bias only of bf16 (bf16 output), f16 (f16 output) or either (FP8 output), and
// refuses e5m2 x e5m2.
std::optional<std::string> torch_refuses(const SweepKey& key);

// The configuration of the algorithm the heuristic returned. The workspace it asks for depends on
// the shape, so it is kept beside, per shape.
struct AlgorithmConfig {
  int32_t id = 0, tile = 0, splits = 1, reduction_scheme = 0, swizzle = 0, custom_option = 0,
          stages = 0, inner_shape = 0, cluster_shape = 0;
  auto operator<=>(const AlgorithmConfig&) const = default;
  // Each field under cuBLASLt's attribute name (as AlgorithmChoice names them): id, tile_id, ...
  std::vector<std::pair<std::string, int64_t>> attributes() const;
};

// One question: configuration `key` (an index into the keys) at torch's shape m x n x k.
struct HeuristicQuery {
  uint32_t key = 0;
  int64_t m = 0, n = 0, k = 0;
  bool ask = true;  // false: a rule of the split-K model answers it (sweep --skip-ruled)
};

struct HeuristicAnswer {
  static constexpr int32_t kNothing = -1;   // the heuristic returned no algorithm
  static constexpr int32_t kNotAsked = -2;  // the deadline came first
  static constexpr int32_t kRuled = -3;     // not asked: a split-K rule gives one slice
  int32_t algorithm = kNotAsked;            // an index into HeuristicSweep::algorithms
  uint64_t workspace_bytes = 0;
  float waves = 0;
};

struct HeuristicSweep {
  std::string gpu, cublaslt_library;
  int compute_major = 0, compute_minor = 0, multiprocessors = 0, driver_version = 0;
  size_t cublaslt_version = 0;
  std::vector<AlgorithmConfig> algorithms;  // distinct, in the order first seen
  std::vector<HeuristicAnswer> answers;     // one per query
  size_t asked = 0;                         // questions put to the heuristic
  double seconds = 0;
  int jobs = 0;
};

struct SweepOptions {
  std::string cublaslt_library = "libcublasLt.so.13";
  int device = 0;
  int jobs = 0;            // threads, each with its own cuBLASLt handle; 0: every core
  double max_seconds = 0;  // stop asking after this long (0: no limit); the rest stay kNotAsked
};

// Asks the heuristic `count` questions, `query_of(i)` giving the i-th; `progress` is called from
// the calling thread now and then with the number answered.
Result<HeuristicSweep> ask_heuristic(
    const SweepOptions& options, const std::vector<SweepKey>& keys, size_t count,
    const std::function<HeuristicQuery(size_t)>& query_of,
    const std::function<void(size_t done, size_t total)>& progress);

// The documented grid: m, n and k each over powers of two and their midpoints (x1.5),
// m, n in 16..8192 and k in 32..65536.
std::vector<int64_t> documented_axis(int64_t from, int64_t to);

struct SweepGrid {
  std::vector<int64_t> m, n, k;  // torch's shape: A is m x k, the output m x n
  std::vector<SweepKey> keys;
};

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

// A sweep log (mmaemu-sweep/2) read back: its configurations and every question with the count
// cuBLASLt chose (0 where the heuristic returned no algorithm; questions not asked are skipped).
class SweepLog {
 public:
  static Result<SweepLog> read(const std::filesystem::path& path);
  const std::vector<SweepKey>& keys() const { return keys_; }
  const std::string& gpu() const { return gpu_; }
  int multiprocessors() const { return multiprocessors_; }
  size_t cells() const;
  // Calls `visit(key, m, n, k, splits)` for every asked question, in the log's order.
  void visit(const std::function<void(uint32_t key, int64_t m, int64_t n, int64_t k, int splits)>&
                 visit) const;

 private:
  std::vector<SweepKey> keys_;
  std::vector<int> algorithm_splits_;  // the split count of each distinct algorithm
  std::string gpu_;
  int multiprocessors_ = 0;
  bool grid_ = false;
  std::vector<int64_t> m_, n_, k_;
  std::vector<uint16_t> key_;       // list layout: each question's key
  std::vector<int32_t> algorithm_;  // every question's algorithm index
};

// How a log holds its questions: a grid keeps its axes (the questions are every key x m x n x k,
// in that order); a list keeps each question's key and shape.
struct SweepLogLayout {
  std::vector<int64_t> m, n, k;      // the grid's axes
  std::vector<HeuristicQuery> list;  // or the questions of a list (then the axes stay empty)
  bool is_list() const { return !list.empty(); }
  size_t questions(size_t keys) const {
    return is_list() ? list.size() : keys * m.size() * n.size() * k.size();
  }
};

// A sweep's answers as a log (mmaemu-sweep/2, safetensors), what SweepLog::read reads: the
// answers as arrays (algorithm index, workspace bytes, waves), the keys and the distinct
// algorithms in the metadata, beside `about` (a JSON object's text: format, environment, axes,
// ...; its "layout" is set here). Written to a temporary file, then renamed.
Result<void> write_sweep_log(const std::filesystem::path& path, const std::vector<SweepKey>& keys,
                             const HeuristicSweep& sweep, const SweepLogLayout& layout,
                             const std::string& about);

// A key as the logs write it (JSON object text): workspace_bytes, rowwise, use_fast_accum, the
// dtypes, bias_dtype and sm_count_target where set.
std::string sweep_key_json(const SweepKey& key);

// The grid as tables, one per key (ask_heuristic underneath).
Result<SweepResult> sweep_algorithms(
    const SweepOptions& options, const SweepGrid& grid,
    const std::function<void(size_t done, size_t total)>& progress);

}  // namespace mmaemu
