// The built-in presets, one per architecture and input-format family of the published
// tensor-core data (tc-blocks-dev). Values: Khattak & Mikaitis, "Accurate Models of NVIDIA Tensor
// Cores" (arXiv:2512.07004) and their BSD-2-Clause MATLAB models, MMA-Sim (arXiv:2511.10909), and
// this project's fits to the recordings; each one is pinned by a test where the data allow.
#include <algorithm>

#include "mmaemu/preset.hpp"

namespace mmaemu {
namespace {

constexpr Format kFp16[] = {Format::f16};
constexpr Format kBf16[] = {Format::bf16};
constexpr Format kTf32[] = {Format::tf32};
constexpr Format kFp8[] = {Format::f8_e4m3, Format::f8_e5m2};

StepResult f32_rz(int fraction_bits, std::optional<int> floor) {
  return {Format::f32, fraction_bits, Rounding::toward_zero, floor};
}
StepResult f16_rne(std::optional<int> floor) {
  return {Format::f16, 10, Rounding::nearest_even, floor};
}

template <size_t N>
Preset make(std::string name, std::string arch, std::string instruction, const Format (&inputs)[N],
            int terms, int alignment_bits, StepResult f32, std::optional<StepResult> f16,
            std::vector<UnpinnedParameter> unpinned,
            AccumulatorEntry entry = AccumulatorEntry::in_block) {
  Preset p;
  p.name = std::move(name);
  p.architecture = std::move(arch);
  p.instruction = std::move(instruction);
  p.input_formats.assign(inputs, inputs + N);
  p.terms_per_step = terms;
  p.product_alignment = ProductAlignment::operand_sum;
  p.alignment_fraction_bits = alignment_bits;
  p.shifted_out = ShiftedOutBits::truncate_toward_zero;
  p.accumulator_entry = entry;
  p.flush_subnormal_inputs = false;
  p.f32_result = f32;
  p.f16_result = f16;
  p.source = "Khattak & Mikaitis 2025 (MATLAB-tensor-core, BSD-2-Clause); MMA-Sim; tc-blocks-dev";
  p.unpinned = std::move(unpinned);
  return p;
}

const UnpinnedParameter kFloorsUnpinned{
    "exponent_floor", "random N(0,1) data never reach it; value from the MATLAB models"};
const UnpinnedParameter kSubnormalsUnpinned{
    "flush_subnormal_inputs", "the recorded inputs hold no subnormals of their format"};
// FP8 products of N(0,1) inputs span fewer bits than a 25-bit window: nothing is shifted out.
const std::string kWideWindow =
    "the recorded FP8 products never reach past a 25-bit window, so the window's width, how it "
    "drops bits and how it aligns products leave no trace (MMA-Sim's value)";
const UnpinnedParameter kTf32Terms{"terms_per_step",
                                   "the recordings have k = 4, so 8 and 4 terms look alike"};

std::vector<Preset> build() {
  std::vector<Preset> v;
  const UnpinnedParameter no_f16{"f16_result", "no f16-output recording"};
  v.push_back(make("volta_f16_wmma_k16", "volta", "wmma.m16n16k16 (HMMA, 4-term)", kFp16, 4, 23,
                   f32_rz(23, std::nullopt), f16_rne(-19), {kFloorsUnpinned, kSubnormalsUnpinned}));
  v.push_back(make("ampere_f16_mma_k16", "ampere", "mma m16n8k16 (2 x 8-term)", kFp16, 8, 24,
                   f32_rz(23, -132), f16_rne(-20), {kFloorsUnpinned}));
  v.push_back(make("ampere_bf16_mma_k16", "ampere", "mma m16n8k16 (2 x 8-term)", kBf16, 8, 24,
                   f32_rz(23, -132), f16_rne(-20), {kFloorsUnpinned, kSubnormalsUnpinned, no_f16}));
  v.push_back(make("ampere_tf32_mma_k8", "ampere", "mma m16n8k8 (2 x 4-term)", kTf32, 4, 24,
                   f32_rz(23, -132), std::nullopt, {kFloorsUnpinned, kSubnormalsUnpinned}));
  v.push_back(make("ada_f16_mma_k16", "ada", "mma m16n8k16 (2 x 8-term)", kFp16, 8, 24,
                   f32_rz(23, -132), f16_rne(-20), {kFloorsUnpinned}));
  v.push_back(make("ada_bf16_mma_k16", "ada", "mma m16n8k16 (2 x 8-term)", kBf16, 8, 24,
                   f32_rz(23, -132), f16_rne(-20), {kFloorsUnpinned, kSubnormalsUnpinned, no_f16}));
  v.push_back(make("ada_tf32_mma_k8", "ada", "mma m16n8k8 (2 x 4-term)", kTf32, 4, 24,
                   f32_rz(23, -132), std::nullopt, {kFloorsUnpinned, kSubnormalsUnpinned}));
  v.push_back(make("ada_fp8_mma_k32", "ada", "mma.sync m16n8k32 e4m3/e5m2 (2 x 16-term)", kFp8, 16,
                   13, f32_rz(13, -132), f16_rne(-20), {kFloorsUnpinned}));
  v.push_back(make("hopper_f16_mma_k16", "hopper", "wmma/mma m16n8k16, wgmma k16 (16-term)", kFp16,
                   16, 25, f32_rz(23, -133), f16_rne(-21), {kFloorsUnpinned}));
  v.push_back(make("hopper_bf16_mma_k16", "hopper", "wmma/mma m16n8k16, wgmma k16 (16-term)", kBf16,
                   16, 25, f32_rz(23, -133), f16_rne(-21),
                   {kFloorsUnpinned, kSubnormalsUnpinned, no_f16}));
  v.push_back(make("hopper_tf32_mma_k8", "hopper", "wmma m16n16k8, wgmma k8 (8-term)", kTf32, 8, 25,
                   f32_rz(23, -133), std::nullopt,
                   {kFloorsUnpinned, kSubnormalsUnpinned, kTf32Terms}));
  v.push_back(make("hopper_fp8_wgmma_k32", "hopper", "wgmma.mma_async m64nNk32 e4m3/e5m2 (QGMMA)",
                   kFp8, 32, 13, f32_rz(13, -133), std::nullopt, {kFloorsUnpinned, no_f16}));
  v.push_back(make("blackwell_f16_mma_k16", "blackwell", "wmma/mma m16n8k16 (16-term)", kFp16, 16,
                   25, f32_rz(23, -133), f16_rne(-21), {kFloorsUnpinned}));
  v.push_back(make("blackwell_bf16_mma_k16", "blackwell", "wmma/mma m16n8k16 (16-term)", kBf16, 16,
                   25, f32_rz(23, -133), f16_rne(-21),
                   {kFloorsUnpinned, kSubnormalsUnpinned, no_f16}));
  v.push_back(make("blackwell_tf32_mma_k8", "blackwell", "wmma m16n16k8 (8-term)", kTf32, 8, 25,
                   f32_rz(23, -133), std::nullopt,
                   {kFloorsUnpinned, kSubnormalsUnpinned, kTf32Terms}));
  v.push_back(make("blackwell_fp8_mma_k32", "blackwell",
                   "mma.sync m16n8k32 e4m3/e5m2 (32-term block, c added late in f32)", kFp8, 32, 25,
                   f32_rz(23, -133), std::nullopt,
                   {kFloorsUnpinned,
                    no_f16,
                    {"alignment_fraction_bits", kWideWindow},
                    {"shifted_out", kWideWindow},
                    {"product_alignment", kWideWindow}},
                   AccumulatorEntry::late_fp32));
  return v;
}

}  // namespace

bool Preset::accepts(Format format) const {
  return std::find(input_formats.begin(), input_formats.end(), format) != input_formats.end();
}

const StepResult* Preset::result_for(Format accumulator) const {
  if (accumulator == Format::f32) return &f32_result;
  if (accumulator == Format::f16 && f16_result) return &*f16_result;
  return nullptr;
}

const std::vector<Preset>& builtin_presets() {
  static const std::vector<Preset> presets = build();
  return presets;
}

const Preset* find_preset(std::string_view name) {
  for (const auto& p : builtin_presets())
    if (p.name == name) return &p;
  return nullptr;
}

const Preset* find_preset_for(std::string_view architecture, Format input) {
  for (const auto& p : builtin_presets())
    if (p.architecture == architecture && p.accepts(input)) return &p;
  return nullptr;
}

std::string_view to_string(ProductAlignment v) {
  return v == ProductAlignment::operand_sum ? "operand_sum" : "normalised";
}
std::string_view to_string(ShiftedOutBits v) {
  switch (v) {
    case ShiftedOutBits::truncate_toward_zero:
      return "truncate_toward_zero";
    case ShiftedOutBits::floor:
      return "floor";
    case ShiftedOutBits::nearest_even:
      return "nearest_even";
  }
  return "?";
}
std::string_view to_string(AccumulatorEntry v) {
  return v == AccumulatorEntry::in_block ? "in_block" : "late_fp32";
}
std::string_view to_string(Rounding v) {
  return v == Rounding::nearest_even ? "nearest_even" : "toward_zero";
}

}  // namespace mmaemu
