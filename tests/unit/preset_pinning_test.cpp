// Each preset parameter, moved one step, must break a recording: otherwise the data do not pin
// it, and the preset must say so in `unpinned`. The test checks both directions, so that an
// `unpinned` note that the data contradict fails too.
//
// Data: every tc-blocks-dev recording of the preset; for hopper_fp8_wgmma_k32 also the bundled
// h200 GEMM recordings (the tc-blocks H100 FP8 data were taken without c, the GEMMs chain it).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <functional>
#include <map>

#include "mmaemu/gpu_family.hpp"
#include "mmaemu/replay.hpp"
#include "truth_location.hpp"

using namespace mmaemu;

namespace {

std::filesystem::path g_tc_blocks;

struct Mutation {
  std::string parameter;  // as named in Preset::unpinned
  std::string label;
  std::function<bool(Preset&)> apply;  // false when the move is impossible for this preset
};

bool move_result(Preset& p, const std::function<bool(StepResult&)>& f) {
  bool any = f(p.f32_result);
  if (p.f16_result) any = f(*p.f16_result) || any;
  return any;
}

std::vector<Mutation> mutations() {
  return {
      {"terms_per_step", "half the terms per step",
       [](Preset& p) { return p.terms_per_step > 1 && (p.terms_per_step /= 2, true); }},
      {"alignment_fraction_bits", "one alignment bit more", [](Preset& p) { return ++p.alignment_fraction_bits, true; }},
      {"alignment_fraction_bits", "one alignment bit fewer", [](Preset& p) { return --p.alignment_fraction_bits, true; }},
      {"shifted_out", "floor instead of truncation",
       [](Preset& p) { return p.shifted_out = ShiftedOutBits::floor, true; }},
      {"shifted_out", "nearest-even alignment",
       [](Preset& p) { return p.shifted_out = ShiftedOutBits::nearest_even, true; }},
      {"product_alignment", "normalised products",
       [](Preset& p) { return p.product_alignment = ProductAlignment::normalised, true; }},
      {"accumulator_entry", "c entering the other way",
       [](Preset& p) {
         p.accumulator_entry = p.accumulator_entry == AccumulatorEntry::in_block
                                   ? AccumulatorEntry::late_fp32 : AccumulatorEntry::in_block;
         return true;
       }},
      {"flush_subnormal_inputs", "subnormal inputs flushed",
       [](Preset& p) { return p.flush_subnormal_inputs = !p.flush_subnormal_inputs, true; }},
      {"fraction_bits", "one result bit fewer",
       [](Preset& p) { return move_result(p, [](StepResult& r) { return --r.fraction_bits, true; }); }},
      {"fraction_bits", "one result bit more",
       [](Preset& p) {
         return move_result(p, [](StepResult& r) {
           return r.fraction_bits < describe(r.format).fraction_bits && (++r.fraction_bits, true);
         });
       }},
      {"rounding", "the other result rounding",
       [](Preset& p) {
         return move_result(p, [](StepResult& r) {
           r.rounding = r.rounding == Rounding::toward_zero ? Rounding::nearest_even : Rounding::toward_zero;
           return true;
         });
       }},
      {"exponent_floor", "exponent floor one higher",
       [](Preset& p) {
         return move_result(p, [](StepResult& r) { return r.exponent_floor && (++*r.exponent_floor, true); });
       }},
      {"exponent_floor", "exponent floor one lower",
       [](Preset& p) {
         return move_result(p, [](StepResult& r) { return r.exponent_floor && (--*r.exponent_floor, true); });
       }},
  };
}

// Mismatching rows and elements of all the preset's data under a (mutated) preset.
int64_t mismatches(const Preset& preset, const TruthSet& tc_blocks, const TruthSet* gemm,
                   const Profile* hopper) {
  int64_t total = 0;
  for (const auto& r : tc_blocks.recordings) {
    const auto arch = architecture_of_gpu(r.gpu);
    const Preset* own = arch ? find_preset_for(*arch, r.in_dtype) : nullptr;
    if (!own || own->name != preset.name || !preset.result_for(r.out_dtype)) continue;
    auto c = replay_mma_block(tc_blocks, r, preset, {mma_block_reads_c(r)});
    REQUIRE(c.ok());
    total += c->mismatches;
  }
  if (gemm && preset.name == "hopper_fp8_wgmma_k32") {
    for (const auto& r : gemm->recordings) {
      if (r.k > 64) continue;  // two chained instructions: enough to pin c, quick to repeat
      auto loaded = load_scaled_mm_call(*gemm, r);
      REQUIRE(loaded.ok());
      auto plan = hopper->resolve(loaded->call);
      REQUIRE(plan.ok());
      plan->preset = &preset;
      auto out = emulate_oracle(*plan, loaded->call);
      REQUIRE(out.ok());
      total += compare_bits(r.out_dtype, loaded->expected, *out).mismatches;
    }
  }
  return total;
}

}  // namespace

TEST_CASE("every preset parameter is pinned by data or declared unpinned", "[truth][pinning]") {
  auto tc = load_truth_set(g_tc_blocks);
  REQUIRE(tc.ok());
  auto gemm = load_truth_set(testing::bundled_truth());
  REQUIRE(gemm.ok());
  auto hopper = load_profile("hopper");
  REQUIRE(hopper.ok());
  for (const Preset& original : builtin_presets()) {
    REQUIRE(mismatches(original, *tc, &*gemm, &*hopper) == 0);
    std::map<std::string, bool> pinned;
    for (const Mutation& m : mutations()) {
      Preset moved = original;
      if (!m.apply(moved)) continue;
      const int64_t bad = mismatches(moved, *tc, &*gemm, &*hopper);
      std::cout << original.name << ": " << m.label << " -> " << bad << " mismatches\n";
      pinned[m.parameter] = pinned[m.parameter] || bad > 0;
      // Each move of a pinned parameter must fail on its own.
      bool declared_unpinned = false;
      for (const auto& u : original.unpinned) declared_unpinned |= u.parameter == m.parameter;
      INFO(original.name << ": " << m.label);
      if (!declared_unpinned) CHECK(bad > 0);
    }
    for (const auto& u : original.unpinned) {
      if (!pinned.count(u.parameter)) continue;  // f16_result and the like: no move applies
      INFO(original.name << ": " << u.parameter << " is declared unpinned (" << u.reason << ")");
      CHECK_FALSE(pinned[u.parameter]);
    }
  }
}

int main(int argc, char** argv) {
  g_tc_blocks = testing::require_truth_set("tc-blocks-dev");
  return Catch::Session().run(argc, argv);
}
