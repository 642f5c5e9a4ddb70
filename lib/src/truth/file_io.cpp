#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "mmaemu/safetensors.hpp"

namespace mmaemu {

Result<std::vector<uint8_t>> read_file_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    // A FIFO or a device would be read without end; a directory is not data.
    return Error(Errc::io, path.string() + (std::filesystem::exists(path, ec)
                                                ? ": not a regular file (a directory, FIFO or device)"
                                                : ": no such file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(Errc::io, path.string() + ": cannot open: " + std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Error(Errc::io, path.string() + ": read error");
  return bytes;
}

Result<void> write_file_atomically(const std::filesystem::path& path,
                                   std::span<const uint8_t> bytes) {
  std::random_device entropy;
  const auto temp = path.string() + ".tmp" + std::to_string(entropy() % 1000000);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return Error(Errc::io, path.string() + ": cannot create: " + std::strerror(errno));
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      return Error(Errc::io, path.string() + ": write failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    return Error(Errc::io, path.string() + ": cannot rename into place");
  }
  return {};
}

Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  return write_file_atomically(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace mmaemu
