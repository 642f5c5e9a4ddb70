// cuBLASLt's split-K count for a torch._scaled_mm call, without a GPU: what the library's
// heuristic chose on the hardware (mmaemu sweep), as data. A split-K model holds
//   - rules found to hold on every swept cell (no split at K <= 2 x 2560, without the workspace
//     for two slices, or with rowwise scales);
//   - grids: the count at every point of an m x n x k lattice for one call configuration, as runs
//     along k (exact on the lattice, and the basis of a prediction between its points);
//   - points: shapes off any lattice, each with its count for every configuration swept.
// A decision says whether it rests on a rule or a swept cell (inside the envelope) or is a
// prediction (outside, with the reason).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mmaemu/error.hpp"
#include "mmaemu/format.hpp"

namespace mmaemu {

// What the heuristic sees of a call besides its shape.
struct SplitKConfig {
  int sm_count = 0;  // the SM count the heuristic saw (the GPU's, or its SM_COUNT_TARGET)
  int64_t workspace_bytes = 0;
  bool rowwise = false, use_fast_accum = false;
  Format a_dtype = Format::f8_e4m3, b_dtype = Format::f8_e4m3, out_dtype = Format::bf16;
  std::optional<Format> bias_dtype;
  bool operator==(const SplitKConfig&) const = default;
};

std::string describe(const SplitKConfig& config);

// One axis of a grid: values from, from + step, ..., to (a lattice), or listed values.
struct Axis {
  int64_t from = 1, to = 1, step = 1;
  std::vector<int64_t> listed;  // increasing; empty for a lattice
  bool lattice() const { return listed.empty(); }
  size_t size() const {
    return lattice() ? static_cast<size_t>((to - from) / step + 1) : listed.size();
  }
  std::optional<size_t> index_of(int64_t x) const;
  // The first value at or above x, where there is one.
  std::optional<size_t> index_at_or_above(int64_t x) const;
  int64_t value(size_t i) const {
    return lattice() ? from + static_cast<int64_t>(i) * step : listed[i];
  }
};

struct SplitKGrid {
  SplitKConfig config;
  Axis m, n, k;  // a grid over three lattices is the basis of predictions between its points
  // Column (i, j) = i * n.size() + j holds runs column_start[c] .. column_start[c + 1] - 1; run r
  // covers k indices from the previous run's end up to run_end[r] (exclusive).
  std::vector<uint32_t> column_start, run_end;
  std::vector<uint16_t> run_splits;
  std::string evidence;
  int at(size_t i, size_t j, size_t l) const;
};

struct SplitKShape {
  int64_t m = 0, n = 0, k = 0;
  auto operator<=>(const SplitKShape&) const = default;
};

struct SplitKPoints {
  std::vector<SplitKConfig> configs;
  std::vector<SplitKShape> shapes;  // sorted
  std::vector<uint8_t> splits;      // shape-major: splits[s * configs.size() + c]; 0: none returned
  std::string evidence;
  std::optional<int> find(const SplitKShape& shape, size_t config) const;
};

struct SplitKDevice {
  int sm_count = 0;
  std::vector<std::string> gpus;
  std::string note;
};

struct SplitKModel {
  std::string library;  // the cuBLASLt whose heuristic was swept, e.g. "cuBLASLt 13.1.0 (130100)"
  std::string gpu;      // the GPU it was swept on
  int reference_sm_count = 0;
  std::vector<SplitKDevice> devices;
  // A slice holds more than k_per_slice elements of K; each slice needs m x ceil(n / a) x a x 4
  // bytes of workspace (a = workspace_n_alignment), plus workspace_extra_bytes in all.
  int k_per_slice = 2560;
  int workspace_n_alignment = 32;
  int workspace_extra_bytes = 16;
  std::string rules_evidence;
  std::vector<SplitKGrid> grids;
  std::vector<SplitKPoints> points;

  // "132 SMs (NVIDIA H200, H100 SXM, ...)", or "114 SMs" when no device of that count is known.
  std::string describe_device(int sm_count) const;
  // Whether the model holds `gpu_name`'s own choice: the GPU it was swept on ("NVIDIA H200"
  // answers for "NVIDIA H200" and "NVIDIA H200 NVL", not for "NVIDIA GH200 480GB").
  bool swept_on(const std::string& gpu_name) const;
};

struct SplitKDecision {
  int splits = 1;
  bool checked = false;  // a rule or a swept cell: inside the envelope
  std::string source;    // what the count rests on
  std::string outside;   // when not checked: why the count is a prediction
};

// The rules that answer a shape without data (each held on every cell ever swept).
enum class SplitKRule { none, rowwise, short_k, small_workspace };

// Decisions for one configuration: what in the model applies to it is found once, so that
// millions of shapes are decided quickly (mmaemu split-k --logs).
class SplitKDecider {
 public:
  SplitKDecider(const SplitKModel& model, const SplitKConfig& config);
  SplitKDecision decide(int64_t m, int64_t n, int64_t k) const;
  // The rule that answers the shape (one slice), if any: cheap, for sweeps that ask only the rest.
  SplitKRule rule_for(int64_t m, int64_t n, int64_t k) const;
  const SplitKConfig& config() const { return config_; }

 private:
  const SplitKModel& model_;
  SplitKConfig config_;
  // Point sets and grids of this configuration at any workspace (the call's own first): another
  // workspace answers a shape where it allows the same number of slices.
  std::vector<std::pair<const SplitKPoints*, size_t>> points_;
  std::vector<const SplitKGrid*> exact_;
  // Lattice grids a prediction may come from, nearest configuration first (then model order).
  struct Basis {
    const SplitKGrid* grid;
    int distance;  // 0: this configuration (at any workspace that allows as many slices)
  };
  // The slices of `slice_bytes` each that a workspace holds (after workspace_extra_bytes).
  int64_t slices_held(int64_t workspace_bytes, int64_t slice_bytes) const;
  int64_t slice_bytes(int64_t m, int64_t n) const;
  std::vector<Basis> bases_;
  // What bounds one shape's count: the K rule and the call's workspace.
  struct Bounds {
    int64_t slice_bytes, most_by_k, most_by_workspace, usable;
  };
  // Whether another workspace allows the shape as many slices (and so chooses alike).
  bool allows_as_many(const SplitKConfig& other, const Bounds& b) const;
  std::optional<SplitKDecision> by_rule(int64_t m, int64_t n, int64_t k) const;
  std::optional<SplitKDecision> swept(int64_t m, int64_t n, int64_t k, const Bounds& b) const;
  SplitKDecision predicted(int64_t m, int64_t n, int64_t k, const Bounds& b) const;
};

// The count cuBLASLt's heuristic chooses for torch's m x n x k under `config`.
SplitKDecision decide_split_k(const SplitKModel& model, const SplitKConfig& config, int64_t m,
                              int64_t n, int64_t k);

// Parses an mmaemu-split-k/1 file; `origin` names it in errors.
Result<SplitKModel> parse_split_k_model(std::string_view json_text, const std::string& origin);

}  // namespace mmaemu
