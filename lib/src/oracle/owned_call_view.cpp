// An owning call as the emulator takes it: a view of its operands, scales and bias.
#include "mmaemu/scaled_mm.hpp"

namespace mmaemu {

ScaledMmCall OwnedScaledMmCall::view() const {
  ScaledMmCall call;
  call.m = m, call.n = n, call.k = k;
  call.a_dtype = a_dtype, call.b_dtype = b_dtype, call.out_dtype = out_dtype;
  call.a = a, call.b = b;
  call.scale_a = {scale_a, rowwise};
  call.scale_b = {scale_b, rowwise};
  if (bias_dtype) call.bias = Bias{*bias_dtype, bias};
  call.use_fast_accum = use_fast_accum;
  return call;
}

}  // namespace mmaemu
