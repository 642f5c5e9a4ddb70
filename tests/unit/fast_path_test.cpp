// The fast CPU path equals the oracle bit for bit on random and adversarial calls: every
// distribution of the truth sets and worse (NaN/Inf, subnormals, overflowing scales), odd shapes,
// K not a multiple of the step, split-K, both accumulation modes, every output dtype, every FP8
// preset (Hopper, Ada, and Blackwell's late c entry under Hopper's algorithm), tensorwise and
// rowwise scales, bias.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <cstdio>
#include <random>

#include "common/float_terms.h"
#include "cpu/fp8_codes.hpp"
#include "cpu/lane_step.hpp"
#include "mmaemu/emulate.hpp"
#include "mmaemu/exact.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/tools/calls.hpp"

using namespace mmaemu;

namespace {

using Dist = CallDistribution;

OwnedScaledMmCall random_case(std::mt19937& rng, Dist dist) {
  return random_adversarial_call(rng, dist);
}

}  // namespace

TEST_CASE("the fast CPU path equals the oracle on random calls", "[fast][conformance]") {
  std::mt19937 rng(2026);
  const char* profiles[] = {"hopper", "ada", "hopper"};
  const char* presets[] = {"hopper_fp8_wgmma_k32", "ada_fp8_mma_k32", "blackwell_fp8_mma_k32"};
  int64_t elements = 0;
  for (Dist dist : {Dist::normal, Dist::wide, Dist::small, Dist::cancel, Dist::special}) {
    for (int trial = 0; trial < 120; ++trial) {
      const OwnedScaledMmCall c = random_case(rng, dist);
      const ScaledMmCall call = c.view();
      auto profile = load_profile(profiles[trial % 3]);
      REQUIRE(profile.ok());
      auto plan = profile->resolve(call);
      REQUIRE(plan.ok());
      plan->preset = find_preset(presets[trial % 3]);
      plan->split_k = 1 + static_cast<int>(rng() % 5);
      REQUIRE(fast_path_supports(*plan));
      auto oracle = emulate(*plan, call, Backend::oracle);
      auto fast = emulate(*plan, call, Backend::cpu, 1 + static_cast<int>(rng() % 3));
      REQUIRE(oracle.ok());
      REQUIRE(fast.ok());
      INFO("dist " << static_cast<int>(dist) << " trial " << trial << ": " << call.m << "x"
                   << call.n << "x" << call.k << " out " << describe(call.out_dtype).name
                   << " splits " << plan->split_k << " fast " << call.use_fast_accum << " preset "
                   << plan->preset->name);
      REQUIRE(*fast == *oracle);
      elements += call.m * call.n;
    }
  }
  std::cout << elements << " elements equal on 600 random calls\n";
}

TEST_CASE("sparse NaNs and infinities: the fast path's step-by-step check equals the oracle",
          "[fast][conformance][specials]") {
  // A few specials per call, so that one step, one promotion interval or one split-K slice holds
  // them and the others do not: infinities of one sign, of both, times zeros, and NaNs.
  std::mt19937 rng(911);
  AdversarialShapes shapes;
  shapes.m = {1, 5, 16};
  shapes.n = {3, 16};
  shapes.k = {100, 257, 640, 1100};
  auto profile = load_profile("hopper");
  REQUIRE(profile.ok());
  int64_t special_outputs = 0;
  for (int trial = 0; trial < 200; ++trial) {
    OwnedScaledMmCall c = random_adversarial_call(rng, Dist::normal, shapes);
    std::vector<uint8_t>&a = c.a, &b = c.b;
    const Format fa = c.a_dtype, fb = c.b_dtype;
    auto code = [&](Format f, int what) -> uint8_t {
      const bool e5 = f == Format::f8_e5m2;
      switch (what) {
        case 0:
          return e5 ? 0x7F : 0x7F;  // NaN
        case 1:
          return e5 ? 0x7C : 0x7F;  // +inf (e4m3 has none: NaN)
        case 2:
          return e5 ? 0xFC : 0xFF;  // -inf
        default:
          return 0x00;  // zero, to meet an infinity
      }
    };
    const int count = 1 + static_cast<int>(rng() % 4);
    for (int s = 0; s < count; ++s) {
      const int what = static_cast<int>(rng() % 4);
      if (rng() % 2)
        a[rng() % a.size()] = code(fa, what);
      else
        b[rng() % b.size()] = code(fb, what);
    }
    const ScaledMmCall call = c.view();
    auto plan = profile->resolve(call);
    REQUIRE(plan.ok());
    plan->split_k = 1 + static_cast<int>(rng() % 4);
    if (trial % 2) plan->algorithm = *find_algorithm("cublaslt_nvjet_fast");
    REQUIRE(fast_path_supports(*plan));
    auto oracle = emulate(*plan, call, Backend::oracle);
    auto fast = emulate(*plan, call, Backend::cpu, 2);
    REQUIRE(oracle.ok());
    REQUIRE(fast.ok());
    INFO("trial " << trial << ": " << call.m << "x" << call.n << "x" << call.k << " out "
                  << describe(call.out_dtype).name << " splits " << plan->split_k);
    REQUIRE(*fast == *oracle);
    for (int64_t e = 0; e < call.m * call.n; ++e)
      special_outputs += !decode(call.out_dtype, load_bits(call.out_dtype, *oracle, e)).is_finite();
  }
  // The test is only worth something if specials reached outputs, in some but not all of them.
  CHECK(special_outputs > 200);
  std::cout << special_outputs << " NaN or infinite outputs equal on 200 sparse-special calls\n";
}

