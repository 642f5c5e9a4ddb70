// One torch._scaled_mm call, the plan that says how a library computed it, and the oracle that
// computes it. A is M x K row-major; B is given as N x K row-major (mat2 transposed), as in
// torch._scaled_mm(a, b.t(), ...).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mmaemu/algorithm.hpp"
#include "mmaemu/error.hpp"
#include "mmaemu/format.hpp"
#include "mmaemu/preset.hpp"

namespace mmaemu {

// f32 scale bits: one value (tensorwise) or one per row of A / column of the output (rowwise).
struct Scales {
  std::vector<uint32_t> f32_bits;
  bool per_row = false;  // rowwise (torch: scale_a M x 1, scale_b 1 x N), even when M or N is 1
  bool rowwise() const { return per_row; }
  static Scales tensorwise(uint32_t bits) { return {{bits}, false}; }
};

struct Bias {
  Format format;                    // bf16 or f16
  std::span<const uint8_t> values;  // N elements
};

struct ScaledMmCall {
  int64_t m = 0, n = 0, k = 0;
  Format a_dtype = Format::f8_e4m3, b_dtype = Format::f8_e4m3;
  std::span<const uint8_t> a;  // m x k
  std::span<const uint8_t> b;  // n x k
  Scales scale_a = Scales::tensorwise(0x3F800000), scale_b = Scales::tensorwise(0x3F800000);
  std::optional<Bias> bias;
  Format out_dtype = Format::bf16;
  bool use_fast_accum = false;
  int64_t n_full = 0;  // the N the call ran at when only the first n columns are wanted; 0 = n

  int64_t library_n() const { return n_full > 0 ? n_full : n; }
};

// A call that owns its operands, scales and bias: the one owning call type (recording, sweeping,
// conform, bench and the tests draw into it); view() is the ScaledMmCall the emulator takes, valid
// while this object lives and is not resized.
struct OwnedScaledMmCall {
  int64_t m = 0, n = 0, k = 0;
  Format a_dtype = Format::f8_e4m3, b_dtype = Format::f8_e4m3, out_dtype = Format::bf16;
  bool use_fast_accum = false;
  std::vector<uint8_t> a, b;               // m x k, n x k codes
  std::vector<uint32_t> scale_a, scale_b;  // f32 bits: 1 value, or m / n values (rowwise)
  bool rowwise = false;
  std::optional<Format> bias_dtype;
  std::vector<uint8_t> bias;  // n values of bias_dtype

  ScaledMmCall view() const;
};

// Checks dimensions, dtypes and buffer sizes; the message names the field at fault.
Result<void> validate(const ScaledMmCall& call);

struct EnvelopeVerdict {
  bool inside = true;
  std::string reason;  // why the call is outside what the profile validated
};

struct Plan {
  std::string profile;
  const Preset* preset = nullptr;
  Algorithm algorithm;
  int split_k = 1;
  std::string split_k_source;  // where the split count came from
  // The GPU whose cuBLASLt heuristic the split count follows, e.g. "132 SMs (H200, H100 SXM)".
  std::string heuristic_device;
  EnvelopeVerdict envelope;
};

// The oracle: exact integer arithmetic, one function per stage (step chain, promotion, split-K
// reduction, epilogue). Returns the m x n output in out_dtype, little-endian. `threads` > 1
// spreads rows over that many threads; the result does not depend on it.
Result<std::vector<uint8_t>> emulate_oracle(const Plan& plan, const ScaledMmCall& call,
                                            int threads = 1);

// The FP32 accumulator of one output element before the epilogue (exposed for tests).
uint32_t oracle_dot_f32(const Plan& plan, const ScaledMmCall& call, int64_t row, int64_t col);
// The epilogue of one element: scales, bias, conversion to out_dtype.
uint32_t oracle_epilogue(const Plan& plan, const ScaledMmCall& call, int64_t row, int64_t col,
                         uint32_t accumulator_f32);

}  // namespace mmaemu
