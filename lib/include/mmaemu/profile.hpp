// A profile names a target (device family + library + version) and says which preset and GEMM
// algorithm apply to each call configuration, how many split-K slices the library uses, what was
// validated (the envelope), how mature it is and which committed logs are its evidence.
// Profiles are JSON under profiles/; the executable carries copies of them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mmaemu/error.hpp"
#include "mmaemu/scaled_mm.hpp"
#include "mmaemu/split_k.hpp"

namespace mmaemu {

struct ProfileRule {
  std::vector<Format> a_dtypes, b_dtypes, out_dtypes;  // empty = any
  std::optional<bool> use_fast_accum;
  std::optional<bool> rowwise;
  std::string preset;
  std::string algorithm;
};

struct SplitKEntry {
  int64_t m, n, k;  // torch's shape: A is m x k, the output m x n
  int splits;
  bool rowwise = false;  // the scale mode the heuristic was asked with
  std::string evidence;
};

// The most split-K slices a plan may have (a known count above it is refused).
inline constexpr int64_t kMaxSplitK = 4096;

// What the caller knows about the library run being emulated.
struct ResolveOptions {
  // The split count the library used, where known (a recording that logged it, or the user).
  std::optional<int> known_split_k;
  // cuBLASLt's workspace; default: the profile target's (torch's 1 MiB).
  std::optional<int64_t> workspace_bytes;
  // The SM count cuBLASLt's heuristic saw (the GPU's, or its SM_COUNT_TARGET); default: the
  // profile's reference device's.
  std::optional<int> sm_count;
  // Whether the library split K, where that alone is known (a recording's kernel names: cuBLASLt's
  // splitKreduce_kernel runs only after a split). Weighed when known_split_k is not given.
  std::optional<bool> known_split;
  // The GPU whose cuBLASLt heuristic is emulated, as its driver names it ("NVIDIA H100 80GB HBM3");
  // empty: the split-K model's own. A count the model gives for another GPU is outside the
  // envelope: GPUs with equal SM counts choose differently.
  std::string heuristic_gpu;
};

struct Profile {
  std::string name;
  std::string description;
  std::string maturity;  // "validated" or "experimental"
  std::vector<std::string> devices;
  std::string architecture;
  std::string library;
  std::string library_version;
  std::optional<int64_t> workspace_bytes;
  std::vector<std::string> evidence;  // paths of committed logs
  std::vector<ProfileRule> rules;
  std::string split_k_source;
  std::vector<SplitKEntry> split_k_table;
  std::vector<SplitKEntry> unsplit_shapes;  // shapes seen with one slice
  // The split-K model (split_k.model: a file beside the profile, or one the executable carries),
  // which decides every count the table above does not give.
  std::shared_ptr<const SplitKModel> split_k_model;
  std::string split_k_model_name;
  // Models of other GPUs' choice (split_k.gpu_models): the same library chooses otherwise on
  // GPUs with equal SM counts (an H100 SXM against the H200), so each GPU swept has its own.
  struct NamedSplitKModel {
    std::string name;
    std::shared_ptr<const SplitKModel> model;
  };
  std::vector<NamedSplitKModel> split_k_gpu_models;
  std::vector<Format> envelope_out_dtypes;
  std::string envelope_note;

  // The plan for a call: the first rule that matches gives preset and algorithm; the split
  // count comes from `options.known_split_k` when the caller knows what the library chose, else
  // from the profile's split-K data for the workspace and SM count; the verdict says whether the
  // call lies inside the envelope.
  Result<Plan> resolve(const ScaledMmCall& call, const ResolveOptions& options = {}) const;

  // The split-K model that holds `gpu`'s choice (as its driver names it): the first swept on it,
  // else the reference model (split_k_model; `swept_on_gpu` false unless `gpu` is empty or its
  // own). `model` is null for a profile without a split-K model.
  struct SplitKModelChoice {
    const SplitKModel* model = nullptr;
    std::string name;
    bool swept_on_gpu = false;
  };
  SplitKModelChoice split_k_model_for(const std::string& gpu) const;
  // The GPUs the split-K models were swept on, the reference first ("NVIDIA H200, ...").
  std::string split_k_gpus() const;
};

Result<Profile> parse_profile(std::string_view json_text, const std::string& origin);
// A profile by name (one the executable carries) or by the path of a JSON file.
Result<Profile> load_profile(const std::string& name_or_path);
std::vector<std::string> builtin_profile_names();
// The name of the built-in profile of an architecture ("hopper"), if one describes it.
std::optional<std::string> builtin_profile_for(std::string_view architecture);

}  // namespace mmaemu