TEST_CASE("presets the fast path does not cover fall back to the oracle", "[fast]") {
  Preset flushing = *find_preset("hopper_fp8_wgmma_k32");  // no NVIDIA step flushes; a what-if
  flushing.flush_subnormal_inputs = true;
  Plan plan;
  plan.preset = &flushing;
  plan.algorithm = *find_algorithm("cublaslt_nvjet_fast");
  std::string why;
  CHECK_FALSE(fast_path_supports(plan, &why));
  CHECK(why == "flushed subnormal inputs");
  std::mt19937 rng(7);
  const OwnedScaledMmCall c = random_case(rng, Dist::normal);
  const ScaledMmCall call = c.view();
  auto oracle = emulate(plan, call, Backend::oracle);
  auto fast = emulate(plan, call, Backend::cpu);
  REQUIRE(oracle.ok());
  REQUIRE(fast.ok());
  CHECK(*fast == *oracle);
}

TEST_CASE("output rounding ties go to even on both paths", "[fast][conformance]") {
  // 1 x 1 x 1 calls: acc = 1 exactly, so y = the scale, chosen to sit on a rounding tie.
  struct Tie {
    Format out;
    uint32_t scale;
    uint32_t expected;
  };
  const Tie ties[] = {
      {Format::bf16, 0x3F808000, 0x3F80},
      {Format::bf16, 0x3F818000, 0x3F82},
      {Format::bf16, 0xBF818000, 0xBF82},
      {Format::f16, 0x3F801000, 0x3C00},
      {Format::f16, 0x3F803000, 0x3C02},
      {Format::f8_e4m3, 0x3F880000, 0x38},
      {Format::f8_e4m3, 0x3F980000, 0x3A},
      {Format::f8_e5m2, 0x3F900000, 0x3C},
      {Format::f8_e5m2, 0x3FB00000, 0x3E},
      {Format::f8_e4m3, 0x43E80000, 0x7E},  // 464: tie below NaN
  };
  std::vector<uint8_t> one = {0x38};
  auto profile = load_profile("hopper");
  REQUIRE(profile.ok());
  for (const Tie& t : ties) {
    ScaledMmCall call;
    call.m = call.n = call.k = 1;
    call.a = one;
    call.b = one;
    call.scale_a = Scales::tensorwise(t.scale);
    call.out_dtype = t.out;
    auto plan = profile->resolve(call);
    REQUIRE(plan.ok());
    for (Backend backend : {Backend::oracle, Backend::cpu}) {
      auto out = emulate(*plan, call, backend);
      REQUIRE(out.ok());
      INFO(describe(t.out).name << " scale " << std::hex << t.scale << " backend "
                                << to_string(backend));
      CHECK(load_bits(t.out, *out, 0) == t.expected);
    }
  }
}

