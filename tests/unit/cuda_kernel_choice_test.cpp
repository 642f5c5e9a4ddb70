// Which CUDA kernel module may compute a plan, decided on the CPU (no GPU needed): h1 and h4 issue
// the real wgmma step, so they take exactly the Hopper FP8 step on sm_90 and nothing else, not a
// what-if preset that keeps the name with one parameter moved; h4 takes up to 8 split-K slices on a
// grain of whole slabs and K a multiple of 16; v1/v4 take the presets that enter c inside the
// block.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "common/float_terms.h"
#include "common/h4_tiling.h"
#include "mmaemu/emulate.hpp"
#include "mmaemu/preset.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/tools/emulation_modules.hpp"

using namespace mmaemu;

namespace {

bool h1_supports(const Plan& plan, int major, int minor, std::string* why = nullptr) {
  static const ScaledMmCall any;  // h1 looks at the plan only
  return emulation_module_named("h1")->covers(plan, any, major, minor, why);
}
bool h4_supports(const Plan& plan, const ScaledMmCall& call, int major, int minor,
                 std::string* why = nullptr) {
  return emulation_module_named("h4")->covers(plan, call, major, minor, why);
}
bool v1_supports(const Plan& plan, std::string* why = nullptr) {
  return emulation_module_named("v1")->covers(plan, {}, 9, 0, why);
}

Plan hopper_plan(const ScaledMmCall& call) {
  auto profile = load_profile("hopper");
  REQUIRE(profile.ok());
  auto plan = profile->resolve(call);
  REQUIRE(plan.ok());
  return *plan;
}

// A 64 x 32 x 256 call of ones and the hopper profile's plan for it, in one slice.
struct HopperCall {
  std::vector<uint8_t> a = std::vector<uint8_t>(64 * 256, 0x38),
                       b = std::vector<uint8_t>(32 * 256, 0x38);
  ScaledMmCall call;
  Plan plan;
  HopperCall() {
    call.m = 64, call.n = 32, call.k = 256;
    call.a = a, call.b = b;
    plan = hopper_plan(call);
    plan.split_k = 1;
  }
};

}  // namespace

TEST_CASE("h1 and h4 take the Hopper wgmma step on sm_90 only", "[cuda][choice]") {
  const HopperCall hopper;
  const ScaledMmCall& call = hopper.call;
  const Plan& plan = hopper.plan;
  std::string why;
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
  CHECK(h4_supports(split, call, 9, 0, &why));
  split.split_k = 12;
  CHECK(h1_supports(split, 9, 0));
  CHECK_FALSE(h4_supports(split, call, 9, 0, &why));
  CHECK(why.find("up to 8") != std::string::npos);
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
  CHECK(v1_supports(plan));
  plan.preset = find_preset("ada_fp8_mma_k32");
  CHECK(v1_supports(plan));
  plan.preset = find_preset("blackwell_fp8_mma_k32");
  CHECK(v1_supports(plan));  // late c: the block from 0, then one RN add
  plan.algorithm.fused_bias = true;
  CHECK_FALSE(v1_supports(plan, &why));
  CHECK(why.find("epilogue") != std::string::npos);
}

