// The GEMM oracle: how the library composes tensor-core steps into one output element. One
// function per stage: step chain, promotion into FP32, split-K reduction, the call.
#include <unistd.h>
#include <algorithm>
#include <string>
#include <vector>

#include "mmaemu/exact.hpp"
#include "mmaemu/mma_step.hpp"
#include "mmaemu/scaled_mm.hpp"
#include "oracle/output_rows.hpp"

namespace mmaemu {
namespace {

constexpr uint32_t kPositiveZero = 0;

struct Operands {
  std::vector<uint32_t> a, b;  // one row of A and one row of B (a column of mat2), K codes each
};

Operands load_operands(const ScaledMmCall& call, int64_t row, int64_t col) {
  Operands o{std::vector<uint32_t>(call.k), std::vector<uint32_t>(call.k)};
  for (int64_t i = 0; i < call.k; ++i) {
    o.a[i] = load_bits(call.a_dtype, call.a, row * call.k + i);
    o.b[i] = load_bits(call.b_dtype, call.b, col * call.k + i);
  }
  return o;
}

// The chain of steps over [begin, end) from c: steps of terms_per_step elements counted from
// begin, the last one shorter (the hardware's zero padding adds nothing: zero products drop out).
uint32_t chain(const Plan& plan, const ScaledMmCall& call, const Operands& o, int64_t begin,
               int64_t end, uint32_t c) {
  const StepInputs in{call.a_dtype, call.b_dtype,
                      std::span<const uint32_t>(o.a).subspan(begin, end - begin),
                      std::span<const uint32_t>(o.b).subspan(begin, end - begin), c};
  return oracle_mma_chain(*plan.preset, plan.preset->f32_result, in);
}

// One split-K slice's FP32 partial.
uint32_t slice_partial(const Plan& plan, const ScaledMmCall& call, const Operands& o, KRange r) {
  if (plan.algorithm.accumulation == Accumulation::single_chain)
    return chain(plan, call, o, r.begin, r.end, kPositiveZero);
  uint32_t accumulator = kPositiveZero;
  for (int64_t start = r.begin; start < r.end; start += plan.algorithm.promotion_interval) {
    const int64_t end = std::min<int64_t>(start + plan.algorithm.promotion_interval, r.end);
    accumulator = f32_add_rne(accumulator, chain(plan, call, o, start, end, kPositiveZero));
  }
  return accumulator;
}

}  // namespace

uint32_t oracle_dot_f32(const Plan& plan, const ScaledMmCall& call, int64_t row, int64_t col) {
  const Operands o = load_operands(call, row, col);
  // The partials are added in slice order, starting from slice 0 itself.
  uint32_t total = 0;
  for (int s = 0; s < plan.split_k; ++s) {
    const KRange r = split_k_slice(call.k, plan.split_k, plan.algorithm.split_k_grain, s);
    const uint32_t partial = slice_partial(plan, call, o, r);
    total = s == 0 ? partial : f32_add_rne(total, partial);
  }
  return total;
}

namespace {

// Physical memory (0 where the system does not say).
uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

}  // namespace

Result<void> validate_extents(int64_t m, int64_t n, int64_t k) {
  if (m <= 0 || n <= 0 || k <= 0)
    return Error(Errc::invalid_argument, "m, n and k must be positive (got " + std::to_string(m) +
                                             ", " + std::to_string(n) + ", " + std::to_string(k) +
                                             ")");
  return {};
}

Result<void> validate_operand_dtypes(Format a, Format b) {
  for (Format f : {a, b})
    if (f != Format::f8_e4m3 && f != Format::f8_e5m2)
      return Error(Errc::invalid_argument,
                   "operand dtype " + std::string(describe(f).name) + " is not an FP8 format");
  if (a == Format::f8_e5m2 && b == Format::f8_e5m2)
    return Error(Errc::invalid_argument, "f8_e5m2 x f8_e5m2 is not supported by torch._scaled_mm");
  return {};
}

Result<void> validate_bias_dtype(Format bias) {
  if (bias != Format::bf16 && bias != Format::f16)
    return Error(Errc::invalid_argument, "bias must be bf16 or f16");
  return {};
}

Result<void> validate_out_dtype(Format out) {
  switch (out) {
    case Format::bf16:
    case Format::f16:
    case Format::f32:
    case Format::f8_e4m3:
    case Format::f8_e5m2:
      return {};
    default:
      return Error(Errc::invalid_argument,
                   "out dtype " + std::string(describe(out).name) + " is not supported");
  }
}

Result<void> validate_plan_takes(const Plan& plan, Format a, Format b) {
  if (!plan.preset) return Error(Errc::invalid_argument, "the plan has no preset");
  for (Format f : {a, b})
    if (!plan.preset->accepts(f))
      return Error(Errc::unsupported, "preset " + plan.preset->name + " does not take " +
                                          std::string(describe(f).name));
  return {};
}

Result<void> validate(const ScaledMmCall& call) {
  auto fail = [](const std::string& what) { return Error(Errc::invalid_argument, what); };
  if (auto ok = validate_extents(call.m, call.n, call.k); !ok) return ok;
  if (call.n_full != 0 && call.n_full < call.n) return fail("n_full is smaller than n");
  if (auto ok = validate_operand_dtypes(call.a_dtype, call.b_dtype); !ok) return ok;
  // The output is sized from m x n: its byte count must not wrap (m = n = 2^31 once gave an
  // empty buffer written past its end), and must fit the machine's memory, so that a small input
  // naming a huge output is refused instead of allocated.
  int64_t out_elements = 0, out_bytes = 0;
  if (__builtin_mul_overflow(call.m, call.n, &out_elements) ||
      __builtin_mul_overflow(out_elements, int64_t{describe(call.out_dtype).storage_bytes()},
                             &out_bytes))
    return fail("an output of m x n = " + std::to_string(call.m) + " x " + std::to_string(call.n) +
                " elements does not fit a 64-bit byte count");
  if (const uint64_t memory = physical_memory_bytes();
      memory > 0 && static_cast<uint64_t>(out_bytes) > memory)
    return fail("an output of m x n = " + std::to_string(call.m) + " x " + std::to_string(call.n) +
                " takes " + std::to_string(out_bytes) + " bytes, more than this machine's " +
                std::to_string(memory) + " bytes of memory");
  if (call.a.size() != static_cast<size_t>(call.m * call.k))
    return fail("a holds " + std::to_string(call.a.size()) +
                " elements, m x k = " + std::to_string(call.m * call.k));
  if (call.b.size() != static_cast<size_t>(call.n * call.k))
    return fail("b holds " + std::to_string(call.b.size()) +
                " elements, n x k = " + std::to_string(call.n * call.k));
  if (call.scale_a.rowwise() != call.scale_b.rowwise())
    return fail("scale_a and scale_b must both be tensorwise or both rowwise");
  const size_t want_a = call.scale_a.rowwise() ? static_cast<size_t>(call.m) : 1;
  const size_t want_b = call.scale_b.rowwise() ? static_cast<size_t>(call.n) : 1;
  if (call.scale_a.f32_bits.size() != want_a)
    return fail("scale_a holds " + std::to_string(call.scale_a.f32_bits.size()) +
                " values, expected " + std::to_string(want_a));
  if (call.scale_b.f32_bits.size() != want_b)
    return fail("scale_b holds " + std::to_string(call.scale_b.f32_bits.size()) +
                " values, expected " + std::to_string(want_b));
  if (call.bias) {
    if (auto ok = validate_bias_dtype(call.bias->format); !ok) return ok;
    if (call.bias->values.size() != static_cast<size_t>(call.n) * 2)
      return fail("bias must hold n values");
  }
  return validate_out_dtype(call.out_dtype);
}

Result<void> validate_planned_call(const Plan& plan, const ScaledMmCall& call) {
  if (auto ok = validate(call); !ok) return ok;
  return validate_plan_takes(plan, call.a_dtype, call.b_dtype);
}

Result<std::vector<uint8_t>> emulate_oracle(const Plan& plan, const ScaledMmCall& call,
                                            int threads) {
  if (auto ok = validate_planned_call(plan, call); !ok) return ok.error();
  return fill_output(call, threads, [&](int64_t i, int64_t j) {
    return oracle_epilogue(plan, call, i, j, oracle_dot_f32(plan, call, i, j));
  });
}

}  // namespace mmaemu
