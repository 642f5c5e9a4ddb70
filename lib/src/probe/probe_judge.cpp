// Judging probed bits: the preset's D for every element, class tallies, and every one-step move of
// every parameter held against the hardware.
#include <algorithm>
#include <map>
#include "threads/parallel_for.hpp"

#include "mmaemu/mma_step.hpp"
#include "mmaemu/tools/preset_moves.hpp"
#include "mmaemu/tools/probe.hpp"

namespace mmaemu {
namespace {

std::vector<uint32_t> codes(std::span<const uint8_t> bytes, Format f, size_t first, size_t count) {
  std::vector<uint32_t> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = load_bits(f, bytes, first + i);
  return v;
}

}  // namespace

std::vector<uint32_t> probe_outputs(const ProbeTiles& tiles, const Preset& preset, int threads) {
  const ProbeInstruction& in = *tiles.instruction;
  const size_t m = in.m, n = in.n, k = in.k;
  std::vector<uint32_t> d(static_cast<size_t>(tiles.tiles) * m * n);
  parallel_for(tiles.tiles, threads, [&](int64_t t) {
    for (size_t row = 0; row < m; ++row) {
      const auto a = codes(tiles.a, in.a_format, (t * m + row) * k, k);
      for (size_t col = 0; col < n; ++col) {
        const auto b = codes(tiles.b, in.b_format, (t * n + col) * k, k);
        const size_t e = (t * m + row) * n + col;
        const uint32_t c = in.reads_c ? tiles.c[e] : 0;
        d[e] = oracle_mma_chain(preset, preset.f32_result, {in.a_format, in.b_format, a, b, c});
      }
    }
  });
  return d;
}

ProbeVerdict judge_probe(const ProbeTiles& tiles, std::span<const uint32_t> hardware,
                         const Preset& preset, const std::vector<const Preset*>& candidates,
                         int threads) {
  const ProbeInstruction& in = *tiles.instruction;
  const size_t per_tile = static_cast<size_t>(in.m) * in.n;
  const auto& classes = probe_classes();
  ProbeVerdict v;
  v.instruction = in.name;
  v.preset = preset.name;
  // Mismatches of `model` against the hardware, per class.
  auto tally = [&](const std::vector<uint32_t>& model) {
    std::vector<ProbeClassTally> per(classes.size());
    for (size_t c = 0; c < classes.size(); ++c) per[c].name = classes[c];
    for (size_t e = 0; e < model.size(); ++e) {
      const size_t tile = e / per_tile;
      ProbeClassTally& ct = per[static_cast<size_t>(tiles.class_of_tile[tile])];
      ++ct.elements;
      if (model[e] == hardware[e]) continue;
      ++ct.mismatches;
      if (!ct.first)
        ct.first = ProbeMismatch{static_cast<int>(tile), static_cast<int>(e % per_tile / in.n),
                                 static_cast<int>(e % in.n), hardware[e], model[e]};
    }
    return per;
  };
  auto total = [](const std::vector<ProbeClassTally>& per) {
    int64_t sum = 0;
    for (const auto& c : per) sum += c.mismatches;
    return sum;
  };
  v.classes = tally(probe_outputs(tiles, preset, threads));
  for (const auto& c : v.classes) {
    v.elements += c.elements;
    v.mismatches += c.mismatches;
  }
  std::map<std::string, size_t> index;
  for (const PresetMove& move : preset_moves()) {
    Preset moved = preset;
    if (!move.apply(moved)) continue;
    const auto per = tally(probe_outputs(tiles, moved, threads));
    ProbeMoveTally mt{move.label, total(per), ""};
    for (const auto& c : per)
      if (c.mismatches > 0) {
        mt.first_class = c.name;
        break;
      }
    auto [it, fresh] = index.emplace(move.parameter, v.parameters.size());
    if (fresh) {
      ProbeParameterVerdict pv;
      pv.parameter = move.parameter;
      pv.value = parameter_value(preset, move.parameter);
      pv.determined = true;
      for (const auto& u : preset.unpinned) pv.declared_unpinned |= u.parameter == move.parameter;
      if (move.parameter == "exponent_floor") {
        // Terms are aligned at no lower than the largest operand exponent; c's is at least -126
        // (an f32 subnormal aligns as the smallest normal binade).
        const int lowest =
            describe(in.a_format).min_exponent() + describe(in.b_format).min_exponent();
        if (preset.f32_result.exponent_floor && lowest > *preset.f32_result.exponent_floor + 1)
          pv.note = "inert for this instruction: no product aligns below 2^" +
                    std::to_string(lowest) +
                    " and c aligns at 2^-126 or above, so no input reaches a floor at 2^" +
                    std::to_string(*preset.f32_result.exponent_floor);
      }
      v.parameters.push_back(pv);
    }
    ProbeParameterVerdict& pv = v.parameters[it->second];
    pv.determined = pv.determined && mt.mismatches > 0;
    pv.moves.push_back(mt);
  }
  for (const Preset* other : candidates) {
    if (other == &preset || other->name == preset.name) continue;
    v.candidates.emplace_back(other->name, total(tally(probe_outputs(tiles, *other, threads))));
  }
  return v;
}

}  // namespace mmaemu
