// The file-based readers take a path: each input is written to one scratch file per process.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

inline std::filesystem::path fuzz_scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("mmaemu-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline std::filesystem::path write_fuzz_file(const char* name, const uint8_t* data, size_t size) {
  const auto path = fuzz_scratch_dir() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}
