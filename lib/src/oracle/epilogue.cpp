// The epilogue: scales, bias, and the conversion to the output dtype, each an FP32 operation
// rounded to nearest-even (two roundings for scale then bias, not a fused multiply-add).
#include "mmaemu/exact.hpp"
#include "mmaemu/scaled_mm.hpp"

namespace mmaemu {

uint32_t oracle_epilogue(const Plan& plan, const ScaledMmCall& call, int64_t row, int64_t col,
                         uint32_t accumulator) {
  uint32_t y;
  if (!call.scale_a.rowwise()) {
    // Tensorwise: the library folds the two scales into one alpha first.
    const uint32_t alpha = f32_multiply_rne(call.scale_a.f32_bits[0], call.scale_b.f32_bits[0]);
    y = f32_multiply_rne(accumulator, alpha);
  } else {
    const uint32_t sa = call.scale_a.f32_bits[row], sb = call.scale_b.f32_bits[col];
    y = plan.algorithm.rowwise_order == RowwiseScaleOrder::column_first
            ? f32_multiply_rne(f32_multiply_rne(accumulator, sb), sa)
            : f32_multiply_rne(f32_multiply_rne(accumulator, sa), sb);
  }
  if (call.bias) {
    const uint32_t bias = convert(call.bias->format, load_bits(call.bias->format, call.bias->values, col),
                                  Format::f32);
    y = f32_add_rne(y, bias);
  }
  // FP8 outputs saturate (cvt.rn.satfinite); the others overflow to infinity.
  const bool fp8 = call.out_dtype == Format::f8_e4m3 || call.out_dtype == Format::f8_e5m2;
  return convert(Format::f32, y, call.out_dtype,
                 {Rounding::nearest_even, fp8 ? Overflow::saturate : Overflow::ieee});
}

}  // namespace mmaemu
