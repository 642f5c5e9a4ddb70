// The fast CPU path equals the oracle bit for bit on random and adversarial calls: every
// distribution of the truth sets and worse (NaN/Inf, subnormals, overflowing scales), odd shapes,
// K not a multiple of the step, split-K, both accumulation modes, every output dtype, every FP8
// preset (Hopper, Ada, and Blackwell's late c entry under Hopper's algorithm), tensorwise and
// rowwise scales, bias.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <random>

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
