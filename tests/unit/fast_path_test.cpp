// The fast CPU path equals the oracle bit for bit on random and adversarial calls: every
// distribution of the truth sets and worse (NaN/Inf, subnormals, overflowing scales), odd shapes,
// K not a multiple of the step, split-K, both accumulation modes, every output dtype, the Hopper
// and Ada presets, tensorwise and rowwise scales, bias.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <random>

#include "mmaemu/emulate.hpp"
#include "mmaemu/exact.hpp"
#include "mmaemu/profile.hpp"

using namespace mmaemu;

namespace {

enum class Dist { normal, wide, small, cancel, special };

uint8_t fp8_code(Format f, Dist d, std::mt19937& rng) {
  const int exp_bits = f == Format::f8_e4m3 ? 4 : 5, frac_bits = 7 - exp_bits;
  const int bias = (1 << (exp_bits - 1)) - 1;
  const uint32_t sign = (rng() & 1) << 7;
  auto pack = [&](int e) { return static_cast<uint8_t>(sign | (std::clamp(e, 0, (1 << exp_bits) - 2) << frac_bits) | (rng() & ((1 << frac_bits) - 1))); };
  switch (d) {
    case Dist::normal: return pack(bias + static_cast<int>(rng() % 7) - 3);
    case Dist::wide: return static_cast<uint8_t>(rng());
    case Dist::small: return pack(static_cast<int>(rng() % 3));
    case Dist::cancel: return pack(bias + static_cast<int>(rng() % 3) - 1);
    case Dist::special: {
      const uint8_t specials[] = {0x00, 0x80, 0x01, 0x81, 0x7F, 0xFF, 0x7E, 0xFE, 0x7C, 0xFC};
      return rng() % 4 == 0 ? specials[rng() % 10] : pack(bias + static_cast<int>(rng() % 9) - 4);
    }
  }
  return 0;
}

uint32_t random_scale(std::mt19937& rng) {
  const uint32_t picks[] = {0x3F800000, 0x3D17F62B, 0x3FD9999A, 0x00000000, 0x00000001,
                            0x7F7FFFFF, 0x3A000000, 0x4B000000};
  if (rng() % 3 == 0) return picks[rng() % 8];
  return (rng() & 0x807FFFFF) | ((120 + rng() % 16) << 23);
}

struct Case {
  std::vector<uint8_t> a, b, bias;
  ScaledMmCall call;
};

Case random_case(std::mt19937& rng, Dist dist) {
  const int64_t ms[] = {1, 3, 16, 17}, ns[] = {1, 5, 16}, ks[] = {1, 7, 31, 32, 33, 100, 128, 129, 300, 513};
  const Format pairs[][2] = {{Format::f8_e4m3, Format::f8_e4m3}, {Format::f8_e4m3, Format::f8_e5m2},
                             {Format::f8_e5m2, Format::f8_e4m3}};
  const Format outs[] = {Format::bf16, Format::f16, Format::f32, Format::f8_e4m3, Format::f8_e5m2};
  Case c;
  ScaledMmCall& call = c.call;
  call.m = ms[rng() % 4];
  call.n = ns[rng() % 3];
  call.k = ks[rng() % 10];
  const auto& pair = pairs[rng() % 3];
  call.a_dtype = pair[0];
  call.b_dtype = pair[1];
  c.a.resize(call.m * call.k);
  c.b.resize(call.n * call.k);
  for (auto& x : c.a) x = fp8_code(call.a_dtype, dist, rng);
  for (auto& x : c.b) x = fp8_code(call.b_dtype, dist, rng);
  if (dist == Dist::cancel)  // make neighbouring products cancel
    for (int64_t i = 0; i + 1 < call.k; i += 2)
      for (int64_t r = 0; r < call.m; ++r) c.a[r * call.k + i + 1] = c.a[r * call.k + i] ^ 0x80;
  if (dist == Dist::cancel)
    for (int64_t i = 0; i + 1 < call.k; i += 2)
      for (int64_t r = 0; r < call.n; ++r) c.b[r * call.k + i + 1] = c.b[r * call.k + i];
  call.a = c.a;
  call.b = c.b;
  if (rng() % 3 == 0) {
    call.scale_a.per_row = call.scale_b.per_row = true;
    call.scale_a.f32_bits.assign(call.m, 0);
    call.scale_b.f32_bits.assign(call.n, 0);
    for (auto& s : call.scale_a.f32_bits) s = random_scale(rng);
    for (auto& s : call.scale_b.f32_bits) s = random_scale(rng);
  } else {
    call.scale_a = Scales::tensorwise(random_scale(rng));
    call.scale_b = Scales::tensorwise(random_scale(rng));
  }
  call.out_dtype = outs[rng() % 5];
  if (rng() % 3 == 0) {
    const Format bf = rng() % 2 ? Format::bf16 : Format::f16;
    c.bias.resize(call.n * 2);
    for (int64_t j = 0; j < call.n; ++j) store_bits(bf, c.bias, j, rng() & 0xBFFF);
    call.bias = Bias{bf, c.bias};
  }
  call.use_fast_accum = rng() % 2;
  return c;
}

}  // namespace