TEST_CASE("one descriptor per kernel module: names, backends, launch and the module a call gets",
          "[cuda][choice]") {
  REQUIRE(emulation_modules().size() == 5);
  for (const EmulationModule& m : emulation_modules()) {
    CHECK(backend_named(m.backend_name) == m.backend);
    CHECK(to_string(m.backend) == m.backend_name);
    CHECK(emulation_module_for(m.backend) == &m);
    CHECK(emulation_module_named(m.name) == &m);
    CHECK(m.source == std::string(m.name) + "_scaled_mm.cu");
    CHECK(m.covers != nullptr);
    CHECK(is_cuda(m.backend));
  }
  CHECK(emulation_module_for(Backend::cpu) == nullptr);
  CHECK(emulation_module_named("h4")->dynamic_shared_bytes > 48 * 1024);
  CHECK(emulation_module_named("h4")->launch == LaunchShape::tiles_128_linear);

  const HopperCall hopper;
  const ScaledMmCall& call = hopper.call;
  const Plan& plan = hopper.plan;
  auto pick = [&](const Plan& p, Backend backend, int major, int minor) {
    auto m = choose_emulation_module(p, call, backend, major, minor);
    return m ? std::string((*m)->name) : "error: " + m.error().message();
  };
  // What cuda takes where h4 covers the call: h4 while it is in cuda's choice (auto_rank > 0).
  const std::string h4_auto = emulation_module_named("h4")->auto_rank > 0 ? "h4" : "h1";
  CHECK(pick(plan, Backend::cuda, 9, 0) == h4_auto);
  CHECK(pick(plan, Backend::cuda_h4, 9, 0) == "h4");
  Plan split = plan;
  split.split_k = 2;
  CHECK(pick(split, Backend::cuda_h4, 9, 0) == "h4");  // a cluster of two blocks per tile
  CHECK(pick(split, Backend::cuda, 9, 0) == h4_auto);
  split.split_k = 8;
  CHECK(pick(split, Backend::cuda_h4, 9, 0) == "h4");
  split.split_k = 9;  // past the largest cluster every sm_90 GPU schedules
  CHECK(pick(split, Backend::cuda, 9, 0) == "h1");
  Plan fine = plan;
  fine.split_k = 2;
  fine.algorithm.split_k_grain = 64;  // slices that may start mid-slab
  CHECK(pick(fine, Backend::cuda, 9, 0) == "h1");
  CHECK(pick(fine, Backend::cuda_h4, 9, 0).find("grain of 64") != std::string::npos);
  fine.split_k = 1;  // one slice: the grain does not matter
  CHECK(pick(fine, Backend::cuda, 9, 0) == h4_auto);
  CHECK(pick(plan, Backend::cuda, 8, 9) == "v9");  // not Hopper: the CUDA-core modules
  CHECK(pick(plan, Backend::cuda_v1, 9, 0) == "v1");
  CHECK(pick(plan, Backend::cuda_v9, 9, 0) == "v9");  // named, on any GPU
  CHECK(pick(split, Backend::cuda_h4, 9, 0).find("up to 8 split-K slices, not 9") !=
        std::string::npos);
  CHECK(pick(plan, Backend::cpu, 9, 0).find("not a CUDA backend") != std::string::npos);
  Plan fused = plan;
  fused.algorithm.fused_bias = true;
  CHECK(pick(fused, Backend::cuda, 9, 0).find("no CUDA kernel module covers") != std::string::npos);

  // h4 reads a and b through tensor maps: a caller's operand off 16 bytes goes to the next module.
  CHECK(emulation_module_named("h4")->tensor_maps);
  CHECK_FALSE(emulation_module_named("h1")->tensor_maps);
  auto pick_at = [&](Backend backend, uint64_t operand_addresses) {
    auto m = choose_emulation_module(plan, call, backend, 9, 0, operand_addresses);
    return m ? std::string((*m)->name) : "error: " + m.error().message();
  };
  CHECK(pick_at(Backend::cuda, 0x7f0000000000) == h4_auto);
  CHECK(pick_at(Backend::cuda_h4, 0x7f0000000000 | 0x200010) == "h4");
  CHECK(pick_at(Backend::cuda, 0x7f0000000008) == "h1");
  CHECK(pick_at(Backend::cuda, 0x7f0000000001) == "h1");
  CHECK(pick_at(Backend::cuda_h4, 0x7f0000000004).find("16-byte aligned") != std::string::npos);
  CHECK(pick_at(Backend::cuda_h1, 0x7f0000000004) == "h1");
}

