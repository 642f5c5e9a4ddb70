// Recording hardware truth: torch._scaled_mm's cuBLASLt call, made exactly as torch makes it,
// with libcublasLt and the CUDA driver loaded at run time. The calls come from an existing truth
// set (the same inputs again) or from a grid of shapes and input distributions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mmaemu/error.hpp"
#include "mmaemu/format.hpp"
#include "mmaemu/scaled_mm.hpp"

namespace mmaemu {

// FP8 codes drawn from a named distribution: normal (N(0,1) rounded to nearest), wide (every
// finite code equally likely), cancel (normal, each odd element the negation of the one before),
// small (the bottom binades and subnormals), special (normal with NaN/Inf/zero/extreme codes).
Result<std::vector<uint8_t>> draw_fp8(Format format, const std::string& distribution, size_t count,
                                      uint64_t seed);

// A call to record: the owning call, and what the manifest says of it.
struct RecordCall : OwnedScaledMmCall {
  std::string id;
  std::optional<double> scale_a_value, scale_b_value;  // as the manifest writes tensorwise scales
  std::string dist;
  uint64_t seed = 0;
  // CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: the heuristic chooses as for a GPU with this many SMs
  // (an H100 PCIe's 114 on an H200, say); 0 leaves the attribute unset (the GPU's own count).
  int sm_count_target = 0;
  // cuBLASLt's workspace for this call; none: RecordOptions::workspace_bytes.
  std::optional<int64_t> workspace_bytes;
};

// Each call's operands drawn from its `dist` and `seed`: a (m x k) from seed x 2, b (n x k) from
// seed x 2 + 1, the convention every recorded set follows; calls spread over `threads` (<= 0:
// every core), the codes the same at any thread count.
Result<void> draw_operands(std::span<RecordCall> calls, int threads);

// What cuBLASLt's heuristic chose for a call: every config attribute its result exposes (id,
// tile_id, splitk_num, reduction_scheme, cta_swizzling, custom_option, stages_id, inner_shape_id,
// cluster_shape_id), with the workspace it asks for and its wave count.
struct AlgorithmChoice {
  std::vector<std::pair<std::string, int64_t>> attributes;
  uint64_t workspace_size = 0;
  float waves_count = 0;
  std::optional<int64_t> attribute(const std::string& name) const;
  int splits() const { return static_cast<int>(attribute("splitk_num").value_or(1)); }
};

struct RecordOptions {
  std::filesystem::path out_dir;
  std::string cublaslt_library = "libcublasLt.so.13";
  int64_t workspace_bytes = 1 << 20;
  int device = 0;
  // SM_COUNT_TARGET for every call that names none (0: unset, the GPU's own count); the manifest's
  // environment records it as sm_count_target.
  int sm_count_target = 0;
};

struct RecordSummary {
  int recorded = 0, skipped = 0, nondeterministic = 0;
};

// Runs every call twice on the GPU, writes an mmaemu-truth/1 set with what cuBLASLt chose for
// each call; `progress` is told each finished call.
Result<RecordSummary> record_truth_set(const RecordOptions& options, std::vector<RecordCall> calls,
                                       const std::function<void(const std::string&)>& progress);

}  // namespace mmaemu