TEST_CASE("the fast CPU path equals the oracle on random calls", "[fast][conformance]") {
  std::mt19937 rng(2026);
  const char* profiles[] = {"hopper", "ada"};
  int64_t elements = 0;
  for (Dist dist : {Dist::normal, Dist::wide, Dist::small, Dist::cancel, Dist::special}) {
    for (int trial = 0; trial < 120; ++trial) {
      Case c = random_case(rng, dist);
      auto profile = load_profile(profiles[trial % 2]);
      REQUIRE(profile.ok());
      auto plan = profile->resolve(c.call);
      REQUIRE(plan.ok());
      plan->split_k = 1 + static_cast<int>(rng() % 5);
      REQUIRE(fast_path_supports(*plan));
      auto oracle = emulate(*plan, c.call, Backend::oracle);
      auto fast = emulate(*plan, c.call, Backend::cpu, 1 + static_cast<int>(rng() % 3));
      REQUIRE(oracle.ok());
      REQUIRE(fast.ok());
      INFO("dist " << static_cast<int>(dist) << " trial " << trial << ": " << c.call.m << "x" << c.call.n
                   << "x" << c.call.k << " out " << describe(c.call.out_dtype).name << " splits "
                   << plan->split_k << " fast " << c.call.use_fast_accum);
      REQUIRE(*fast == *oracle);
      elements += c.call.m * c.call.n;
    }
  }
  std::cout << elements << " elements equal on 600 random calls\n";
}

TEST_CASE("presets the fast path does not cover fall back to the oracle", "[fast]") {
  Plan plan;
  plan.preset = find_preset("blackwell_fp8_mma_k32");
  plan.algorithm = *find_algorithm("cublaslt_nvjet_fast");
  std::string why;
  CHECK_FALSE(fast_path_supports(plan, &why));
  CHECK(why == "c added after the block");
  std::mt19937 rng(7);
  Case c = random_case(rng, Dist::normal);
  auto oracle = emulate(plan, c.call, Backend::oracle);
  auto fast = emulate(plan, c.call, Backend::cpu);
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
      {Format::bf16, 0x3F808000, 0x3F80}, {Format::bf16, 0x3F818000, 0x3F82},
      {Format::bf16, 0xBF818000, 0xBF82}, {Format::f16, 0x3F801000, 0x3C00},
      {Format::f16, 0x3F803000, 0x3C02},  {Format::f8_e4m3, 0x3F880000, 0x38},
      {Format::f8_e4m3, 0x3F980000, 0x3A}, {Format::f8_e5m2, 0x3F900000, 0x3C},
      {Format::f8_e5m2, 0x3FB00000, 0x3E}, {Format::f8_e4m3, 0x43E80000, 0x7E},  // 464: tie below NaN
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
      INFO(describe(t.out).name << " scale " << std::hex << t.scale << " backend " << to_string(backend));
      CHECK(load_bits(t.out, *out, 0) == t.expected);
    }
  }
}
