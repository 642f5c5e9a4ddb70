// A few hardware rows of every tc-blocks-dev recording, built into the library so that selftest
// checks each preset without a truth set on disk. Each row is k codes of a, k codes of b, the
// f32 bits of c and the result bits, in that order.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "mmaemu/format.hpp"

namespace mmaemu {

struct BuiltinVectorSet {
  std::string_view id, gpu, instruction;
  Format in_format, out_format;
  int k, rows;
  std::span<const uint32_t> data;
};

const std::vector<BuiltinVectorSet>& builtin_vector_sets();

}  // namespace mmaemu
