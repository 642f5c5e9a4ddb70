// The fast CPU path. Same model as the oracle, computed with 64-bit integers per step and the
// CPU's IEEE binary32 arithmetic for promotion, split-K reduction and the epilogue (this file is
// compiled with -ffp-contract=off, and x86-64 keeps subnormals unless told otherwise). Outputs
// whose row of A or B holds a NaN or an infinity are computed by the oracle.
#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>

#include "cpu/fp8_codes.hpp"
#include "mmaemu/emulate.hpp"
#include "mmaemu/emulation_modules.hpp"
#include "mmaemu/exact.hpp"
#include "oracle/output_rows.hpp"

namespace mmaemu {
namespace {

constexpr int kNoTerm = -500;

// The step loops vectorise with AVX2's and AVX-512's variable 64-bit shifts: on x86-64 the chain is
// compiled for those too and the loader picks the widest the CPU has (integer arithmetic, so every
// clone gives the same bits; fast_path_test checks the one this machine runs against the oracle).
#if defined(__x86_64__) && defined(__GNUC__)
#define MMAEMU_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define MMAEMU_VECTOR_CLONES
#endif

// One FP8 operand, decoded: value = sign * significand * 2^(exponent - fraction_bits).
struct Operand {
  int16_t significand;  // signed; 0 for zeros
  int16_t exponent;     // alignment exponent (min_exponent for subnormals)
};

struct DecodedRows {
  std::vector<Operand> values;   // rows x k
  std::vector<uint8_t> special;  // per row: holds a NaN or an infinity
};

DecodedRows decode_rows(Format format, std::span<const uint8_t> bytes, int64_t rows, int64_t k) {
  const auto table = decode_fp8_codes(format);
  DecodedRows out{std::vector<Operand>(static_cast<size_t>(rows * k)),
                  std::vector<uint8_t>(rows, 0)};
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < k; ++i) {
      const Fp8Code& c = table[bytes[r * k + i]];
      out.values[r * k + i] = {c.significand, c.exponent};
      out.special[r] |= c.special;
    }
  return out;
}

float from_bits(uint32_t u) {
  return std::bit_cast<float>(u);
}
uint32_t to_bits(float f) {
  return std::bit_cast<uint32_t>(f);
}

struct StepModel {
  int terms;
  int alignment_bits;
  int product_fraction_bits;  // fa + fb
  int result_bits;
  int exponent_floor;
  bool late_c;  // c enters after the block: fl32_rne(block of the products + c)
};

// One step: the products of a[0..n) and b[0..n), plus c (f32 bits, finite). Branch-free: every
// term is shifted left by the widest window, then right by what its exponent asks (clamped).
// Inlined into chain, so that it is compiled for each of chain's targets.
[[gnu::always_inline]] inline uint32_t fast_step(const StepModel& m, const Operand* a,
                                                 const Operand* b, int n, uint32_t c) {
  int max_exponent = kNoTerm;
  for (int i = 0; i < n; ++i) max_exponent = std::max(max_exponent, a[i].exponent + b[i].exponent);
  const uint32_t c_field = c & 0x7FFFFFFF;
  int64_t c_significand = 0;
  int c_exponent = 0;
  if (c_field != 0) {
    const int biased = static_cast<int>(c_field >> 23);
    c_significand = biased ? (c_field & 0x7FFFFF) | 0x800000 : c_field;
    c_exponent = biased ? biased - 127 : -126;
    max_exponent = std::max(max_exponent, c_exponent);
  }
  if (max_exponent <= kNoTerm) return 0;
  max_exponent = std::max(max_exponent, m.exponent_floor);
  const int unit = max_exponent - m.alignment_bits;  // the weight of one unit of the sum
  // A product term is |p| * 2^(e_a + e_b - product_fraction_bits - unit), and that exponent is at
  // most alignment_bits - product_fraction_bits: shift left by that, then right by the rest.
  const int left = m.alignment_bits - m.product_fraction_bits;
  const int right_base = left + m.product_fraction_bits + unit;  // right = right_base - (e_a + e_b)
  int64_t sum = 0;
  for (int i = 0; i < n; ++i) {
    const int32_t p = int32_t{a[i].significand} * b[i].significand;
    const int32_t sign = p >> 31;  // 0 or -1
    const uint64_t magnitude = static_cast<uint32_t>((p ^ sign) - sign);
    const int right = std::min(right_base - (a[i].exponent + b[i].exponent), 63);
    const int64_t t = static_cast<int64_t>((magnitude << left) >> right);
    sum += (t ^ sign) - sign;
  }
  if (c_significand != 0) {
    const int shift = c_exponent - 23 - unit;
    const uint64_t t = shift >= 0
                           ? static_cast<uint64_t>(c_significand) << shift
                           : (shift > -64 ? static_cast<uint64_t>(c_significand) >> -shift : 0);
    sum += (c >> 31) ? -static_cast<int64_t>(t) : static_cast<int64_t>(t);
  }
  if (sum == 0) return 0;
  const bool negative = sum < 0;
  uint64_t magnitude = static_cast<uint64_t>(negative ? -sum : sum);
  const int top = 63 - std::countl_zero(magnitude);
  const int leading = unit + top;
  if (leading < -126 || leading > 127) {  // subnormal or overflowing results: the exact encoder
    const uint32_t bits = encode(Format::f32, ExactValue::finite(negative, magnitude, unit),
                                 {Rounding::toward_zero, Overflow::to_infinity, m.result_bits});
    return (bits & 0x7FFFFFFF) == 0 ? 0
                                    : bits;  // a sum that rounds to zero gives +0, as in the oracle
  }
  magnitude =
      top > m.result_bits ? magnitude >> (top - m.result_bits) : magnitude << (m.result_bits - top);
  const uint32_t fraction = static_cast<uint32_t>(magnitude - (uint64_t{1} << m.result_bits))
                            << (23 - m.result_bits);
  return (negative ? 0x80000000u : 0u) | static_cast<uint32_t>(leading + 127) << 23 | fraction;
}

MMAEMU_VECTOR_CLONES uint32_t chain(const StepModel& m, const Operand* a, const Operand* b,
                                    int64_t begin, int64_t end, uint32_t c) {
  for (int64_t s = begin; s < end; s += m.terms) {
    const int n = static_cast<int>(std::min<int64_t>(m.terms, end - s));
    // Late entry: the block with c = 0 (finite, never -0), then one native round-to-nearest add,
    // which is IEEE's, as the oracle's exact add then encode is (an infinite c stays infinite).
    c = m.late_c ? to_bits(from_bits(fast_step(m, a + s, b + s, n, 0)) + from_bits(c))
                 : fast_step(m, a + s, b + s, n, c);
  }
  return c;
}

uint32_t output_bits(Format out, float y) {
  const uint32_t bits = to_bits(y);
  if (y != y) return describe(out).canonical_nan;
  switch (out) {
    case Format::f32:
      return bits;
    case Format::bf16:
      return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16;
    case Format::f16: {
      const _Float16 h = static_cast<_Float16>(y);
      uint16_t u;
      std::memcpy(&u, &h, 2);
      return u;
    }
    default:  // FP8: saturating, through the exact codec
      return convert(Format::f32, bits, out, {Rounding::nearest_even, Overflow::saturate, -1});
  }
}

}  // namespace