TEST_CASE("the largest sums a step can make, in 32-bit lanes and in 64-bit ones",
          "[fast][conformance]") {
  // Every product the largest e4m3 x e4m3 one (448 x 448, significands 15 x 15) at one exponent,
  // all of one sign: the sum of a step is the largest its window allows. Windows of 22 and 23
  // alignment bits take the fast path's 32-bit lanes, 24 and 28 its 64-bit ones
  // (narrow_sum_fits); each must equal the oracle, c carried from step to step.
  auto profile = load_profile("hopper");
  REQUIRE(profile.ok());
  for (const int alignment : {13, 22, 23, 24, 28}) {
    for (const uint8_t code : {uint8_t{0x7E}, uint8_t{0xFE}}) {
      Preset wide = *find_preset("hopper_fp8_wgmma_k32");
      wide.alignment_fraction_bits = alignment;
      wide.f32_result.fraction_bits = 23;
      ScaledMmCall call;
      call.m = call.n = 2;
      call.k = 32 * 9 + 16;
      std::vector<uint8_t> a(static_cast<size_t>(call.m * call.k), code);
      std::vector<uint8_t> b(static_cast<size_t>(call.n * call.k), 0x7E);
      call.a = a;
      call.b = b;
      call.out_dtype = Format::f32;
      auto plan = profile->resolve(call);
      REQUIRE(plan.ok());
      plan->preset = &wide;
      REQUIRE(fast_path_supports(*plan));
      auto oracle = emulate(*plan, call, Backend::oracle);
      auto fast = emulate(*plan, call, Backend::cpu);
      REQUIRE(oracle.ok());
      REQUIRE(fast.ok());
      INFO("alignment bits " << alignment << " code " << int{code});
      CHECK(*fast == *oracle);
    }
  }
}

// The fast path's lanes (lib/src/cpu/lane_step.hpp) against the kernels' integer step, lane by
// lane: FP8-like operands (zeros included) and, in half the trials, exponents far beyond FP8's, n
// from 1 to 32, and c from zero through subnormals to the largest finite f32, so that some lanes'
// results need the exact encoder (subnormal or beyond 2^127), which FP8 products never make: those
// lanes must be flagged and hold 0, every other lane equal integer_step<int>'s bits. Both ways of
// entering c, two exponent floors.
namespace {
struct LaneTestModel {
  int terms = 32, alignment_bits = 13, product_fraction_bits = 6, result_bits = 23;
  int exponent_floor = -1000;
  bool late_c = false;
};
}  // namespace

TEST_CASE("the fast path's lanes step equals the kernels' integer step lane by lane",
          "[fast][conformance]") {
  std::mt19937 rng(77);
  int64_t flagged = 0, compared = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    LaneTestModel model;
    model.late_c = trial % 2 == 1;
    model.exponent_floor = trial % 3 == 0 ? -133 : -1000;
    const int n = 1 + static_cast<int>(rng() % 32);
    // Exponents beyond FP8's in some trials: products near f32's smallest and largest exponents.
    const int offset = trial % 4 == 2 ? -58 : trial % 4 == 3 ? 50 : 0;
    std::vector<int16_t> a_significand(n), a_exponent(n);
    std::vector<int32_t> panel(static_cast<size_t>(n * kLanes));
    std::vector<int16_t> b_significand(static_cast<size_t>(n * kLanes)),
        b_exponent(static_cast<size_t>(n * kLanes));
    const auto draw = [&](int16_t& significand, int16_t& exponent) {
      if (rng() % 8 == 0) {
        significand = 0;
        exponent = -1000;  // kZeroExponent
        return;
      }
      significand = static_cast<int16_t>(static_cast<int>(rng() % 15) + 1);
      if (rng() % 2) significand = static_cast<int16_t>(-significand);
      exponent = static_cast<int16_t>(static_cast<int>(rng() % 36) - 17 + offset);
    };
    for (int i = 0; i < n; ++i) draw(a_significand[i], a_exponent[i]);
    for (int i = 0; i < n; ++i)
      for (int l = 0; l < kLanes; ++l) {
        const size_t at = static_cast<size_t>(i * kLanes + l);
        draw(b_significand[at], b_exponent[at]);
        panel[at] = pack_operand(b_significand[at], b_exponent[at]);
      }
    LaneUint c{};
    for (int l = 0; l < kLanes; ++l) {
      const uint32_t sign = (rng() % 2) << 31;
      switch (rng() % 5) {
        case 0:
          c[l] = 0;
          break;
        case 1:
          c[l] = sign | static_cast<uint32_t>(rng() % 0x800000u);
          break;  // subnormal
        case 2:
          c[l] = sign | (0x7F7FFFFFu - static_cast<uint32_t>(rng() % 0x1000000u));
          break;
        default:
          c[l] = sign | static_cast<uint32_t>(rng() % 0x7F800000u);
          break;
      }
    }
    LaneInt exact;
    LaneUint lanes;
    block_step_lanes(model, a_significand.data(), a_exponent.data(), LanePanel{panel.data()}, n, c,
                     lanes, exact);
    for (int l = 0; l < kLanes; ++l) {
      bool needs_exact = false;
      const auto flag = [&needs_exact](bool, unsigned long long, int) -> uint32_t {
        needs_exact = true;
        return 0;
      };
      struct Op {
        int16_t significand, exponent;
      };
      const auto a_at = [&](int i) { return Op{a_significand[i], a_exponent[i]}; };
      const auto b_at = [&](int i) {
        const size_t at = static_cast<size_t>(i * kLanes + l);
        return Op{b_significand[at], b_exponent[at]};
      };
      const uint32_t scalar =
          block_step<int>(model, a_at, b_at, n, static_cast<uint32_t>(c[l]), flag);
      INFO("trial " << trial << " lane " << l << " n " << n << " c " << std::hex << c[l]);
      if (needs_exact) {
        ++flagged;
        CHECK(exact[l] == -1);
        continue;
      }
      ++compared;
      CHECK(exact[l] == 0);
      CHECK(static_cast<uint32_t>(lanes[l]) == scalar);
    }
  }
  INFO(flagged << " flagged lanes, " << compared << " compared");
  CHECK(flagged > 1000);
  CHECK(compared > 40000);
}

