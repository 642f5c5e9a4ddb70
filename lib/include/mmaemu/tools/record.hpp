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
#include "mmaemu/tools/calls.hpp"

namespace mmaemu {

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
