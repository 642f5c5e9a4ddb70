// Comma-separated option values (--shapes, --pairs, --out-dtypes, --modules, ...), parsed the same
// way by every subcommand.
#pragma once

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

}  // namespace mmaemu::cli
