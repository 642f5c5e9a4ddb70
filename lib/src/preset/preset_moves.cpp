#include "mmaemu/tools/preset_moves.hpp"

namespace mmaemu {
namespace {

bool move_result(Preset& p, const std::function<bool(StepResult&)>& f) {
  bool any = f(p.f32_result);
  if (p.f16_result) any = f(*p.f16_result) || any;
  return any;
}

std::vector<PresetMove> build() {
  return {
      {"terms_per_step", "half the terms per step",
       [](Preset& p) { return p.terms_per_step > 1 && (p.terms_per_step /= 2, true); }},
      {"alignment_fraction_bits", "one alignment bit more",
       [](Preset& p) { return ++p.alignment_fraction_bits, true; }},
      {"alignment_fraction_bits", "one alignment bit fewer",
       [](Preset& p) { return --p.alignment_fraction_bits, true; }},
      {"shifted_out", "floor instead of truncation",
       [](Preset& p) { return p.shifted_out = ShiftedOutBits::floor, true; }},
      {"shifted_out", "nearest-even alignment",
       [](Preset& p) { return p.shifted_out = ShiftedOutBits::nearest_even, true; }},
      {"product_alignment", "normalised products",
       [](Preset& p) { return p.product_alignment = ProductAlignment::normalised, true; }},
      {"accumulator_entry", "c entering the other way",
       [](Preset& p) {
         p.accumulator_entry = p.accumulator_entry == AccumulatorEntry::in_block
                                   ? AccumulatorEntry::late_fp32
                                   : AccumulatorEntry::in_block;
         return true;
       }},
      {"flush_subnormal_inputs", "subnormal inputs flushed",
       [](Preset& p) { return p.flush_subnormal_inputs = !p.flush_subnormal_inputs, true; }},
      {"fraction_bits", "one result bit fewer",
       [](Preset& p) {
         return move_result(p, [](StepResult& r) { return --r.fraction_bits, true; });
       }},
      {"fraction_bits", "one result bit more",
       [](Preset& p) {
         return move_result(p, [](StepResult& r) {
           return r.fraction_bits < describe(r.format).fraction_bits && (++r.fraction_bits, true);
         });
       }},
      {"rounding", "the other result rounding",
       [](Preset& p) {
         return move_result(p, [](StepResult& r) {
           r.rounding =
               r.rounding == Rounding::toward_zero ? Rounding::nearest_even : Rounding::toward_zero;
           return true;
         });
       }},
      {"exponent_floor", "exponent floor one higher",
       [](Preset& p) {
         return move_result(
             p, [](StepResult& r) { return r.exponent_floor && (++*r.exponent_floor, true); });
       }},
      {"exponent_floor", "exponent floor one lower",
       [](Preset& p) {
         return move_result(
             p, [](StepResult& r) { return r.exponent_floor && (--*r.exponent_floor, true); });
       }},
  };
}

}  // namespace

const std::vector<PresetMove>& preset_moves() {
  static const std::vector<PresetMove> moves = build();
  return moves;
}

std::string parameter_value(const Preset& p, const std::string& parameter) {
  if (parameter == "terms_per_step") return std::to_string(p.terms_per_step);
  if (parameter == "alignment_fraction_bits") return std::to_string(p.alignment_fraction_bits);
  if (parameter == "shifted_out") return std::string(to_string(p.shifted_out));
  if (parameter == "product_alignment") return std::string(to_string(p.product_alignment));
  if (parameter == "accumulator_entry") return std::string(to_string(p.accumulator_entry));
  if (parameter == "flush_subnormal_inputs") return p.flush_subnormal_inputs ? "true" : "false";
  if (parameter == "fraction_bits") return std::to_string(p.f32_result.fraction_bits);
  if (parameter == "rounding") return std::string(to_string(p.f32_result.rounding));
  if (parameter == "exponent_floor")
    return p.f32_result.exponent_floor ? std::to_string(*p.f32_result.exponent_floor) : "none";
  return "?";
}

}  // namespace mmaemu
