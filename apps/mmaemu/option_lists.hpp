// Comma-separated option values (--shapes, --pairs, --out-dtypes, --modules, ...), parsed the same
// way by every subcommand.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "mmaemu/format.hpp"

namespace mmaemu::cli {

// The non-empty parts of `text` between separators.
inline std::vector<std::string> split_list(const std::string& text, char separator = ',') {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

// An FP8 operand pair written like "e4m3xe5m2": (mat1's format, mat2's format).
inline std::optional<std::pair<Format, Format>> fp8_operand_pair(const std::string& text) {
  const auto pos = text.find('x');
  if (pos == std::string::npos) return std::nullopt;
  const auto a = format_from_name("f8_" + text.substr(0, pos));
  const auto b = format_from_name("f8_" + text.substr(pos + 1));
  if (!a || !b) return std::nullopt;
  return std::pair{*a, *b};
}

// A list of byte counts ("0,1048576,33554432"), for --workspaces; nullopt when a part is not one.
inline std::optional<std::vector<int64_t>> byte_counts(const std::string& text) {
  std::vector<int64_t> out;
  for (const auto& part : split_list(text)) {
    int64_t x = -1;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), x);
    if (ec != std::errc() || ptr != part.data() + part.size() || x < 0) return std::nullopt;
    out.push_back(x);
  }
  return out;
}

// A GEMM shape written like "1024x512x4096" (torch's M x N x K), each dimension positive.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
};
inline std::optional<GemmShape> gemm_shape(const std::string& text) {
  const auto parts = split_list(text, 'x');
  if (parts.size() != 3 || std::count(text.begin(), text.end(), 'x') != 2) return std::nullopt;
  int64_t v[3];
  for (int i = 0; i < 3; ++i) {
    const char* end = parts[i].data() + parts[i].size();
    auto [ptr, ec] = std::from_chars(parts[i].data(), end, v[i]);
    if (ec != std::errc() || ptr != end || v[i] <= 0) return std::nullopt;
  }
  return GemmShape{v[0], v[1], v[2]};
}

}  // namespace mmaemu::cli
