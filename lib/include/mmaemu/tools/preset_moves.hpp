// One-step moves of each preset parameter. A parameter is pinned by some data when every move of
// it changes at least one recorded (or probed) bit: the pinning test and `mmaemu probe` both use
// this list, so that they judge the same moves.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "mmaemu/preset.hpp"

namespace mmaemu {

struct PresetMove {
  std::string parameter;               // as named in Preset::unpinned
  std::string label;                   // what the move does
  std::function<bool(Preset&)> apply;  // false when the move is impossible for this preset
};

const std::vector<PresetMove>& preset_moves();

// The parameter's value in `preset`, as text ("13", "truncate_toward_zero", "-133 / none").
std::string parameter_value(const Preset& preset, const std::string& parameter);

}  // namespace mmaemu
