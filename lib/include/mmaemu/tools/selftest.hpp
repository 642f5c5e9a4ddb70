// The checks behind `mmaemu selftest`: the format codecs over every 8- and 16-bit code, every
// preset against built-in hardware rows, and the bundled truth subset through the oracle.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "mmaemu/error.hpp"

namespace mmaemu {

struct SelftestCheck {
  std::string name;
  bool passed = false;
  std::string detail;  // counts, or the first failure
};

// Every 8-bit code of f8_e4m3/f8_e5m2 and every 16-bit code of f16/bf16 decodes and re-encodes
// to itself (NaNs to the canonical NaN), under both roundings.
SelftestCheck check_format_round_trips();
// One check per preset: its built-in hardware rows, bit for bit.
std::vector<SelftestCheck> check_presets_on_builtin_vectors();
// One check per recording of a truth set, with the named profile, through the fast CPU path
// (which the oracle backs wherever it does not apply).
Result<std::vector<SelftestCheck>> check_truth_set(const std::filesystem::path& directory,
                                                   const std::string& profile);

}  // namespace mmaemu