namespace {
constexpr std::pair<Backend, std::string_view> kHostBackendNames[] = {
    {Backend::oracle, "oracle"}, {Backend::cpu, "cpu"}, {Backend::cuda, "cuda"}};

}  // namespace

// The CUDA modules' backend names come from their descriptors (emulation_modules.hpp).
std::string_view to_string(Backend backend) {
  for (const auto& [b, name] : kHostBackendNames)
    if (b == backend) return name;
  if (const EmulationModule* m = emulation_module_for(backend)) return m->backend_name;
  return "cpu";
}

std::optional<Backend> backend_named(std::string_view name) {
  for (const auto& [b, n] : kHostBackendNames)
    if (n == name) return b;
  for (const EmulationModule& m : emulation_modules())
    if (m.backend_name == name) return m.backend;
  return std::nullopt;
}

bool is_cuda(Backend backend) {
  return backend == Backend::cuda || emulation_module_for(backend) != nullptr;
}

bool fast_path_supports(const Plan& plan, std::string* why) {
  const Preset& p = *plan.preset;
  const StepResult& r = p.f32_result;
  std::string reason;
  if (p.product_alignment != ProductAlignment::operand_sum)
    reason = "normalised product alignment";
  else if (p.shifted_out != ShiftedOutBits::truncate_toward_zero)
    reason = "a rounded alignment";
  else if (p.flush_subnormal_inputs)
    reason = "flushed subnormal inputs";
  else if (r.format != Format::f32 || r.rounding != Rounding::toward_zero || r.fraction_bits > 23)
    reason = "a result other than truncated f32";
  else if (p.alignment_fraction_bits > 30 || p.terms_per_step > 64)
    reason = "a window wider than 64-bit sums hold";
  if (why) *why = reason;
  return reason.empty();
}

