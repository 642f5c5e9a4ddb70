// Hardware truth sets in the format mmaemu-truth/1: a manifest.json naming safetensors files with
// their sha256, and one recording per library call (op "scaled_mm") or per instruction data set
// (op "mma_block"). A set whose files do not match their hashes is refused.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mmaemu/error.hpp"
#include "mmaemu/format.hpp"
#include "mmaemu/safetensors.hpp"

namespace mmaemu {

// A scale as a manifest gives it: a number (tensorwise) or the name of an f32 tensor (rowwise).
struct ScaleRef {
  std::optional<double> value;
  std::string tensor;
  bool is_tensor() const { return !value.has_value(); }
};

struct Recording {
  std::string id, op, file;
  // op "scaled_mm"
  int64_t m = 0, n = 0, k = 0;
  std::optional<int64_t> n_stored;
  std::string a, b, out;
  Format a_dtype = Format::f8_e4m3, b_dtype = Format::f8_e4m3, out_dtype = Format::bf16;
  ScaleRef scale_a, scale_b;
  std::optional<std::string> bias;
  bool use_fast_accum = false;
  std::vector<std::string> kernels;
  std::optional<int> recorded_split_k;  // algorithm.splitk_num, where the recorder logged it
  // cuBLASLt's workspace and SM_COUNT_TARGET for this call, where they differ from the set's.
  std::optional<int64_t> workspace_bytes;
  std::optional<int> sm_count_target;
  std::string dist;
  // op "mma_block"
  std::string gpu, instruction, c;
  int64_t count = 0;
  Format in_dtype = Format::f16, c_dtype = Format::f32;
};

// Whether cuBLASLt split K for a recording, as its kernel names show (a splitKreduce_kernel, or
// an nvjet kernel named splitK); nullopt when the recording lists no kernels.
std::optional<bool> kernels_show_split(const Recording& r);

struct TruthSet {
  std::filesystem::path directory;
  std::string source;
  std::string environment_json;            // the manifest's environment object, verbatim
  std::string gpu;                         // environment.gpu where given
  std::optional<int64_t> workspace_bytes;  // environment.workspace_bytes (cuBLASLt's), where given
  std::optional<int> multiprocessors;      // environment.multiprocessors: the GPU's SM count
  std::optional<int> sm_count_target;      // environment.sm_count_target: the heuristic's, when set
  std::map<std::string, std::string> files;  // name -> sha256 (lower-case hex)
  // Whether open_recording_file checks the bytes it reads against `files` (load_truth_set's
  // verify_hashes): the bytes hashed are the bytes replayed.
  bool verify_hashes = true;
  std::vector<Recording> recordings;
  std::vector<std::string> skipped;
  std::string manifest_sha256;
};

// The SM count cuBLASLt's heuristic saw for a recording: its SM_COUNT_TARGET, else the set's,
// else the GPU's; none when the manifest does not say.
std::optional<int> heuristic_sm_count(const TruthSet& set, const Recording& recording);
// cuBLASLt's workspace for a recording: its own, else the set's; none when the manifest does not
// say.
std::optional<int64_t> recorded_workspace_bytes(const TruthSet& set, const Recording& recording);

struct TruthLoadOptions {
  bool verify_hashes = true;
};

Result<TruthSet> load_truth_set(const std::filesystem::path& directory,
                                const TruthLoadOptions& options = {});

// Reads the safetensors file of a recording once, checks those bytes against the manifest's sha256
// (where the set was loaded with verify_hashes) and that its tensors have the shapes and dtypes
// the manifest implies.
Result<SafetensorsFile> open_recording_file(const TruthSet& set, const Recording& recording);

// Lower-case hex SHA-256 of a file or a byte range (OpenSSL libcrypto).
Result<std::string> sha256_file(const std::filesystem::path& path);
std::string sha256_bytes(std::span<const uint8_t> bytes);

}  // namespace mmaemu
