// mmaemu probe without a GPU: the crafted tiles and the judgement, with a preset standing in for
// the hardware. The judgement must accept the preset's own bits, reject a moved preset's, and
// find every parameter of the Hopper presets determined (the exponent floor of FP8 and f16 is
// inert: no input reaches it, and the verdict says so).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "mmaemu/tools/preset_moves.hpp"
#include "mmaemu/tools/probe.hpp"

using namespace mmaemu;

namespace {

const ProbeInstruction& instruction(const std::string& name) {
  for (const auto& in : probe_instructions())
    if (in.name == name) return in;
  FAIL("no probe instruction " << name);
  throw 0;
}

}  // namespace

TEST_CASE("probe tiles have the instruction's shape and every class", "[probe]") {
  const auto& in = instruction("wgmma.m64n8k32.e4m3.e5m2 (scale-d 1)");
  const Preset& p = *find_preset("hopper_fp8_wgmma_k32");
  const ProbeTiles t = make_probe_tiles(in, p, 2, 7);
  CHECK(t.tiles == 2 * static_cast<int>(probe_classes().size()));
  CHECK(t.a.size() == static_cast<size_t>(t.tiles) * 64 * 32);
  CHECK(t.b.size() == static_cast<size_t>(t.tiles) * 8 * 32);
  CHECK(t.c.size() == static_cast<size_t>(t.tiles) * 64 * 8);
  // Same seed, same tiles: the probe data are reproducible.
  const ProbeTiles again = make_probe_tiles(in, p, 2, 7);
  CHECK(again.a == t.a);
  CHECK(again.c == t.c);
}

TEST_CASE("the judgement accepts the preset's own bits and pins its parameters", "[probe]") {
  for (const auto& [name, preset] :
       {std::pair{"wgmma.m64n8k32.e4m3.e4m3 (scale-d 1)", "hopper_fp8_wgmma_k32"},
        {"mma.sync.m16n8k16.bf16", "hopper_bf16_mma_k16"},
        {"mma.sync.m16n8k8.tf32", "hopper_tf32_mma_k8"},
        {"mma.sync.m16n8k16.f16", "hopper_f16_mma_k16"}}) {
    const auto& in = instruction(name);
    const Preset& p = *find_preset(preset);
    const ProbeTiles t = make_probe_tiles(in, p, 3, 11);
    const auto hardware = probe_outputs(t, p, 2);
    const ProbeVerdict v = judge_probe(t, hardware, p, {}, 2);
    INFO(name);
    CHECK(v.mismatches == 0);
    CHECK(v.elements == static_cast<int64_t>(hardware.size()));
    for (const auto& pv : v.parameters) {
      INFO(pv.parameter);
      if (pv.parameter == "exponent_floor" &&
          (in.a_format == Format::f8_e4m3 || in.a_format == Format::f16)) {
        CHECK_FALSE(pv.determined);
        CHECK(pv.note.find("inert") != std::string::npos);
      } else {
        CHECK(pv.determined);
      }
    }
  }
}

TEST_CASE("the judgement rejects hardware that a moved preset stands in for", "[probe]") {
  const auto& in = instruction("mma.sync.m16n8k32.e4m3.e4m3");
  const Preset& p = *find_preset("hopper_fp8_wgmma_k32");
  const ProbeTiles t = make_probe_tiles(in, p, 3, 5);
  for (const PresetMove& move : preset_moves()) {
    Preset moved = p;
    if (!move.apply(moved) || move.parameter == "exponent_floor") continue;
    const auto hardware = probe_outputs(t, moved, 2);
    INFO(move.label);
    CHECK(judge_probe(t, hardware, p, {}, 2).mismatches > 0);
  }
  // Which other preset the bits follow is reported: Ada's two 16-term halves differ from Hopper.
  const auto ada_bits = probe_outputs(t, *find_preset("ada_fp8_mma_k32"), 2);
  const ProbeVerdict v = judge_probe(t, ada_bits, p, {find_preset("ada_fp8_mma_k32")}, 2);
  CHECK(v.mismatches > 0);
  REQUIRE(v.candidates.size() == 1);
  CHECK(v.candidates[0].second == 0);
}
