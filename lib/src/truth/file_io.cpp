#include <fcntl.h>
#include <unistd.h>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "mmaemu/safetensors.hpp"

namespace mmaemu {
namespace {

// The temporary files being written, in fixed storage that a signal handler may read: a slot is
// free (0), being filled (1) or holds a path (2); the handler unlinks the paths of state 2 only.
constexpr int kPendingSlots = 64;
constexpr size_t kPendingPathBytes = 4096;
std::atomic<int> g_pending_state[kPendingSlots];
char g_pending_path[kPendingSlots][kPendingPathBytes];

// The slot now holding `path`, or -1 (all busy, or a path too long: then it is not cleaned).
int hold_pending(const std::string& path) {
  if (path.size() >= kPendingPathBytes) return -1;
  for (int i = 0; i < kPendingSlots; ++i) {
    int free_state = 0;
    if (!g_pending_state[i].compare_exchange_strong(free_state, 1)) continue;
    std::memcpy(g_pending_path[i], path.c_str(), path.size() + 1);
    g_pending_state[i].store(2);
    return i;
  }
  return -1;
}

void release_pending(int slot) {
  if (slot >= 0) g_pending_state[slot].store(0);
}

}  // namespace

void remove_pending_temp_files() noexcept {
  for (int i = 0; i < kPendingSlots; ++i)
    if (g_pending_state[i].load() == 2) ::unlink(g_pending_path[i]);
}

Result<void> require_regular_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return {};
  // A FIFO or a device would be read without end; a directory is not data.
  return Error(Errc::io, path.string() + (std::filesystem::exists(path, ec)
                                              ? ": not a regular file (a directory, FIFO or device)"
                                              : ": no such file"));
}

Result<std::vector<uint8_t>> read_file_bytes(const std::filesystem::path& path) {
  if (auto ok = require_regular_file(path); !ok) return ok.error();
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(Errc::io, path.string() + ": cannot open: " + std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) return Error(Errc::io, path.string() + ": read error");
  return bytes;
}

Result<void> write_file_atomically(const std::filesystem::path& path,
                                   std::span<const uint8_t> bytes) {
  // Only a regular file (or nothing) is replaced: a symlink, FIFO or device at the output path
  // would otherwise become a regular file (as root, --out /dev/null would replace the system's).
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(path, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    return Error(Errc::io, path.string() +
                               ": not a regular file (a symlink, directory, FIFO or device); not "
                               "replaced");
  std::random_device entropy;
  const auto temp = path.string() + ".tmp" + std::to_string(entropy() % 1000000);
  const int slot = hold_pending(temp);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    release_pending(slot);
    return Error(Errc::io, path.string() + ": cannot create: " + std::strerror(errno));
  }
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  // On disk before the rename: a crash then leaves the old file or the new one, never a torn one.
  const bool ok = written == bytes.size() && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) {
    std::filesystem::remove(temp, ec);
    release_pending(slot);
    return Error(Errc::io, path.string() + ": write failed: " + std::strerror(errno));
  }
  std::filesystem::rename(temp, path, ec);
  release_pending(slot);
  if (ec) {
    std::filesystem::remove(temp, ec);
    return Error(Errc::io, path.string() + ": cannot rename into place (" + ec.message() + ")");
  }
  return {};
}

Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  return write_file_atomically(
      path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

Result<void> check_output_path(const std::filesystem::path& out,
                               std::initializer_list<std::filesystem::path> input_files,
                               std::initializer_list<std::filesystem::path> input_folders) {
  std::error_code ec;
  for (const auto& in : input_files)
    if (std::filesystem::equivalent(out, in, ec))
      return Error(Errc::invalid_argument, out.string() +
                                               ": the output is an input of this command (" +
                                               in.string() + "); not overwritten");
  const auto parent = std::filesystem::absolute(out, ec).parent_path();
  for (const auto& folder : input_folders)
    if (std::filesystem::equivalent(parent, folder, ec))
      return Error(Errc::invalid_argument, out.string() + ": the output lies in " +
                                               folder.string() +
                                               ", a folder this command reads; not written there");
  return {};
}

}  // namespace mmaemu
