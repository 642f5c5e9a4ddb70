// The fast CPU path. Same model as the oracle, computed with integers per step (kLanes output
// elements at once in 32-bit lanes where the model's sums fit them, lane_step.hpp; else one element
// in 64-bit sums) and the CPU's IEEE binary32 arithmetic for promotion, split-K reduction and the
// epilogue (this file is compiled with -ffp-contract=off, and x86-64 keeps subnormals unless told
// otherwise). Outputs whose row of A or B holds a NaN or an infinity take a chain that checks each
// step for them.
#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <optional>

#include "common/integer_step.h"
#include "common/output_convert.h"
#include "cpu/flagged_elements.hpp"
#include "cpu/fp8_codes.hpp"
#include "cpu/lane_step.hpp"
#include "mmaemu/emulate.hpp"
#include "mmaemu/exact.hpp"
#include "mmaemu/tools/cuda_backend.hpp"
#include "mmaemu/tools/emulation_modules.hpp"
#include "oracle/output_rows.hpp"

namespace mmaemu {
namespace {

// The step loops vectorise with AVX2's and AVX-512's variable shifts: on x86-64 the chains are
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

// Decoded operands as two arrays (significands, exponents): the step's loops then read each as
// contiguous lanes and vectorise without shuffles.
struct OperandSpan {
  const int16_t* significand;
  const int16_t* exponent;
  Operand operator[](int64_t i) const { return {significand[i], exponent[i]}; }
  OperandSpan operator+(int64_t i) const { return {significand + i, exponent + i}; }
};

// What an operand is beside its finite value (a NaN or an infinity decodes as a zero Operand).
enum SpecialKind : uint8_t { kFinite = 0, kNan = 1, kPositiveInfinity = 2, kNegativeInfinity = 4 };

struct DecodedRows {
  std::vector<int16_t> significand, exponent;  // rows x k each
  OperandSpan row(int64_t r, int64_t k) const {
    return {significand.data() + r * k, exponent.data() + r * k};
  }
  std::vector<uint8_t> special;  // per row: holds a NaN or an infinity
  std::vector<uint8_t> kinds;    // rows x k SpecialKind; filled for the special rows only
};

DecodedRows decode_rows(Format format, std::span<const uint8_t> bytes, int64_t rows, int64_t k) {
  const auto table = decode_fp8_codes(format);
  std::array<uint8_t, 256> kind{};
  for (uint32_t code = 0; code < 256; ++code)
    if (const ExactValue v = decode(format, code); !v.is_finite())
      kind[code] = v.is_nan() ? kNan : v.negative ? kNegativeInfinity : kPositiveInfinity;
  DecodedRows out{std::vector<int16_t>(static_cast<size_t>(rows * k)),
                  std::vector<int16_t>(static_cast<size_t>(rows * k)),
                  std::vector<uint8_t>(rows, 0),
                  {}};
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < k; ++i) {
      const Fp8Code& c = table[bytes[r * k + i]];
      out.significand[r * k + i] = c.significand;
      out.exponent[r * k + i] = c.exponent;
      out.special[r] |= c.special;
    }
  for (int64_t r = 0; r < rows; ++r) {
    if (!out.special[r]) continue;
    if (out.kinds.empty()) out.kinds.resize(static_cast<size_t>(rows * k), kFinite);
    for (int64_t i = 0; i < k; ++i) out.kinds[r * k + i] = kind[bytes[r * k + i]];
  }
  return out;
}

// B's decoded columns by panels of kLanes (lane_step.hpp's LanePanel): panel p holds columns
// kLanes p .. kLanes p + kLanes - 1, K-major; columns past n are zeros.
struct LanePanels {
  std::vector<int32_t> packed;  // pack_operand(significand, exponent)
};

LanePanels lane_panels(const DecodedRows& b, int64_t n, int64_t k) {
  const int64_t panels = (n + kLanes - 1) / kLanes;
  const size_t size = static_cast<size_t>(panels * k * kLanes);
  LanePanels out{std::vector<int32_t>(size, pack_operand(0, kZeroExponent))};
  for (int64_t j = 0; j < n; ++j)
    for (int64_t t = 0; t < k; ++t) {
      const size_t at = static_cast<size_t>(((j / kLanes) * k + t) * kLanes + j % kLanes);
      out.packed[at] = pack_operand(b.significand[j * k + t], b.exponent[j * k + t]);
    }
  return out;
}

struct StepModel {
  int terms;
  int alignment_bits;
  int product_fraction_bits;  // fa + fb
  int result_bits;
  int exponent_floor;
  bool late_c;  // c enters after the block: fl32_rne(block of the products + c)
  bool narrow;  // the step's sums fit an int (narrow_sum_fits): 32-bit lanes
};

// One step: the products of a[0..n) and b[0..n), plus c (f32 bits, finite), as the preset enters c:
// the kernels' integer step (kernels/common/integer_step.h), results the exact encoder must make
// encoded here. Inlined into chain, so that it is compiled for each of chain's targets.
[[gnu::always_inline]] inline uint32_t fast_step(const StepModel& m, OperandSpan a, OperandSpan b,
                                                 int n, uint32_t c) {
  const auto exact = [&m](bool negative, uint64_t magnitude, int unit) -> uint32_t {
    const uint32_t bits = encode(Format::f32, ExactValue::finite(negative, magnitude, unit),
                                 {Rounding::toward_zero, Overflow::to_infinity, m.result_bits});
    return (bits & 0x7FFFFFFF) == 0 ? 0
                                    : bits;  // a sum that rounds to zero gives +0, as in the oracle
  };
  const auto a_at = [a](int i) { return a[i]; };
  const auto b_at = [b](int i) { return b[i]; };
  // A whole step of the Hopper FP8 presets' 32 terms with the count known to the compiler, which
  // then unrolls the step's loops into whole vectors.
  if (m.narrow) {
    if (n == 32) return block_step<int>(m, a_at, b_at, 32, c, exact);
    return block_step<int>(m, a_at, b_at, n, c, exact);
  }
  if (n == 32) return block_step(m, a_at, b_at, 32, c, exact);
  return block_step(m, a_at, b_at, n, c, exact);
}

MMAEMU_VECTOR_CLONES uint32_t chain(const StepModel& m, OperandSpan a, OperandSpan b, int64_t begin,
                                    int64_t end, uint32_t c) {
  for (int64_t s = begin; s < end; s += m.terms) {
    const int n = static_cast<int>(std::min<int64_t>(m.terms, end - s));
    c = fast_step(m, a + s, b + s, n, c);
  }
  return c;
}

// kLanes output elements' chains over K in [begin, end) from c = 0, for narrow models: row a of A
// against a panel of kLanes columns of B (lane_step.hpp). b_rows holds the same columns as rows,
// for the scalar step of a lane whose result the exact encoder must make (FP8 products and chains
// that start from 0 never reach a subnormal or overflowing step result; fast_path_test makes the
// lanes flag them from other operands). The chains' f32 bits go to out (through memory: the clones
// must share one calling convention).
MMAEMU_VECTOR_CLONES void chain_lanes(const StepModel& m, OperandSpan a, LanePanel b,
                                      const OperandSpan* b_rows, int64_t begin, int64_t end,
                                      uint32_t* out) {
  LaneUint c{};
  for (int64_t s = begin; s < end; s += m.terms) {
    const int n = static_cast<int>(std::min<int64_t>(m.terms, end - s));
    const LanePanel at{b.packed + s * kLanes};
    LaneInt exact;
    LaneUint next;
    if (n == 32)  // a constant count, so that the full step's loops unroll
      block_step_lanes(m, a.significand + s, a.exponent + s, at, 32, c, next, exact);
    else
      block_step_lanes(m, a.significand + s, a.exponent + s, at, n, c, next, exact);
    for (int l = 0; l < kLanes; ++l)
      if (exact[l]) next[l] = fast_step(m, a + s, b_rows[l] + s, n, c[l]);
    c = next;
  }
  std::memcpy(out, &c, sizeof c);
}

// A row whose operands may be NaNs or infinities. The oracle's step (mma_step.cpp) returns the
// special value of its products and c when there is one: NaN for a NaN, for infinity x 0 and for
// infinities of both signs, else the infinity; otherwise the finite step, in which these operands
// never appear. So the chain asks, step by step, which case it is in.
struct SpecialRow {
  OperandSpan values;
  const uint8_t* kinds;  // SpecialKind per operand
};

constexpr uint32_t kF32Nan = 0x7FC00000, kF32PositiveInfinity = 0x7F800000,
                   kF32NegativeInfinity = 0xFF800000;

// The SpecialKind bits of the products of one step and of c (f32 bits).
uint8_t step_specials(const SpecialRow& a, const SpecialRow& b, int64_t begin, int n, uint32_t c) {
  uint8_t found = 0;
  if ((c & 0x7F800000) == 0x7F800000)
    found |= (c & 0x7FFFFF) ? kNan : (c >> 31) ? kNegativeInfinity : kPositiveInfinity;
  for (int64_t i = begin; i < begin + n; ++i) {
    const uint8_t ka = a.kinds[i], kb = b.kinds[i];
    if ((ka | kb) == kFinite) continue;
    if ((ka | kb) & kNan) {
      found |= kNan;
      continue;
    }
    // An infinity times a zero is a NaN; else the product's sign is the operands' signs' xor.
    const bool zero = (ka == kFinite && a.values[i].significand == 0) ||
                      (kb == kFinite && b.values[i].significand == 0);
    if (zero) {
      found |= kNan;
      continue;
    }
    const bool negative =
        ((ka == kNegativeInfinity) || (ka == kFinite && a.values[i].significand < 0)) !=
        ((kb == kNegativeInfinity) || (kb == kFinite && b.values[i].significand < 0));
    found |= negative ? kNegativeInfinity : kPositiveInfinity;
  }
  return found;
}

uint32_t special_value(uint8_t found) {
  if ((found & kNan) || (found & kPositiveInfinity && found & kNegativeInfinity)) return kF32Nan;
  return (found & kNegativeInfinity) ? kF32NegativeInfinity : kF32PositiveInfinity;
}

uint32_t chain_with_specials(const StepModel& m, const SpecialRow& a, const SpecialRow& b,
                             int64_t begin, int64_t end, uint32_t c) {
  for (int64_t s = begin; s < end; s += m.terms) {
    const int n = static_cast<int>(std::min<int64_t>(m.terms, end - s));
    if (const uint8_t found = step_specials(a, b, s, n, c)) {
      c = special_value(found);
      continue;
    }
    c = fast_step(m, a.values + s, b.values + s, n, c);
  }
  return c;
}

uint32_t output_bits(Format out, float y) {
  const uint32_t bits = bits_of_float(y);
  if (y != y) return describe(out).canonical_nan;
  switch (out) {
    case Format::f32:
      return bits;
    case Format::bf16:
      return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16;
    case Format::f16:  // the kernels' integer conversion (kernels/common/output_convert.h)
      return f32_to_f16_bits(bits);
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

namespace {

// One call on the fast path: the operands decoded once, then any output element on demand.
class FastGemm {
 public:
  FastGemm(const Plan& plan, const ScaledMmCall& call)
      : plan_(plan),
        call_(call),
        a_(decode_rows(call.a_dtype, call.a, call.m, call.k)),
        b_(decode_rows(call.b_dtype, call.b, call.n, call.k)),
        model_{plan.preset->terms_per_step,
               plan.preset->alignment_fraction_bits,
               describe(call.a_dtype).fraction_bits + describe(call.b_dtype).fraction_bits,
               plan.preset->f32_result.fraction_bits,
               plan.preset->f32_result.exponent_floor.value_or(INT_MIN / 4),
               plan.preset->accumulator_entry == AccumulatorEntry::late_fp32,
               narrow_sum_fits(plan.preset->alignment_fraction_bits, plan.preset->terms_per_step)},
        bias_(call.bias ? call.n : 0),
        rowwise_(call.scale_a.rowwise()),
        no_specials_(a_.kinds.empty() && b_.kinds.empty() ? 0 : static_cast<size_t>(call.k),
                     kFinite),
        alpha_(rowwise_ ? 0.0f
                        : float_from_bits(call.scale_a.f32_bits[0]) *
                              float_from_bits(call.scale_b.f32_bits[0])) {
    if (model_.narrow) panels_ = lane_panels(b_, call.n, call.k);
    for (int64_t j = 0; j < static_cast<int64_t>(bias_.size()); ++j)
      bias_[j] = float_from_bits(convert(
          call.bias->format, load_bits(call.bias->format, call.bias->values, j), Format::f32));
  }

  uint32_t element(int64_t i, int64_t j) const {
    const OperandSpan ra = a_.row(i, call_.k);
    const OperandSpan rb = b_.row(j, call_.k);
    float total = 0.0f;
    if (a_.special[i] || b_.special[j]) {
      // A row without specials has no kinds stored: it reads a row of kFinite instead.
      const SpecialRow sa{ra, a_.special[i] ? &a_.kinds[i * call_.k] : no_specials_.data()};
      const SpecialRow sb{rb, b_.special[j] ? &b_.kinds[j * call_.k] : no_specials_.data()};
      dot(1, &total, [&](int64_t begin, int64_t end, uint32_t* bits) {
        *bits = chain_with_specials(model_, sa, sb, begin, end, 0);
      });
    } else {
      dot(1, &total, [&](int64_t begin, int64_t end, uint32_t* bits) {
        *bits = chain(model_, ra, rb, begin, end, 0);
      });
    }
    return finish(i, j, total);
  }

  // The lanes need a model whose sums fit 32-bit lanes.
  bool has_lanes() const { return model_.narrow; }
  int64_t panels() const { return (call_.n + kLanes - 1) / kLanes; }

  // Elements (i, kLanes p + l) for the columns of panel p (has_lanes): out[l] for l < the panel's
  // width. A row or column holding a NaN or an infinity takes element()'s chain instead.
  void panel_elements(int64_t i, int64_t p, uint32_t* out) const {
    const int64_t j0 = p * kLanes;
    const int width = static_cast<int>(std::min<int64_t>(kLanes, call_.n - j0));
    if (a_.special[i]) {
      for (int l = 0; l < width; ++l) out[l] = element(i, j0 + l);
      return;
    }
    std::array<OperandSpan, kLanes> b_rows;
    for (int l = 0; l < kLanes; ++l) b_rows[l] = b_.row(j0 + std::min(l, width - 1), call_.k);
    const OperandSpan ra = a_.row(i, call_.k);
    const LanePanel panel{&panels_.packed[p * call_.k * kLanes]};
    std::array<float, kLanes> total;
    dot(kLanes, total.data(), [&](int64_t begin, int64_t end, uint32_t* bits) {
      chain_lanes(model_, ra, panel, b_rows.data(), begin, end, bits);
    });
    for (int l = 0; l < width; ++l)
      out[l] = b_.special[j0 + l] ? element(i, j0 + l) : finish(i, j0 + l, total[l]);
  }

 private:
  // The epilogue of element (i, j) from its FP32 sum.
  uint32_t finish(int64_t i, int64_t j, float total) const {
    const Algorithm& alg = plan_.algorithm;
    if (alg.fused_bias || !alg.fold_tensorwise_scales)
      return oracle_epilogue(plan_, call_, i, j, bits_of_float(total));
    float y;
    if (!rowwise_) {
      y = total * alpha_;
    } else {
      const float sa = float_from_bits(call_.scale_a.f32_bits[i]),
                  sb = float_from_bits(call_.scale_b.f32_bits[j]);
      y = alg.rowwise_order == RowwiseScaleOrder::column_first ? (total * sb) * sa
                                                               : (total * sa) * sb;
    }
    if (call_.bias) y = y + bias_[j];
    return output_bits(call_.out_dtype, y);
  }

  // Promotion and the split-K sum in native f32: NaNs and infinities propagate as the oracle's
  // exact adds do (a NaN's payload aside, which the output conversion canonicalises).
  // For `width` elements at once (one, or a panel's lanes): chain_over(begin, end, bits) gives each
  // element's chain over K in [begin, end) as f32 bits.
  template <class ChainOver>
  void dot(int width, float* total, const ChainOver& chain_over) const {
    const Algorithm& alg = plan_.algorithm;
    std::array<uint32_t, kLanes> bits;
    std::array<float, kLanes> partial;
    for (int s = 0; s < plan_.split_k; ++s) {
      const KRange r = split_k_slice(call_.k, plan_.split_k, alg.split_k_grain, s);
      if (alg.accumulation == Accumulation::single_chain) {
        chain_over(r.begin, r.end, bits.data());
        for (int l = 0; l < width; ++l) partial[l] = float_from_bits(bits[l]);
      } else {
        for (int l = 0; l < width; ++l) partial[l] = 0.0f;
        for (int64_t start = r.begin; start < r.end; start += alg.promotion_interval) {
          chain_over(start, std::min<int64_t>(start + alg.promotion_interval, r.end), bits.data());
          for (int l = 0; l < width; ++l) partial[l] += float_from_bits(bits[l]);
        }
      }
      for (int l = 0; l < width; ++l) total[l] = s == 0 ? partial[l] : total[l] + partial[l];
    }
  }

  const Plan& plan_;
  const ScaledMmCall& call_;
  DecodedRows a_, b_;
  LanePanels panels_;  // B's columns by panels of kLanes (has_lanes)
  StepModel model_;
  std::vector<float> bias_;
  bool rowwise_;
  std::vector<uint8_t> no_specials_;
  float alpha_;
};

}  // namespace

Result<std::vector<uint8_t>> emulate(const Plan& plan, const ScaledMmCall& call, Backend backend,
                                     int threads) {
  if (is_cuda(backend)) return emulate_cuda(plan, call, backend);
  if (backend == Backend::oracle || !fast_path_supports(plan))
    return emulate_oracle(plan, call, threads);
  if (auto ok = validate_planned_call(plan, call); !ok) return ok.error();
  const FastGemm gemm(plan, call);
  if (!gemm.has_lanes())
    return fill_output(call, threads, [&](int64_t i, int64_t j) { return gemm.element(i, j); });
  // Panels outermost within a task of kRowsPerTask rows, so that a panel stays in cache for them.
  constexpr int64_t kRowsPerTask = 8;
  std::vector<uint8_t> out(static_cast<size_t>(call.m * call.n) *
                           describe(call.out_dtype).storage_bytes());
  parallel_for((call.m + kRowsPerTask - 1) / kRowsPerTask, std::max(threads, 1), [&](int64_t task) {
    std::array<uint32_t, kLanes> bits;
    for (int64_t p = 0; p < gemm.panels(); ++p)
      for (int64_t i = task * kRowsPerTask; i < std::min(call.m, (task + 1) * kRowsPerTask); ++i) {
        gemm.panel_elements(i, p, bits.data());
        for (int64_t j = p * kLanes; j < std::min(call.n, (p + 1) * kLanes); ++j)
          store_bits(call.out_dtype, out, i * call.n + j, bits[j - p * kLanes]);
      }
  });
  return out;
}

void finish_flagged_elements(const Plan& plan, const ScaledMmCall& call,
                             std::span<const uint8_t> flags, std::span<uint8_t> out, int threads) {
  std::optional<FastGemm> gemm;
  if (fast_path_supports(plan)) gemm.emplace(plan, call);
  parallel_for(call.m, std::max(threads, 1), [&](int64_t i) {
    for (int64_t j = 0; j < call.n; ++j)
      if (flags[i * call.n + j])
        store_bits(call.out_dtype, out, i * call.n + j,
                   gemm ? gemm->element(i, j)
                        : oracle_epilogue(plan, call, i, j, oracle_dot_f32(plan, call, i, j)));
  });
}

}  // namespace mmaemu
