// The epilogue: scales, bias, and the conversion to the output dtype, each an FP32 operation
// rounded to nearest-even (by default two roundings for scale then bias, not a fused multiply-add).
#include "mmaemu/exact.hpp"
#include "mmaemu/scaled_mm.hpp"

namespace mmaemu {

uint32_t oracle_epilogue(const Plan& plan, const ScaledMmCall& call, int64_t row, int64_t col,
                         uint32_t accumulator) {
  const Algorithm& algorithm = plan.algorithm;
  // The scaled value before its last multiply, and the factor of that multiply.
  uint32_t partial, factor;
  if (!call.scale_a.rowwise()) {
    const uint32_t sa = call.scale_a.f32_bits[0], sb = call.scale_b.f32_bits[0];
    if (algorithm.fold_tensorwise_scales) {  // alpha = fl32(sa * sb), then one multiply
      partial = accumulator;
      factor = f32_multiply_rne(sa, sb);
    } else {
      partial = f32_multiply_rne(accumulator, sa);
      factor = sb;
    }
  } else {
    const uint32_t sa = call.scale_a.f32_bits[row], sb = call.scale_b.f32_bits[col];
    const bool column_first = algorithm.rowwise_order == RowwiseScaleOrder::column_first;
    partial = f32_multiply_rne(accumulator, column_first ? sb : sa);
    factor = column_first ? sa : sb;
  }
  uint32_t y;
  if (!call.bias) {
    y = f32_multiply_rne(partial, factor);
  } else {
    const uint32_t bias = convert(
        call.bias->format, load_bits(call.bias->format, call.bias->values, col), Format::f32);
    if (algorithm.fused_bias) {
      const ExactValue product =
          exact_multiply(decode(Format::f32, partial), decode(Format::f32, factor));
      y = encode(Format::f32, exact_add(product, decode(Format::f32, bias)));
    } else {
      y = f32_add_rne(f32_multiply_rne(partial, factor), bias);
    }
  }
  // FP8 outputs saturate (cvt.rn.satfinite); the others overflow to infinity.
  const bool fp8 = call.out_dtype == Format::f8_e4m3 || call.out_dtype == Format::f8_e5m2;
  return convert(Format::f32, y, call.out_dtype,
                 {Rounding::nearest_even, fp8 ? Overflow::saturate : Overflow::ieee});
}

}  // namespace mmaemu