TEST_CASE("v9 takes the presets whose step terms fit FP32 exactly, before v4", "[cuda][choice]") {
  const HopperCall hopper;
  Plan plan = hopper.plan;
  const EmulationModule* v9 = emulation_module_named("v9");
  REQUIRE(v9);
  CHECK(v9->auto_rank > 0);
  CHECK(v9->auto_rank < emulation_module_named("v4")->auto_rank);
  CHECK(v9->auto_rank > emulation_module_named("h1")->auto_rank);
  std::string why;
  CHECK(v9->covers(plan, hopper.call, 8, 0, &why));  // the Hopper step: 32 terms, 13 bits
  plan.preset = find_preset("ada_fp8_mma_k32");
  CHECK(v9->covers(plan, hopper.call, 8, 9, &why));
  // A 32-term step in a 22-bit window: its sums fit an int (v4's narrow sums would take it), but
  // a term reaches 2^24, past FP32's exact integers.
  Preset wide = *find_preset("hopper_fp8_wgmma_k32");
  wide.alignment_fraction_bits = 22;
  plan.preset = &wide;
  CHECK(narrow_sum_fits(wide.alignment_fraction_bits, wide.terms_per_step));
  CHECK_FALSE(v9->covers(plan, hopper.call, 9, 0, &why));
  CHECK(why.find("24 bits") != std::string::npos);
  auto wide_pick = choose_emulation_module(plan, hopper.call, Backend::cuda, 8, 9);
  REQUIRE(wide_pick);
  CHECK((*wide_pick)->name == "v4");  // cuda falls back to v4 where v9's terms do not fit
  // A 16-term step in a 25-bit window: up to 17 x 2^27 per sum, past an int.
  plan.preset = find_preset("blackwell_f16_mma_k16");
  REQUIRE(plan.preset);
  CHECK_FALSE(float_sum_fits(plan.preset->alignment_fraction_bits, plan.preset->terms_per_step));
  CHECK_FALSE(v9->covers(plan, hopper.call, 9, 0, &why));
  CHECK(why.find("v4 takes it") != std::string::npos);
  for (int major : {7, 8, 9}) {
    auto m = choose_emulation_module(hopper.plan, hopper.call, Backend::cuda, major, 0);
    REQUIRE(m);
    CHECK((*m)->name == (major != 9                                    ? "v9"
                         : emulation_module_named("h4")->auto_rank > 0 ? "h4"
                                                                       : "h1"));
  }
}

TEST_CASE("h4 takes its narrow tile only where the wide one leaves most of the GPU idle",
          "[cuda][choice]") {
  constexpr int kSms = 132;  // an H100 SXM or H200
  // Few long tiles: 8 wide blocks, 16 narrow.
  CHECK(h4_tile_rows(256, 512, 1, kSms) == kH4NarrowTileM);
  CHECK(h4_tile_rows(128, 1024, 1, kSms) == kH4NarrowTileM);
  // Enough wide blocks (64 at 1024^3, 1024 at 4096^3), or no more narrow ones (m <= 64).
  CHECK(h4_tile_rows(1024, 1024, 1, kSms) == kH4TileM);
  CHECK(h4_tile_rows(4096, 4096, 1, kSms) == kH4TileM);
  CHECK(h4_tile_rows(16, 4096, 2, kSms) == kH4TileM);
  CHECK(h4_tile_rows(64, 512, 1, kSms) == kH4TileM);
  // Split-K slices count as blocks: 8 tiles of 4 slices leave more than three quarters idle, of 5
  // slices not.
  CHECK(h4_tile_rows(256, 512, 4, kSms) == kH4NarrowTileM);
  CHECK(h4_tile_rows(256, 512, 5, kSms) == kH4TileM);
  // The grid sizes the launcher takes: whole tiles at either height, a block per slice.
  CHECK(h4_grid_blocks(256, 512, 1, kH4NarrowTileM) == 16);
  CHECK(h4_grid_blocks(200, 384, 3, kH4NarrowTileM) == 4 * 3 * 3);
  CHECK(h4_grid_blocks(200, 384, 3) == 2 * 3 * 3);
  CHECK(h4_threads(kH4NarrowTileM) == 128);
  CHECK(h4_dynamic_shared_bytes(kH4NarrowTileM) == kH4Stages * 24 * 1024 + 8 * kH4Stages);
}
