// A preset is the numeric model of one tensor-core instruction step: a parameterised block
// fused multiply-add. Every parameter is data, so that a test can move one of them and watch a
// recording stop matching (tests/unit/preset_pinning_test.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mmaemu/format.hpp"

namespace mmaemu {

// The exponent each product is aligned by.
enum class ProductAlignment : uint8_t {
  operand_sum,  // e_a + e_b: the exact product's significand lies in [1, 4), never renormalised
  normalised,   // the product's own leading-bit exponent
};

// What happens to the bits of a term that fall below the alignment window.
enum class ShiftedOutBits : uint8_t {
  truncate_toward_zero,  // magnitude truncation, sign applied after
  floor,                 // two's-complement shift: negative terms round toward -infinity
  nearest_even,          // a rounded alignment (no NVIDIA model does this)
};

// Where the incoming accumulator c enters the step.
enum class AccumulatorEntry : uint8_t {
  in_block,   // c is one more term of the block, aligned with the products
  late_fp32,  // the products form a block with c = 0, then fl32_rne(block + c)
};

// How one step's result is formed for one accumulator format (f32 or f16).
struct StepResult {
  Format format;                      // the register format the result is written in
  int fraction_bits;                  // fraction bits kept (13 for Hopper/Ada FP8: e8m13 in an f32)
  Rounding rounding;                  // of the exact block sum to fraction_bits
  std::optional<int> exponent_floor;  // lower bound of the alignment exponent (empirical)
};

// A parameter that no recording pins (moving it changes no recorded bit), and why.
struct UnpinnedParameter {
  std::string parameter;  // a field name of Preset or StepResult, e.g. "exponent_floor"
  std::string reason;
};

struct Preset {
  std::string name;                   // says what hardware step it models: hopper_fp8_wgmma_k32
  std::string architecture;           // volta, ampere, ada, hopper, blackwell
  std::string instruction;            // the PTX instruction the step belongs to
  std::vector<Format> input_formats;  // each operand may be any of these
  int terms_per_step;                 // products fused in one block
  ProductAlignment product_alignment;
  int alignment_fraction_bits;  // bits kept below the block's largest exponent
  ShiftedOutBits shifted_out;
  AccumulatorEntry accumulator_entry;
  bool flush_subnormal_inputs;  // false on every NVIDIA model
  StepResult f32_result;
  std::optional<StepResult> f16_result;
  std::string source;  // where the parameter values come from
  std::vector<UnpinnedParameter> unpinned;

  bool accepts(Format format) const;
  const StepResult* result_for(Format accumulator) const;
};

const std::vector<Preset>& builtin_presets();
const Preset* find_preset(std::string_view name);
// The preset for an architecture and an input format, e.g. ("hopper", f8_e4m3).
const Preset* find_preset_for(std::string_view architecture, Format input);

std::string_view to_string(ProductAlignment v);
std::string_view to_string(ShiftedOutBits v);
std::string_view to_string(AccumulatorEntry v);
std::string_view to_string(Rounding v);

}  // namespace mmaemu
