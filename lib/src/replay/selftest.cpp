#include <map>

#include "mmaemu/exact.hpp"
#include "mmaemu/gpu_family.hpp"
#include "mmaemu/replay.hpp"
#include "mmaemu/tools/selftest.hpp"
#include "preset/builtin_vectors.hpp"

namespace mmaemu {

SelftestCheck check_format_round_trips() {
  SelftestCheck check{"formats", true, {}};
  int64_t codes = 0;
  for (Format f : {Format::f8_e4m3, Format::f8_e5m2, Format::f16, Format::bf16}) {
    const FormatDesc& d = describe(f);
    for (uint32_t bits = 0; bits < (uint32_t{1} << d.storage_bits); ++bits) {
      const ExactValue v = decode(f, bits);
      const uint32_t want = v.is_nan() ? d.canonical_nan : bits;
      for (Rounding r : {Rounding::nearest_even, Rounding::toward_zero}) {
        const uint32_t got = encode(f, v, {r, Overflow::ieee, -1});
        if (got != want && check.passed) {
          check.passed = false;
          check.detail = std::string(d.name) + " code " + std::to_string(bits) + " re-encodes to " +
                         std::to_string(got);
        }
      }
      ++codes;
    }
  }
  if (check.passed)
    check.detail = std::to_string(codes) + " codes of f8_e4m3, f8_e5m2, f16, bf16 round-trip";
  return check;
}

std::vector<SelftestCheck> check_presets_on_builtin_vectors() {
  std::map<std::string, SelftestCheck> by_preset;
  for (const auto& set : builtin_vector_sets()) {
    const auto arch = architecture_of_gpu(set.gpu);
    const Preset* preset = arch ? find_preset_for(*arch, set.in_format) : nullptr;
    const std::string name = preset ? preset->name : "no preset for " + std::string(set.id);
    auto [it, fresh] =
        by_preset.try_emplace(name, SelftestCheck{"preset " + name, preset != nullptr, {}});
    SelftestCheck& check = it->second;
    if (!preset) continue;
    const StepResult* result = preset->result_for(set.out_format);
    const bool c_read = mma_block_reads_c(set.instruction, set.in_format);
    int exact = 0;
    for (int row = 0; row < set.rows; ++row) {
      const auto rowdata =
          set.data.subspan(static_cast<size_t>(row) * (2 * set.k + 2), 2 * set.k + 2);
      const uint32_t d =
          result ? emulate_mma_block_row(*preset, *result, set.in_format, rowdata.subspan(0, set.k),
                                         rowdata.subspan(set.k, set.k), Format::f32,
                                         rowdata[2 * set.k], c_read)
                 : ~rowdata[2 * set.k + 1];
      exact += d == rowdata[2 * set.k + 1];
    }
    if (exact != set.rows) check.passed = false;
    check.detail += (check.detail.empty() ? "" : ", ") + std::string(set.id) + " " +
                    std::to_string(exact) + "/" + std::to_string(set.rows);
  }
  std::vector<SelftestCheck> out;
  for (auto& [name, check] : by_preset) out.push_back(std::move(check));
  return out;
}

Result<std::vector<SelftestCheck>> check_truth_set(const std::filesystem::path& directory,
                                                   const std::string& profile_name) {
  auto set = load_truth_set(directory);
  if (!set) return set.error();
  auto profile = load_profile(profile_name);
  if (!profile) return profile.error();
  std::vector<SelftestCheck> checks;
  for (const auto& r : set->recordings) {
    SelftestCheck check{"truth " + r.id, false, {}};
    if (r.op != "scaled_mm") continue;
    auto replay = replay_scaled_mm(*set, r, *profile, Backend::cpu);
    if (!replay) {
      check.detail = replay.error().message();
    } else {
      const Comparison& c = replay->comparison;
      check.passed = c.bit_exact();
      check.detail = std::to_string(c.total - c.mismatches) + "/" + std::to_string(c.total) +
                     " elements bit-exact (" + replay->plan.preset->name + ", " +
                     replay->plan.algorithm.name + ", split-K " +
                     std::to_string(replay->plan.split_k) + ")";
    }
    checks.push_back(std::move(check));
  }
  return checks;
}

}  // namespace mmaemu
