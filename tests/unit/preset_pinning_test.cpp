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
#include "mmaemu/tools/preset_moves.hpp"
#include "truth_location.hpp"

using namespace mmaemu;

namespace {

std::filesystem::path g_tc_blocks;

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
    for (const PresetMove& m : preset_moves()) {
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
  g_tc_blocks = testing::require_truth_set("tc-blocks-dev", "tc-blocks-subset");
  return Catch::Session().run(argc, argv);
}