// v9's step (kernels/common/float_terms.h: the terms made and summed in FP32) against the integer
// step v4 runs, element by element: decoded codes of every FP8 pair (zeros, subnormals and the
// largest values included; NaN and Inf rows go to the host and are left out), n from 1 to the
// step's terms, c from zero through subnormals to the largest finite f32 (results that need the
// exact encoder must be flagged alike), both ways of entering c, two exponent floors, and steps of
// equal products of one sign (the largest sums the window allows).
TEST_CASE("v9's FP32 terms step equals the kernels' integer step", "[fast][conformance]") {
  std::mt19937 rng(91);
  int64_t flagged = 0, compared = 0, nonzero = 0, mismatches = 0;
  const Format formats[] = {Format::f8_e4m3, Format::f8_e5m2};
  for (int trial = 0; trial < 60000; ++trial) {
    const Format fa = formats[trial % 2], fb = formats[(trial / 2) % 2];
    LaneTestModel model;
    model.terms = trial % 5 == 4 ? 16 : 32;  // the Ada step too
    model.product_fraction_bits = describe(fa).fraction_bits + describe(fb).fraction_bits;
    model.late_c = trial % 7 == 3;
    model.exponent_floor = trial % 3 == 0 ? -133 : -1000;
    REQUIRE(float_sum_fits(model.alignment_bits, model.terms));
    const auto codes_a = decode_fp8_codes(fa), codes_b = decode_fp8_codes(fb);
    const int n = 1 + static_cast<int>(rng() % static_cast<unsigned>(model.terms));
    struct Op {
      int16_t significand, exponent;
    };
    std::vector<Op> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    const bool equal_terms = trial % 11 == 5;
    const bool largest = rng() % 2;  // the largest finite code, or the least subnormal
    for (int i = 0; i < n; ++i) {
      const auto draw = [&](const std::array<Fp8Code, 256>& codes, Format f, Op& op) {
        const uint32_t fixed = !largest ? 0x01u : f == Format::f8_e5m2 ? 0x7Bu : 0x7Eu;
        Fp8Code d;
        do {
          uint32_t code = rng() % 256;
          if (equal_terms)
            code = fixed;
          else if (rng() % 6 == 0)
            code &= 0x80u;  // a zero
          d = codes[code];
        } while (d.special);
        op = {d.significand, d.exponent};
      };
      draw(codes_a, fa, a[static_cast<size_t>(i)]);
      draw(codes_b, fb, b[static_cast<size_t>(i)]);
    }
    uint32_t c = 0;
    const uint32_t sign = (rng() % 2) << 31;
    switch (rng() % 6) {
      case 0:
        break;
      case 1:
        c = sign | static_cast<uint32_t>(rng() % 0x800000u);  // subnormal
        break;
      case 2:
        c = sign | (0x7F7FFFFFu - static_cast<uint32_t>(rng() % 0x1000000u));
        break;
      case 3:  // near the products' own exponents
        c = sign | static_cast<uint32_t>((100 + rng() % 60) << 23 | (rng() % 0x800000u));
        break;
      default:
        c = sign | static_cast<uint32_t>(rng() % 0x7F800000u);
        break;
    }
    bool integer_flag = false, float_flag = false;
    const auto flag_with = [](bool& f) {
      return [&f](bool, unsigned long long, int) -> uint32_t {
        f = true;
        return 0;
      };
    };
    const auto a_at = [&](int i) { return a[static_cast<size_t>(i)]; };
    const auto b_at = [&](int i) { return b[static_cast<size_t>(i)]; };
    const uint32_t expected =
        block_step<long long>(model, a_at, b_at, n, c, flag_with(integer_flag));
    uint32_t got;
    if (model.late_c) {
      const uint32_t block = float_terms_step(model, a_at, b_at, n, 0u, flag_with(float_flag));
      got = bits_of_float(add_f32_rn(float_from_bits(block), float_from_bits(c)));
    } else {
      got = float_terms_step(model, a_at, b_at, n, c, flag_with(float_flag));
    }
    INFO("trial " << trial << " n " << n << " c " << std::hex << c);
    CHECK(float_flag == integer_flag);
    mismatches += float_flag != integer_flag;
    if (integer_flag) {
      ++flagged;
      continue;
    }
    ++compared;
    nonzero += expected != 0;
    mismatches += got != expected;
    CHECK(got == expected);
  }
  // The counts go to the test's output: validation_logs/2026-12-07/v9-float-terms cites them.
  std::printf("v9 terms step: %lld flagged alike, %lld compared (%lld nonzero), all equal: %s\n",
              static_cast<long long>(flagged), static_cast<long long>(compared),
              static_cast<long long>(nonzero), mismatches == 0 ? "yes" : "no");
  CHECK(flagged > 100);
  CHECK(compared > 50000);
  CHECK(nonzero > 45000);
}

