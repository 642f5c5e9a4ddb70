// A recorded call (owning its operands) as the emulator takes it (a view).
#include "mmaemu/tools/record.hpp"

namespace mmaemu {

ScaledMmCall scaled_mm_view(const RecordCall& c) {
  ScaledMmCall call;
  call.m = c.m, call.n = c.n, call.k = c.k;
  call.a_dtype = c.a_dtype, call.b_dtype = c.b_dtype, call.out_dtype = c.out_dtype;
  call.a = c.a, call.b = c.b;
  call.scale_a = {c.scale_a, c.rowwise};
  call.scale_b = {c.scale_b, c.rowwise};
  if (c.bias_dtype) call.bias = Bias{*c.bias_dtype, c.bias};
  call.use_fast_accum = c.use_fast_accum;
  return call;
}

}  // namespace mmaemu
