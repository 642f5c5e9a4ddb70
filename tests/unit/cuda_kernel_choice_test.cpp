// Which CUDA kernel module may compute a plan, decided on the CPU (no GPU needed): h1 and h4 issue
// the real wgmma step, so they take exactly the Hopper FP8 step on sm_90 and nothing else, not a
// what-if preset that keeps the name with one parameter moved; h4 takes one split-K slice and K a
// multiple of 16; v1/v4 take the presets that enter c inside the block.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "mmaemu/emulate.hpp"
#include "mmaemu/preset.hpp"
#include "mmaemu/profile.hpp"

using namespace mmaemu;

namespace {

Plan hopper_plan(const ScaledMmCall& call) {
  auto profile = load_profile("hopper");
  REQUIRE(profile.ok());
  auto plan = profile->resolve(call);
  REQUIRE(plan.ok());
  return *plan;
}

}  // namespace

TEST_CASE("h1 and h4 take the Hopper wgmma step on sm_90 only", "[cuda][choice]") {
  std::vector<uint8_t> a(64 * 256, 0x38), b(32 * 256, 0x38);
  ScaledMmCall call;
  call.m = 64, call.n = 32, call.k = 256;
  call.a = a, call.b = b;
  Plan plan = hopper_plan(call);
  plan.split_k = 1;
  std::string why;
  if (!h1_supports(plan, 9, 0, &why) && why.find("without the CUDA toolkit") != std::string::npos) {
    WARN("built without the CUDA headers: " << why);
    return;
  }
  CHECK(h1_supports(plan, 9, 0, &why));
  CHECK(h4_supports(plan, call, 9, 0, &why));
  CHECK_FALSE(h1_supports(plan, 8, 9, &why));
  CHECK(why.find("sm_90") != std::string::npos);
  CHECK_FALSE(h1_supports(plan, 10, 0));

  for (const char* name : {"ada_fp8_mma_k32", "blackwell_fp8_mma_k32"}) {
    Plan other = plan;
    other.preset = find_preset(name);
    CHECK_FALSE(h1_supports(other, 9, 0));
  }
  Preset moved = *plan.preset;  // same name, one bit more of alignment: not the hardware's step
  moved.alignment_fraction_bits += 1;
  Plan what_if = plan;
  what_if.preset = &moved;
  CHECK_FALSE(h1_supports(what_if, 9, 0, &why));
  CHECK(why.find("wgmma") != std::string::npos);

  Plan split = plan;
  split.split_k = 3;
  CHECK(h1_supports(split, 9, 0));
  CHECK_FALSE(h4_supports(split, call, 9, 0, &why));
  ScaledMmCall odd = call;
  std::vector<uint8_t> a2(64 * 250), b2(32 * 250);
  odd.k = 250, odd.a = a2, odd.b = b2;
  CHECK(h1_supports(plan, 9, 0));
  CHECK_FALSE(h4_supports(plan, odd, 9, 0, &why));
  CHECK(why.find("multiple of 16") != std::string::npos);
  Plan every_64 = plan;  // h4 promotes at its 128-element slabs; h1 takes any whole number of steps
  every_64.algorithm.accumulation = Accumulation::promoted;
  every_64.algorithm.promotion_interval = 64;
  CHECK(h1_supports(every_64, 9, 0));
  CHECK_FALSE(h4_supports(every_64, call, 9, 0, &why));
  CHECK(why.find("128") != std::string::npos);
  every_64.algorithm.promotion_interval = 256;
  CHECK(h4_supports(every_64, call, 9, 0));
}

TEST_CASE("v1 and v4 take every FP8 preset, c inside the block or late", "[cuda][choice]") {
  std::vector<uint8_t> a(16 * 64), b(16 * 64);
  ScaledMmCall call;
  call.m = 16, call.n = 16, call.k = 64;
  call.a = a, call.b = b;
  Plan plan = hopper_plan(call);
  std::string why;
  if (!cuda_backend_supports(plan, &why) &&
      why.find("without the CUDA toolkit") != std::string::npos) {
    WARN("built without the CUDA headers: " << why);
    return;
  }
  CHECK(cuda_backend_supports(plan));
  plan.preset = find_preset("ada_fp8_mma_k32");
  CHECK(cuda_backend_supports(plan));
  plan.preset = find_preset("blackwell_fp8_mma_k32");
  CHECK(cuda_backend_supports(plan));  // late c: the block from 0, then one RN add
  plan.algorithm.fused_bias = true;
  CHECK_FALSE(cuda_backend_supports(plan, &why));
  CHECK(why.find("epilogue") != std::string::npos);
}
