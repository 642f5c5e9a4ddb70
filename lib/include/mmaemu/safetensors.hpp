// safetensors reading and writing. Hand-written: Debian packages no C++ safetensors library; the
// format is an 8-byte little-endian header length, a JSON header (parsed with nlohmann/json), and
// raw little-endian data. Every offset and size is checked before use: a malformed file is an
// error naming the file and the tensor, never an out-of-bounds read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "mmaemu/error.hpp"

namespace mmaemu {

struct TensorInfo {
  std::string name;
  std::string dtype;  // as written in the file: "F8_E4M3", "BF16", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // byte offsets into the data section
  int64_t element_count() const;
};

class SafetensorsFile {
 public:
  static Result<SafetensorsFile> read(const std::filesystem::path& path);
  // `origin` names the bytes in error messages (usually the path).
  static Result<SafetensorsFile> parse(std::vector<uint8_t> bytes, std::string origin);

  const std::string& origin() const { return origin_; }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const TensorInfo* find(std::string_view name) const;
  std::span<const uint8_t> data(const TensorInfo& tensor) const;

 private:
  std::string origin_;
  std::vector<uint8_t> bytes_;
  size_t data_start_ = 0;
  std::vector<TensorInfo> tensors_;
  std::map<std::string, std::string> metadata_;
};

// The bytes of 32-bit words as stored (little-endian hosts only, as the whole library assumes).
inline std::span<const uint8_t> bytes_of(const std::vector<uint32_t>& words) {
  return {reinterpret_cast<const uint8_t*>(words.data()), words.size() * 4};
}

struct TensorToWrite {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  std::span<const uint8_t> data;
};

// Writes to a temporary file beside `path`, then renames it: nothing half-written is left.
Result<void> write_safetensors(const std::filesystem::path& path,
                               std::span<const TensorToWrite> tensors,
                               const std::map<std::string, std::string>& metadata = {});

// Bytes per element of a safetensors dtype, or 0 when the dtype is unknown.
int safetensors_dtype_size(std::string_view dtype);

// Nothing, or why `path` holds no regular file to read: "no such file", or "not a regular file"
// (a directory, FIFO or device, which would be read without end or is not data).
Result<void> require_regular_file(const std::filesystem::path& path);
// Reads a whole file; writes a file atomically (temporary file, then rename).
Result<std::vector<uint8_t>> read_file_bytes(const std::filesystem::path& path);
Result<void> write_file_atomically(const std::filesystem::path& path,
                                   std::span<const uint8_t> bytes);
Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view text);
// Removes the temporary files that write_file_atomically has open (its write then fails).
// Async-signal-safe: an application's SIGINT/SIGTERM handler calls it, so that a kill during a
// write leaves no <out>.tmpNNNN behind (the library installs no handler itself).
void remove_pending_temp_files() noexcept;
// Refuses, before any work, an output path that is one of the command's input files or lies in a
// folder it reads (a truth set): `gemm --in X --out X` or `replay --json SET/manifest.json` would
// destroy what they read.
Result<void> check_output_path(const std::filesystem::path& out,
                               std::initializer_list<std::filesystem::path> input_files,
                               std::initializer_list<std::filesystem::path> input_folders = {});

}  // namespace mmaemu