// v9's 32-bit finish against the general one, over what float_sum_fits admits: sums of up to
// 2^24 - 1 units of either sign (and zero), c from zero through subnormals to the largest finite
// f32 with its exponent at most alignment_bits above the unit (step_unit's guarantee), windows of
// 10 to 21 bits, results of 13 and 23 bits, units from deep below f32's subnormals to its top.
TEST_CASE("v9's 32-bit finish equals finish_step", "[fast][conformance]") {
  std::mt19937 rng(4093);
  int64_t flagged = 0, compared = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    LaneTestModel model;
    model.alignment_bits = 10 + static_cast<int>(rng() % 12);
    model.result_bits = trial % 4 == 0 ? 13 : 23;
    const int64_t span = int64_t{1} << 24;
    int sum = trial % 9 == 0
                  ? 0
                  : static_cast<int>(static_cast<int64_t>(rng() % (2 * span - 1)) - (span - 1));
    if (trial % 13 == 1) sum = (trial % 2 ? 1 : -1) * static_cast<int>(span - 1);
    uint32_t c = 0;
    const uint32_t sign = (rng() % 2) << 31;
    if (trial % 5 != 0)
      c = sign | (trial % 7 == 2 ? static_cast<uint32_t>(rng() % 0x800000u)
                                 : static_cast<uint32_t>(rng() % 0x7F800000u));
    const AlignedC aligned = align_c(c);
    // The unit step_unit would pick: at least c's exponent less the window (any, without c).
    const int lowest = aligned.significand != 0 ? aligned.exponent - model.alignment_bits
                                                : -150 + static_cast<int>(rng() % 260);
    const int unit = lowest + (trial % 3 == 0 ? 0 : static_cast<int>(rng() % 40));
    bool narrow_flag = false, general_flag = false;
    const auto flag_with = [](bool& f) {
      return [&f](bool, unsigned long long, int) -> uint32_t {
        f = true;
        return 0;
      };
    };
    const uint32_t expected =
        finish_step<long long>(model, sum, aligned, c, unit, flag_with(general_flag));
    const uint32_t got = finish_narrow_step(model, sum, aligned, c, unit, flag_with(narrow_flag));
    INFO("trial " << trial << " sum " << sum << " unit " << unit << " c " << std::hex << c);
    REQUIRE(narrow_flag == general_flag);
    if (general_flag) {
      ++flagged;
      continue;
    }
    ++compared;
    REQUIRE(got == expected);
  }
  std::printf("v9 32-bit finish: %lld flagged alike, %lld compared, all equal\n",
              static_cast<long long>(flagged), static_cast<long long>(compared));
  CHECK(flagged > 1000);
  CHECK(compared > 100000);
}
