// The block FMA, one stage per function: specials, exact products, alignment, exact sum, result.
#include <algorithm>
#include <climits>
#include <vector>

#include "mmaemu/exact.hpp"
#include "mmaemu/mma_step.hpp"

namespace mmaemu {
namespace {

// A finite non-zero term: (-1)^negative * significand * 2^lsb_exponent, aligned by `exponent`.
struct Term {
  bool negative;
  uint64_t significand;
  int lsb_exponent;
  int exponent;
};

struct Specials {
  bool nan = false, positive_infinity = false, negative_infinity = false;
  void add(const ExactValue& v) {
    if (v.is_nan()) nan = true;
    if (v.is_infinity()) (v.negative ? negative_infinity : positive_infinity) = true;
  }
  bool any() const { return nan || positive_infinity || negative_infinity; }
  ExactValue value() const {
    if (nan || (positive_infinity && negative_infinity)) return ExactValue::nan();
    return ExactValue::infinity(negative_infinity);
  }
};

ExactValue decode_input(const Preset& preset, Format format, uint32_t bits) {
  ExactValue v = decode(format, bits);
  const FormatDesc& d = describe(format);
  if (preset.flush_subnormal_inputs && v.is_finite() && !v.is_zero() &&
      v.leading_exponent() < d.min_exponent())
    return ExactValue::zero(v.negative);
  return v;
}

// The exponent a decoded operand is aligned by: its binade, min_exponent for subnormals.
int operand_exponent(Format format, const ExactValue& v) {
  return v.exponent + describe(format).fraction_bits;
}

// Stage 1: exact products (zero products dropped), with special values collected.
std::vector<Term> exact_products(const Preset& preset, const StepInputs& in, Specials& specials) {
  std::vector<Term> terms;
  terms.reserve(in.a.size() + 1);
  const size_t n = std::min(in.a.size(), in.b.size());
  for (size_t i = 0; i < n; ++i) {
    const ExactValue a = decode_input(preset, in.a_format, in.a[i]);
    const ExactValue b = decode_input(preset, in.b_format, in.b[i]);
    const ExactValue p = exact_multiply(a, b);
    specials.add(p);
    if (!p.is_finite() || p.is_zero()) continue;
    Term t{p.negative, p.magnitude.low64(), p.exponent, 0};
    t.exponent = preset.product_alignment == ProductAlignment::operand_sum
                     ? operand_exponent(in.a_format, a) + operand_exponent(in.b_format, b)
                     : p.leading_exponent();
    terms.push_back(t);
  }
  return terms;
}

// Stage 2: a term in units of 2^unit, its shifted-out bits dropped as the preset says.
int64_t align(const Term& t, int unit, ShiftedOutBits mode) {
  const int shift = t.lsb_exponent - unit;
  uint64_t magnitude;
  if (shift >= 0) {
    magnitude = t.significand << shift;  // < 2^(F+2): the term is at most 4 * 2^exponent
  } else {
    const int drop = -shift;
    magnitude = drop >= 64 ? 0 : t.significand >> drop;
    // The first dropped bit, and whether any bit below it is set.
    const bool half = drop <= 64 && ((t.significand >> (drop - 1)) & 1);
    const bool rest = drop - 1 >= 64 ? t.significand != 0
                                     : (t.significand & ((uint64_t{1} << (drop - 1)) - 1)) != 0;
    switch (mode) {
      case ShiftedOutBits::truncate_toward_zero:
        break;
      case ShiftedOutBits::floor:
        if (t.negative && (half || rest)) ++magnitude;
        break;
      case ShiftedOutBits::nearest_even:
        if (half && (rest || (magnitude & 1))) ++magnitude;
        break;
    }
  }
  return t.negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
}

// Stages 3 and 4: common exponent, exact sum, one rounding into the result format.
uint32_t fused_block(const Preset& preset, const StepResult& result, std::vector<Term> terms) {
  if (terms.empty()) return 0;  // +0
  int max_exponent = INT_MIN;
  for (const Term& t : terms) max_exponent = std::max(max_exponent, t.exponent);
  if (result.exponent_floor) max_exponent = std::max(max_exponent, *result.exponent_floor);
  const int unit = max_exponent - preset.alignment_fraction_bits;
  int64_t sum = 0;
  for (const Term& t : terms) sum += align(t, unit, preset.shifted_out);
  if (sum == 0) return 0;  // an exactly cancelling block gives +0
  const ExactValue exact =
      ExactValue::finite(sum < 0, static_cast<uint64_t>(sum < 0 ? -sum : sum), unit);
  const uint32_t bits =
      encode(result.format, exact, {result.rounding, Overflow::to_infinity, result.fraction_bits});
  // A non-zero sum that rounds to zero gives +0, as an exact cancellation does: probed on the
  // H200 for bf16 and tf32 sums below 2^-149 (validation_logs/2026-12-02/probe/probe.json).
  const uint32_t sign = describe(result.format).sign_mask();
  return (bits & ~sign) == 0 ? 0 : bits;
}

}  // namespace

uint32_t oracle_mma_step(const Preset& preset, const StepResult& result, const StepInputs& in) {
  Specials specials;
  std::vector<Term> terms = exact_products(preset, in, specials);
  const ExactValue c = decode(result.format, in.c);
  specials.add(c);
  if (specials.any()) return encode(result.format, specials.value());

  if (preset.accumulator_entry == AccumulatorEntry::late_fp32) {
    const uint32_t block = fused_block(preset, result, std::move(terms));
    return encode(result.format, exact_add(decode(result.format, block), c));
  }
  if (!c.is_zero())
    terms.push_back(
        {c.negative, c.magnitude.low64(), c.exponent, operand_exponent(result.format, c)});
  return fused_block(preset, result, std::move(terms));
}

uint32_t oracle_mma_chain(const Preset& preset, const StepResult& result, const StepInputs& in) {
  const size_t k = std::min(in.a.size(), in.b.size());
  const size_t step = static_cast<size_t>(preset.terms_per_step);
  uint32_t c = in.c;
  for (size_t start = 0; start < k || start == 0; start += step) {
    const size_t n = std::min(step, k - start);
    StepInputs block{in.a_format, in.b_format, in.a.subspan(start, n), in.b.subspan(start, n), c};
    c = oracle_mma_step(preset, result, block);
    if (k == 0) break;
  }
  return c;
}

}  // namespace mmaemu