Result<std::vector<uint8_t>> emulate(const Plan& plan, const ScaledMmCall& call, Backend backend,
                                     int threads) {
  if (is_cuda(backend)) return emulate_cuda(plan, call, backend);
  if (backend == Backend::oracle || !fast_path_supports(plan))
    return emulate_oracle(plan, call, threads);
  if (auto ok = validate_planned_call(plan, call); !ok) return ok.error();
  const DecodedRows a = decode_rows(call.a_dtype, call.a, call.m, call.k);
  const DecodedRows b = decode_rows(call.b_dtype, call.b, call.n, call.k);
  const Preset& p = *plan.preset;
  const StepModel model{p.terms_per_step,
                        p.alignment_fraction_bits,
                        describe(call.a_dtype).fraction_bits + describe(call.b_dtype).fraction_bits,
                        p.f32_result.fraction_bits,
                        p.f32_result.exponent_floor.value_or(INT_MIN / 4),
                        p.accumulator_entry == AccumulatorEntry::late_fp32};
  const Algorithm& alg = plan.algorithm;
  std::vector<float> bias(call.bias ? call.n : 0);
  for (int64_t j = 0; j < static_cast<int64_t>(bias.size()); ++j)
    bias[j] = from_bits(convert(call.bias->format,
                                load_bits(call.bias->format, call.bias->values, j), Format::f32));
  const bool rowwise = call.scale_a.rowwise();
  const float alpha =
      rowwise ? 0.0f : from_bits(call.scale_a.f32_bits[0]) * from_bits(call.scale_b.f32_bits[0]);

  auto element = [&](int64_t i, int64_t j) -> uint32_t {
    if (a.special[i] || b.special[j])
      return oracle_epilogue(plan, call, i, j, oracle_dot_f32(plan, call, i, j));
    const Operand* ra = &a.values[i * call.k];
    const Operand* rb = &b.values[j * call.k];
    float total = 0.0f;
    for (int s = 0; s < plan.split_k; ++s) {
      const KRange r = split_k_slice(call.k, plan.split_k, alg.split_k_grain, s);
      float partial;
      if (alg.accumulation == Accumulation::single_chain) {
        partial = from_bits(chain(model, ra, rb, r.begin, r.end, 0));
      } else {
        partial = 0.0f;
        for (int64_t start = r.begin; start < r.end; start += alg.promotion_interval)
          partial += from_bits(chain(model, ra, rb, start,
                                     std::min<int64_t>(start + alg.promotion_interval, r.end), 0));
      }
      total = s == 0 ? partial : total + partial;
    }
    const uint32_t acc = to_bits(total);
    if (alg.fused_bias || !alg.fold_tensorwise_scales)
      return oracle_epilogue(plan, call, i, j, acc);
    float y;
    if (!rowwise) {
      y = total * alpha;
    } else {
      const float sa = from_bits(call.scale_a.f32_bits[i]),
                  sb = from_bits(call.scale_b.f32_bits[j]);
      y = alg.rowwise_order == RowwiseScaleOrder::column_first ? (total * sb) * sa
                                                               : (total * sa) * sb;
    }
    if (call.bias) y = y + bias[j];
    return output_bits(call.out_dtype, y);
  };
  return fill_output(call, threads, element);
}

}  // namespace mmaemu
